//! `slice` and `dice` (CuTe's `int_tuple.hpp` / `layout.hpp`): a coordinate
//! with `_` keeps the modes at its underscores (`L(_, i)`), or drops them.

use std::fmt;

use super::{Int, IntTuple, Layout, Tuple};
use crate::error::{LayoutError, Result};

/// A coordinate that may hold `_` (CuTe's `Underscore`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SliceCoord {
    Int(i64),
    Underscore,
    Tuple(Vec<SliceCoord>),
}

impl SliceCoord {
    /// The coordinate with every `_` as 0 (where a slice starts).
    pub fn zeroed(&self) -> IntTuple {
        match self {
            SliceCoord::Int(n) => Int(*n),
            SliceCoord::Underscore => Int(0),
            SliceCoord::Tuple(v) => Tuple(v.iter().map(SliceCoord::zeroed).collect()),
        }
    }

    /// Whether an `_` appears anywhere.
    pub fn has_underscore(&self) -> bool {
        match self {
            SliceCoord::Int(_) => false,
            SliceCoord::Underscore => true,
            SliceCoord::Tuple(v) => v.iter().any(SliceCoord::has_underscore),
        }
    }
}

impl fmt::Display for SliceCoord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceCoord::Int(n) => write!(f, "{n}"),
            SliceCoord::Underscore => write!(f, "_"),
            SliceCoord::Tuple(v) => {
                write!(f, "(")?;
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{c}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// The kept `(shape, stride)` modes, flattened as C++'s `filter_tuple` of
/// `lift_slice` / `lift_dice` flattens them.
fn pick(
    c: &SliceCoord,
    shape: &IntTuple,
    stride: &IntTuple,
    keep_underscores: bool,
    op: &str,
    out: &mut Vec<(IntTuple, IntTuple)>,
) -> Result<()> {
    match (c, shape, stride) {
        (SliceCoord::Tuple(cs), Tuple(ss), Tuple(ds)) => {
            if cs.len() != ss.len() {
                return Err(LayoutError::invalid(
                    op,
                    format!(
                        "the coordinate {c} has {} modes but the shape {shape} has {}",
                        cs.len(),
                        ss.len()
                    ),
                ));
            }
            for ((c, s), d) in cs.iter().zip(ss).zip(ds) {
                pick(c, s, d, keep_underscores, op, out)?;
            }
            Ok(())
        }
        (SliceCoord::Tuple(_), Int(_), _) => Err(LayoutError::invalid(
            op,
            format!("the coordinate {c} is a tuple where the shape is the integer {shape}"),
        )),
        (SliceCoord::Underscore, ..) => {
            if keep_underscores {
                out.push((shape.clone(), stride.clone()));
            }
            Ok(())
        }
        (SliceCoord::Int(i), ..) => {
            if *i < 0 || *i >= shape.product() {
                return Err(LayoutError::invalid(
                    op,
                    format!("the coordinate {i} is outside the mode {shape}"),
                ));
            }
            if !keep_underscores {
                out.push((shape.clone(), stride.clone()));
            }
            Ok(())
        }
        _ => unreachable!("a layout's shape and stride are congruent"),
    }
}

/// The kept modes as one layout; none kept is C++'s empty layout `():()`.
fn assemble(modes: Vec<(IntTuple, IntTuple)>) -> Result<Layout> {
    let (s, d): (Vec<_>, Vec<_>) = modes.into_iter().unzip();
    Layout::new(Tuple(s), Tuple(d))
}

impl Layout {
    /// `slice(c, L)` (also `L(c)` with `_` in `c`): the modes at the
    /// underscores of `c`. An `_` for the whole layout is the layout.
    pub fn slice(&self, c: &SliceCoord) -> Result<Layout> {
        if *c == SliceCoord::Underscore {
            return Ok(self.clone());
        }
        let mut modes = Vec::new();
        pick(c, &self.shape, &self.stride, true, "slice", &mut modes)?;
        assemble(modes)
    }

    /// `dice(c, L)`: the modes where `c` is an integer (the complement of
    /// `slice`). An integer for the whole layout is the layout.
    pub fn dice(&self, c: &SliceCoord) -> Result<Layout> {
        if matches!(c, SliceCoord::Int(_)) {
            return Ok(self.clone());
        }
        let mut modes = Vec::new();
        pick(c, &self.shape, &self.stride, false, "dice", &mut modes)?;
        assemble(modes)
    }

    /// `filter(L, profile)`: stride-0 modes dropped (made size 1), then
    /// coalesced by the profile.
    pub fn filter_by(&self, profile: &IntTuple) -> Result<Layout> {
        let zeroed = Layout {
            shape: zero_strided_to_one(&self.shape, &self.stride),
            stride: self.stride.clone(),
        };
        zeroed.coalesce_by(profile)
    }
}

fn zero_strided_to_one(s: &IntTuple, d: &IntTuple) -> IntTuple {
    match (s, d) {
        (Tuple(ss), Tuple(ds)) => Tuple(
            ss.iter()
                .zip(ds)
                .map(|(s, d)| zero_strided_to_one(s, d))
                .collect(),
        ),
        (Int(_), Int(0)) => Int(1),
        _ => s.clone(),
    }
}

impl Layout {
    /// `make_layout_like(L)`: a compact layout of `L`'s shape whose strides
    /// follow the order of `L`'s (stride-0 modes stay stride 0).
    pub fn make_layout_like(&self) -> Result<Layout> {
        let shape = zero_strided_to_one(&self.shape, &self.stride);
        let stride = super::compact_order(&shape, &self.stride)?;
        Layout::new(self.shape.clone(), stride)
    }

    /// `make_fragment_like(L)`: the register layout CuTe gives a thread's
    /// part of a tensor. Mode 0 (the values of one copy) is column-major,
    /// its stride-0 modes kept at stride 0; the other modes are compact in
    /// the order of their strides, after it.
    pub fn make_fragment_like(&self) -> Result<Layout> {
        let modes = self.modes();
        if modes.len() <= 1 {
            return Layout::column_major(self.shape.clone());
        }
        let first = &modes[0];
        let filtered = zero_strided_to_one(&first.shape, &first.stride);
        let first = Layout::new(first.shape.clone(), super::compact_col_major(&filtered))?;
        let rest = Layout::concat(modes[1..].to_vec());
        let ordered = Layout::new(
            rest.shape.clone(),
            super::compact_order(&rest.shape, &rest.stride)?,
        )?;
        first.tiled_product(&super::Tiler::Layout(ordered))
    }

    /// `max_common_vector(L, R)`: how many elements from index 0 on both
    /// layouts keep contiguous (the leading stride-1 run of `L o R^-1`).
    pub fn max_common_vector(&self, other: &Layout) -> Result<i64> {
        let common = self.compose(&other.right_inverse())?.coalesce();
        let (s, d) = common.leaves()[0];
        Ok(if d == 1 { s } else { 1 })
    }

    /// `max_alignment(L)`: the largest `n` such that the layout maps runs
    /// of `n` indices to runs of `n` offsets starting at multiples of `n`.
    pub fn max_alignment(&self) -> Result<i64> {
        let flat = self.coalesce();
        let permuted = flat.logical_divide(&super::Tiler::Layout(flat.right_inverse()))?;
        let size = permuted.mode(0).size();
        let stride = permuted.mode(1).leaves()[0].1;
        Ok(super::gcd(size, stride))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(t: &str) -> Layout {
        Layout::parse(t).unwrap()
    }

    use SliceCoord::{Int as I, Tuple as T, Underscore as U};

    #[test]
    fn slice_keeps_the_underscored_modes_and_dice_the_others() {
        let a = l("((4,2),8):((2,1),8)");
        assert_eq!(
            a.slice(&T(vec![U, I(3)])).unwrap().to_string(),
            "((4,2)):((2,1))"
        );
        assert_eq!(
            a.slice(&T(vec![T(vec![U, I(1)]), U])).unwrap().to_string(),
            "(4,8):(2,8)"
        );
        assert_eq!(
            a.dice(&T(vec![T(vec![U, I(1)]), U])).unwrap().to_string(),
            "(2):(1)"
        );
        assert_eq!(a.slice(&T(vec![I(0), I(0)])).unwrap().to_string(), "():()");
        assert!(a.slice(&T(vec![U])).is_err());
    }
}
