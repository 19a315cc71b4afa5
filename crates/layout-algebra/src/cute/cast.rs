//! `upcast`, `downcast` and `recast_layout`: a layout of one element width
//! seen in another (CuTe's `layout.hpp`). Copy atoms are written in bits and
//! recast to their value type this way.

use super::{Int, IntTuple, Layout, Tuple};
use crate::error::{LayoutError, Result};

impl Layout {
    /// `upcast<n>`: `n` old elements become one. A stride-0 mode stays; a
    /// stride `d` must divide `n` or be a multiple of it, and becomes
    /// `ceil(d / n)` (its sign kept) over `ceil(s / ceil(n / d))` elements.
    pub fn upcast(&self, n: i64) -> Result<Layout> {
        if n <= 0 {
            return Err(LayoutError::invalid(
                "upcast",
                format!("the factor {n} is not positive"),
            ));
        }
        fn walk(s: &IntTuple, d: &IntTuple, n: i64) -> Result<(IntTuple, IntTuple)> {
            match (s, d) {
                (Tuple(ss), Tuple(ds)) => {
                    let (a, b): (Vec<_>, Vec<_>) = ss
                        .iter()
                        .zip(ds)
                        .map(|(s, d)| walk(s, d, n))
                        .collect::<Result<Vec<_>>>()?
                        .into_iter()
                        .unzip();
                    Ok((Tuple(a), Tuple(b)))
                }
                (Int(s), Int(0)) => Ok((Int(*s), Int(0))),
                (Int(s), Int(d)) => {
                    let a = d.abs();
                    if a % n != 0 && n % a != 0 {
                        return Err(LayoutError::invalid(
                            "upcast",
                            format!(
                                "the stride {d} neither divides {n} nor is a multiple of it \
                                 (CuTe's divisibility condition)"
                            ),
                        ));
                    }
                    let shape = ceil_div(*s, ceil_div(n, a));
                    Ok((Int(shape), Int(d.signum() * ceil_div(a, n))))
                }
                _ => unreachable!("a layout's shape and stride are congruent"),
            }
        }
        let (shape, stride) = walk(&self.shape, &self.stride, n)?;
        Layout::new(shape, stride)
    }

    /// `downcast<n>`: one old element becomes `n`. The stride-1 mode grows
    /// `n` times; every other stride is multiplied by `n`.
    pub fn downcast(&self, n: i64) -> Result<Layout> {
        if n <= 0 {
            return Err(LayoutError::invalid(
                "downcast",
                format!("the factor {n} is not positive"),
            ));
        }
        if !self.leaves().iter().any(|&(_, d)| d == 1 || d == -1) {
            return Err(LayoutError::invalid(
                "downcast",
                format!(
                    "{self} has no stride-1 mode (CuTe: \"Downcast requires adjacent elements\")"
                ),
            ));
        }
        fn walk(s: &IntTuple, d: &IntTuple, n: i64) -> (IntTuple, IntTuple) {
            match (s, d) {
                (Tuple(ss), Tuple(ds)) => {
                    let (a, b) = ss.iter().zip(ds).map(|(s, d)| walk(s, d, n)).unzip();
                    (Tuple(a), Tuple(b))
                }
                (Int(s), Int(d)) if d.abs() == 1 => (Int(s * n), Int(*d)),
                (Int(s), Int(d)) => (Int(*s), Int(d * n)),
                _ => unreachable!("a layout's shape and stride are congruent"),
            }
        }
        let (shape, stride) = walk(&self.shape, &self.stride, n);
        Layout::new(shape, stride)
    }

    /// `recast_layout<Old, New>`: a layout over elements of `old_bits` seen
    /// over elements of `new_bits` (upcast by the ratio, downcast by its
    /// inverse, both for a ratio like 3/2).
    pub fn recast(&self, old_bits: u32, new_bits: u32) -> Result<Layout> {
        if old_bits == 0 || new_bits == 0 {
            return Err(LayoutError::invalid(
                "recast_layout",
                "element widths must be positive".to_string(),
            ));
        }
        let g = super::gcd(old_bits as i64, new_bits as i64);
        let (num, den) = (new_bits as i64 / g, old_bits as i64 / g);
        match (num, den) {
            (1, 1) => Ok(self.clone()),
            (1, d) => self.downcast(d),
            (u, 1) => self.upcast(u),
            (u, d) => self.upcast(u)?.downcast(d),
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(text: &str) -> Layout {
        Layout::parse(text).unwrap()
    }

    /// Values from CUTLASS's printed copy atoms: `SM75_U32x4_LDSM_N` over
    /// `half_t` recasts its bit layouts to these.
    #[test]
    fn ldmatrix_bits_to_half() {
        assert_eq!(
            l("((8,4),128):((128,0),1)")
                .recast(1, 16)
                .unwrap()
                .to_string(),
            "((8,4),8):((8,0),1)"
        );
        assert_eq!(
            l("(32,(32,4)):(32,(1,1024))")
                .recast(1, 16)
                .unwrap()
                .to_string(),
            "(32,(2,4)):(2,(1,64))"
        );
    }

    #[test]
    fn downcast_needs_a_unit_stride() {
        assert!(l("(4,2):(2,8)").downcast(2).is_err());
        assert_eq!(
            l("(4,2):(1,4)").downcast(2).unwrap().to_string(),
            "(8,2):(1,8)"
        );
    }

    #[test]
    fn upcast_checks_divisibility() {
        assert!(l("4:3").upcast(2).is_err());
        assert_eq!(
            l("(4,8):(0,16)").upcast(8).unwrap().to_string(),
            "(4,8):(0,2)"
        );
    }
}
