//! Swizzles on the other side of a composition (CuTe's `swizzle_layout.hpp`):
//! `composition(L, Sw)`, which CuTe rewrites as a new swizzle in front of
//! `L`, and the inverses of `Sw o 0 o L`, which are built from it.

use super::{Layout, Swizzle, SwizzledLayout};
use crate::error::{LayoutError, Result};

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
    /// `right_inverse(Sw o 0 o L)` = `composition(right_inverse(L), Sw)`.
    pub fn right_inverse(&self) -> Result<SwizzledLayout> {
        self.no_offset("right_inverse")?;
        self.layout.right_inverse().compose_swizzle(&self.swizzle)
    }

    /// `left_inverse(Sw o 0 o L)` = `composition(left_inverse(L), Sw)`.
    pub fn left_inverse(&self) -> Result<SwizzledLayout> {
        self.no_offset("left_inverse")?;
        self.layout.left_inverse()?.compose_swizzle(&self.swizzle)
    }

    fn no_offset(&self, op: &str) -> Result<()> {
        if self.offset != 0 {
            return Err(LayoutError::invalid(
                op,
                format!(
                    "{self} has the offset {}: C++ answers `L o -offset o Sw`, a form layoutc does not represent",
                    self.offset
                ),
            ));
        }
        Ok(())
    }
}
