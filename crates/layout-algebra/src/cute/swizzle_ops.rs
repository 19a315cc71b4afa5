//! Swizzles on the other side of a composition (CuTe's `swizzle_layout.hpp`):
//! `composition(L, Sw)`, which CuTe rewrites as a new swizzle in front of
//! `L`; the inverses of `Sw o k o L`, which are built from it; and
//! `L o k o Sw`, the composed layout C++ leaves when it cannot rewrite.

use std::fmt;

use super::{Layout, Parser, Swizzle, SwizzledLayout};
use crate::error::{LayoutError, Result};

/// `L o offset o Sw` (CuTe's `ComposedLayout<Layout, Offset, Swizzle>`): the
/// swizzle acts on the index first, `i -> L(offset + Sw(i))`. C++ builds it
/// for the inverses of a swizzled layout with a nonzero offset. A swizzle has
/// no shape, so neither does this: C++ gives it no size, and composing it
/// further nests another level, which layoutc does not represent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayoutAfterSwizzle {
    pub layout: Layout,
    pub offset: i64,
    pub swizzle: Swizzle,
}

impl LayoutAfterSwizzle {
    pub fn call(&self, idx: i64) -> i64 {
        self.layout.call(self.offset + self.swizzle.apply(idx))
    }

    /// Parses `(64,8):(8,1) o -4 o Sw<3,1,3>` (`o offset` may be left out).
    pub fn parse(text: &str) -> Result<LayoutAfterSwizzle> {
        let mut p = Parser::new(text);
        let l = p.layout_after_swizzle()?;
        p.end()?;
        Ok(l)
    }

    /// `right_inverse(L o k o Sw)` = `Sw o -k o right_inverse(L)`, as C++'s
    /// generic rule inverts each part (a swizzle is its own inverse).
    pub fn right_inverse(&self) -> SwizzledLayout {
        SwizzledLayout {
            swizzle: self.swizzle,
            offset: -self.offset,
            layout: self.layout.right_inverse(),
        }
    }

    /// `left_inverse(L o k o Sw)` = `Sw o -k o left_inverse(L)`.
    pub fn left_inverse(&self) -> Result<SwizzledLayout> {
        Ok(SwizzledLayout {
            swizzle: self.swizzle,
            offset: -self.offset,
            layout: self.layout.left_inverse()?,
        })
    }
}

impl fmt::Display for LayoutAfterSwizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.layout, self.offset, self.swizzle)
    }
}

/// An inverse of `Sw o k o L`: with `k = 0` C++ rewrites it as a swizzled
/// layout (`Sw' o 0 o L'`); otherwise it stays `L' o -k o Sw`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SwizzledInverse {
    Rewritten(SwizzledLayout),
    Composed(LayoutAfterSwizzle),
}

impl Swizzle {
    /// The bits written (`zzz_msk`).
    pub fn target_mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i64 - self.shift.min(0) as i64)
    }

    /// `make_swizzle<Y, Z>()`: the swizzle that XORs the bits of `y` into
    /// those of `z`, when one exists.
    pub fn from_masks(y: i64, z: i64) -> Result<Swizzle> {
        let fail = |why: &str| {
            LayoutError::invalid(
                "composition",
                format!("no swizzle moves the bits {y:#b} onto {z:#b}: {why}"),
            )
        };
        if y < 0 || z < 0 {
            return Err(fail("a mask is negative"));
        }
        let bits = y.count_ones();
        if bits != z.count_ones() {
            return Err(fail("they have different numbers of bits"));
        }
        if bits == 0 {
            return Swizzle::new(0, 0, 0);
        }
        let (ty, tz) = (y.trailing_zeros() as i32, z.trailing_zeros() as i32);
        let sw = Swizzle::new(bits, ty.min(tz) as u32, ty - tz)?;
        if sw.mask() | sw.target_mask() != y | z {
            return Err(fail("the bits are not two contiguous runs"));
        }
        Ok(sw)
    }
}

impl Layout {
    /// `composition(L, Sw)`: CuTe's rewrite `Sw' o 0 o L`, where `Sw'` moves
    /// `L`'s images of the swizzle's bits ("works in simple cases" in the
    /// headers; the result is checked point by point here).
    pub fn compose_swizzle(&self, sw: &Swizzle) -> Result<SwizzledLayout> {
        if sw.bits == 0 {
            return Ok(SwizzledLayout {
                swizzle: *sw,
                offset: 0,
                layout: self.clone(),
            });
        }
        let y = self.call(sw.mask());
        let z = self.call(sw.target_mask());
        let rewritten = Swizzle::from_masks(y, z)?;
        let result = SwizzledLayout {
            swizzle: rewritten,
            offset: 0,
            layout: self.clone(),
        };
        let n = self.size();
        if n <= 1 << 16 {
            for i in 0..n {
                let (want, got) = (self.call(sw.apply(i)), result.call(i));
                if sw.apply(i) < n && want != got {
                    return Err(LayoutError::invalid(
                        "composition",
                        format!(
                            "{self} o {sw} is not a swizzled layout: CuTe's rewrite gives {result}, which maps \
                             {i} to {got}, but the composition maps it to {want}"
                        ),
                    ));
                }
            }
        }
        Ok(result)
    }
}

impl SwizzledLayout {
    /// `right_inverse(Sw o k o L)`: `composition(right_inverse(L), Sw)` when
    /// `k = 0`, else `right_inverse(L) o -k o Sw`.
    pub fn right_inverse(&self) -> Result<SwizzledInverse> {
        let inner = self.layout.right_inverse();
        self.inverse_from(inner)
    }

    /// `left_inverse(Sw o k o L)`, built like `right_inverse`.
    pub fn left_inverse(&self) -> Result<SwizzledInverse> {
        let inner = self.layout.left_inverse()?;
        self.inverse_from(inner)
    }

    fn inverse_from(&self, inner: Layout) -> Result<SwizzledInverse> {
        if self.offset == 0 {
            return inner
                .compose_swizzle(&self.swizzle)
                .map(SwizzledInverse::Rewritten);
        }
        Ok(SwizzledInverse::Composed(LayoutAfterSwizzle {
            layout: inner,
            offset: -self.offset,
            swizzle: self.swizzle,
        }))
    }
}
