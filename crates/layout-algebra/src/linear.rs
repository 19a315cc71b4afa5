//! Linear layouts: GF(2)-linear maps between named, power-of-two sized
//! dimensions (seed 000; Triton's `LinearLayout`).
//!
//! A layout maps input coordinates (`register`, `lane`, `warp`, `block`, or
//! `offset` for shared memory) to output coordinates (`dim0`, `dim1`, ...). Each
//! in-dim of size `2^n` has `n` bases: the image of `1, 2, 4, ...`. The image of
//! any input is the XOR of the bases of its set bits:
//! `L(x ⊕ y) = L(x) ⊕ L(y)`.
//!
//! Representation: a basis is one machine word holding all output coordinates
//! side by side, out-dim `k` in the bits `[offset_k, offset_k + log2 size_k)`,
//! in out-dim order. That word is the basis's column of the layout's bit
//! matrix, so application is XOR of words and reshaping the outputs only
//! renames bit ranges. At most 64 input and 64 output bits, as in Triton.
//!
//! Semantics follow Triton's `LinearLayout.cpp`: the product `inner * outer`
//! puts `inner`'s bits below `outer`'s for every shared dim, `compose` is
//! `outer ∘ self`, and `invert_and_compose` maps in-dims that are equal on both
//! sides as the identity and solves the rest with free variables set to zero.

use std::fmt;

use smol_str::SmolStr;

use crate::error::{InvalidKind, LayoutError, Result};
use crate::f2::Echelon;

/// The name of an input or output dimension.
pub type DimName = SmolStr;

/// An input dimension: its name and one packed basis per bit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct InDim {
    name: DimName,
    bases: Vec<u64>,
}

/// An output dimension: its name and log2 of its size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct OutDim {
    name: DimName,
    log2: u32,
}

/// A GF(2)-linear map between named power-of-two dimensions. A value of this
/// type is always valid: bases lie inside their out-dims and both sides have
/// at most 64 bits.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct LinearLayout {
    ins: Vec<InDim>,
    outs: Vec<OutDim>,
    /// Cached: the bases span every output coordinate.
    surjective: bool,
}

/// Bases as plain coordinates, one list of out coordinates per basis, as
/// Triton prints them (`register: [[0, 1], [0, 2]]`).
pub type UnpackedBases = Vec<(DimName, Vec<Vec<u32>>)>;

fn is_pow2(n: u64) -> bool {
    n != 0 && n & (n - 1) == 0
}

fn log2_exact(what: &str, n: i64) -> Result<u32> {
    if n <= 0 || !is_pow2(n as u64) {
        return Err(LayoutError::NotPowerOfTwo {
            what: what.into(),
            value: n,
        });
    }
    Ok(n.trailing_zeros())
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn join_names<'a>(names: impl IntoIterator<Item = &'a DimName>) -> String {
    names
        .into_iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Triton's `supremum` of two dim lists: a list containing both, taking
/// `x`'s dims first where the order is free. Like Triton it tolerates lists
/// whose common dims are ordered differently (the result then follows `x`)
/// and gives up (`None`) only where Triton's walk reaches a contradiction.
fn supremum(x: &[DimName], y: &[DimName]) -> Option<Vec<DimName>> {
    let pos = |list: &[DimName], name: &DimName| list.iter().position(|n| n == name);
    let mut result: Vec<DimName> = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    loop {
        while i < x.len() && result.contains(&x[i]) {
            i += 1;
        }
        while j < y.len() && result.contains(&y[j]) {
            j += 1;
        }
        if i >= x.len() && j >= y.len() {
            return Some(result);
        }
        if i < x.len() && j < y.len() && x[i] == y[j] {
            if pos(y, &x[i])? < j {
                return None;
            }
            result.push(x[i].clone());
            i += 1;
            j += 1;
            continue;
        }
        // Where the head of each list appears, still ahead, in the other.
        let cand_x = (i < x.len())
            .then(|| pos(y, &x[i]).filter(|&p| p >= j))
            .flatten();
        let cand_y = (j < y.len())
            .then(|| pos(x, &y[j]).filter(|&p| p >= i))
            .flatten();
        if i < x.len() && cand_x.is_none() {
            result.push(x[i].clone());
            i += 1;
            continue;
        }
        if j < y.len() && cand_y.is_none() {
            result.push(y[j].clone());
            j += 1;
            continue;
        }
        match (cand_x, cand_y) {
            (Some(cx), Some(cy)) if cx <= cy => {
                result.push(x[i].clone());
                i += 1;
            }
            (_, Some(_)) => {
                if pos(x, &y[j])? < i {
                    return None;
                }
                result.push(y[j].clone());
                j += 1;
            }
            _ => return None,
        }
    }
}

impl LinearLayout {
    // ----- construction -------------------------------------------------

    /// The layout with no dims at all (the unit of the product).
    pub fn empty() -> Self {
        LinearLayout {
            ins: Vec::new(),
            outs: Vec::new(),
            surjective: true,
        }
    }

    /// Builds a layout from bases, inferring each out-dim's size as the
    /// smallest power of two above every coordinate used, and requiring the
    /// result to be surjective (Triton's `LinearLayout(bases, outDimNames)`).
    pub fn from_bases<N: Into<DimName>, M: Into<DimName>>(
        bases: Vec<(N, Vec<Vec<i64>>)>,
        out_names: Vec<M>,
    ) -> Result<Self> {
        Self::from_bases_inferring_sizes(bases, out_names, true)
    }

    /// Like [`LinearLayout::from_bases`], with surjectivity optional.
    pub fn from_bases_inferring_sizes<N: Into<DimName>, M: Into<DimName>>(
        bases: Vec<(N, Vec<Vec<i64>>)>,
        out_names: Vec<M>,
        require_surjective: bool,
    ) -> Result<Self> {
        let out_names: Vec<DimName> = out_names.into_iter().map(Into::into).collect();
        let mut sizes = vec![1i64; out_names.len()];
        for (_, in_bases) in &bases {
            for basis in in_bases {
                for (k, &v) in basis.iter().enumerate() {
                    if k < sizes.len() && v >= 0 {
                        // Triton's NextPowerOf2: strictly greater than v.
                        let next = if v == 0 {
                            1
                        } else {
                            1i64 << (64 - (v as u64).leading_zeros())
                        };
                        sizes[k] = sizes[k].max(next);
                    }
                }
            }
        }
        let out_dims = out_names.into_iter().zip(sizes).collect();
        Self::from_bases_with_sizes(bases, out_dims, require_surjective)
    }

    /// Builds a layout from bases and explicit out-dim sizes. With
    /// `require_surjective`, a layout that misses output coordinates is an error.
    pub fn from_bases_with_sizes<N: Into<DimName>>(
        bases: Vec<(N, Vec<Vec<i64>>)>,
        out_dims: Vec<(DimName, i64)>,
        require_surjective: bool,
    ) -> Result<Self> {
        let mut outs = Vec::with_capacity(out_dims.len());
        for (name, size) in out_dims {
            if outs.iter().any(|o: &OutDim| o.name == name) {
                return Err(LayoutError::DuplicateDim { side: "out", name });
            }
            let log2 = log2_exact(&format!("the size of out-dim '{name}'"), size)?;
            outs.push(OutDim { name, log2 });
        }
        let total_out: u32 = outs.iter().map(|o| o.log2).sum();
        if total_out > 64 {
            return Err(LayoutError::TooLarge {
                side: "output",
                bits: total_out,
            });
        }
        let mut ins: Vec<InDim> = Vec::with_capacity(bases.len());
        for (name, in_bases) in bases {
            let name: DimName = name.into();
            if ins.iter().any(|d| d.name == name) {
                return Err(LayoutError::DuplicateDim { side: "in", name });
            }
            let mut packed = Vec::with_capacity(in_bases.len());
            for (index, basis) in in_bases.iter().enumerate() {
                if basis.len() != outs.len() {
                    return Err(LayoutError::BasisArity {
                        in_dim: name.clone(),
                        index,
                        got: basis.len(),
                        expected: outs.len(),
                    });
                }
                let mut word = 0u64;
                let mut offset = 0;
                for (out, &v) in outs.iter().zip(basis) {
                    if v < 0 || (v as u64) >> out.log2 != 0 {
                        return Err(LayoutError::BasisOutOfRange {
                            in_dim: name.clone(),
                            index,
                            out_dim: out.name.clone(),
                            value: v,
                            size: 1u64 << out.log2,
                        });
                    }
                    word |= (v as u64) << offset;
                    offset += out.log2;
                }
                packed.push(word);
            }
            ins.push(InDim {
                name,
                bases: packed,
            });
        }
        let layout = Self::from_parts(ins, outs)?;
        if require_surjective && !layout.surjective {
            return Err(layout.not_surjective());
        }
        Ok(layout)
    }

    /// Assembles a layout from packed parts, checking only the size limits.
    fn from_parts(ins: Vec<InDim>, outs: Vec<OutDim>) -> Result<Self> {
        let total_in: usize = ins.iter().map(|d| d.bases.len()).sum();
        if total_in > 64 {
            return Err(LayoutError::TooLarge {
                side: "input",
                bits: total_in as u32,
            });
        }
        let total_out: u32 = outs.iter().map(|o| o.log2).sum();
        if total_out > 64 {
            return Err(LayoutError::TooLarge {
                side: "output",
                bits: total_out,
            });
        }
        let rank = crate::f2::rank(ins.iter().flat_map(|d| d.bases.iter().copied()));
        Ok(LinearLayout {
            surjective: rank == total_out,
            ins,
            outs,
        })
    }

    fn not_surjective(&self) -> LayoutError {
        LayoutError::NotSurjective {
            rank: self.rank(),
            size: self.total_out_size(),
        }
    }

    /// `L(x) = x` for `x < size` (Triton's `identity1D`).
    pub fn identity_1d(
        size: u32,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
    ) -> Result<Self> {
        Self::strided_1d(size, 1, in_dim, out_dim)
    }

    /// `L(x) = 0` for `x < size`; the out-dim has size 1 (Triton's `zeros1D`).
    pub fn zeros_1d(
        size: u32,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
    ) -> Result<Self> {
        Self::zeros_1d_sized(size, in_dim, out_dim, 1)
    }

    /// `L(x) = 0` for `x < size` into an out-dim of `out_size`.
    pub fn zeros_1d_sized(
        size: u32,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
        out_size: u32,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = log2_exact("the size of zeros_1d", size as i64)?;
        let log2 = log2_exact("the out-dim size of zeros_1d", out_size as i64)?;
        Self::from_parts(
            vec![InDim {
                name: in_dim.into(),
                bases: vec![0; n as usize],
            }],
            vec![OutDim {
                name: out_dim.into(),
                log2,
            }],
        )
    }

    /// `L(x) = x * stride` for `x < size`, into an out-dim of `size * stride`
    /// (Triton's `strided1D`). Both must be powers of two on the GF(2) path.
    pub fn strided_1d(
        size: u32,
        stride: u32,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = log2_exact("the size of a 1-D layout", size as i64)?;
        let s = log2_exact("the stride of strided_1d", stride as i64)?;
        Self::from_parts(
            vec![InDim {
                name: in_dim.into(),
                bases: (0..n).map(|i| 1u64 << (i + s)).collect(),
            }],
            vec![OutDim {
                name: out_dim.into(),
                log2: n + s,
            }],
        )
    }

    /// Identity from one in-dim onto `dim0..dimN` with the given per-dim
    /// sizes, most minor dim first as listed by `order` (Triton's
    /// `identityStandardND`).
    pub fn identity_standard_nd(in_dim: &str, shape: &[u32], order: &[usize]) -> Result<Self> {
        let mut layout = Self::empty();
        for &dim in order {
            let size = *shape.get(dim).ok_or_else(|| {
                LayoutError::invalid_of(
                    InvalidKind::Order,
                    "order",
                    format!("dim {dim} is outside rank {}", shape.len()),
                )
            })?;
            layout = layout.product(&Self::identity_1d(size, in_dim, standard_out_name(dim))?)?;
        }
        Ok(layout)
    }

    // ----- accessors ----------------------------------------------------

    pub fn in_dim_names(&self) -> impl ExactSizeIterator<Item = &DimName> {
        self.ins.iter().map(|d| &d.name)
    }

    pub fn out_dim_names(&self) -> impl ExactSizeIterator<Item = &DimName> {
        self.outs.iter().map(|d| &d.name)
    }

    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    pub fn has_in_dim(&self, name: &str) -> bool {
        self.ins.iter().any(|d| d.name == name)
    }

    pub fn has_out_dim(&self, name: &str) -> bool {
        self.outs.iter().any(|d| d.name == name)
    }

    fn in_index(&self, name: &str) -> Result<usize> {
        self.ins
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| LayoutError::UnknownDim {
                side: "in",
                name: name.into(),
                available: join_names(self.in_dim_names()),
            })
    }

    fn out_index(&self, name: &str) -> Result<usize> {
        self.outs
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| LayoutError::UnknownDim {
                side: "out",
                name: name.into(),
                available: join_names(self.out_dim_names()),
            })
    }

    /// log2 of the size of an in-dim (its number of bases); 0 when absent.
    pub fn in_dim_size_log2(&self, name: &str) -> u32 {
        self.ins
            .iter()
            .find(|d| d.name == name)
            .map_or(0, |d| d.bases.len() as u32)
    }

    /// Size of an in-dim; 1 when absent (a missing dim acts as size 1).
    pub fn in_dim_size(&self, name: &str) -> u64 {
        1u64 << self.in_dim_size_log2(name)
    }

    /// log2 of the size of an out-dim; 0 when absent.
    pub fn out_dim_size_log2(&self, name: &str) -> u32 {
        self.outs
            .iter()
            .find(|d| d.name == name)
            .map_or(0, |d| d.log2)
    }

    /// Size of an out-dim; 1 when absent.
    pub fn out_dim_size(&self, name: &str) -> u64 {
        1u64 << self.out_dim_size_log2(name)
    }

    /// `(name, size)` of every in-dim, in order.
    pub fn in_dims(&self) -> Vec<(DimName, u64)> {
        self.ins
            .iter()
            .map(|d| (d.name.clone(), 1u64 << d.bases.len()))
            .collect()
    }

    /// `(name, size)` of every out-dim, in order.
    pub fn out_dims(&self) -> Vec<(DimName, u64)> {
        self.outs
            .iter()
            .map(|d| (d.name.clone(), 1u64 << d.log2))
            .collect()
    }

    pub fn total_in_bits(&self) -> u32 {
        self.ins.iter().map(|d| d.bases.len() as u32).sum()
    }

    pub fn total_out_bits(&self) -> u32 {
        self.outs.iter().map(|d| d.log2).sum()
    }

    pub fn total_in_size(&self) -> u64 {
        1u64 << self.total_in_bits()
    }

    pub fn total_out_size(&self) -> u64 {
        1u64 << self.total_out_bits()
    }

    /// Bit offset of each out-dim inside a packed word.
    fn out_offsets(&self) -> Vec<u32> {
        let mut offset = 0;
        self.outs
            .iter()
            .map(|o| {
                let at = offset;
                offset += o.log2;
                at
            })
            .collect()
    }

    /// Splits a packed output word into per-out-dim coordinates.
    pub fn unpack(&self, mut word: u64) -> Vec<u32> {
        self.outs
            .iter()
            .map(|o| {
                let v = (word & low_mask(o.log2)) as u32;
                word = if o.log2 >= 64 { 0 } else { word >> o.log2 };
                v
            })
            .collect()
    }

    /// The `i`-th basis of an in-dim as out coordinates.
    pub fn basis(&self, in_dim: &str, i: usize) -> Result<Vec<u32>> {
        let d = &self.ins[self.in_index(in_dim)?];
        let word = *d.bases.get(i).ok_or_else(|| {
            LayoutError::invalid(
                format!("basis {i} of in-dim '{in_dim}'"),
                format!("the dim has only {} bases", d.bases.len()),
            )
        })?;
        Ok(self.unpack(word))
    }

    /// All bases as coordinates, per in-dim, as Triton prints them.
    pub fn bases(&self) -> UnpackedBases {
        self.ins
            .iter()
            .map(|d| {
                (
                    d.name.clone(),
                    d.bases.iter().map(|&w| self.unpack(w)).collect(),
                )
            })
            .collect()
    }

    /// Packed bases of one in-dim (columns of the bit matrix).
    pub fn packed_bases(&self, in_dim: &str) -> Result<&[u64]> {
        Ok(&self.ins[self.in_index(in_dim)?].bases)
    }

    /// All packed columns, in-dims in order, low bits first.
    pub fn columns(&self) -> impl Iterator<Item = u64> + '_ {
        self.ins.iter().flat_map(|d| d.bases.iter().copied())
    }

    /// Rank of the bit matrix (dimension of the image).
    pub fn rank(&self) -> u32 {
        crate::f2::rank(self.columns())
    }

    pub fn is_surjective(&self) -> bool {
        self.surjective
    }

    /// Distinct inputs map to distinct outputs.
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_bits()
    }

    /// Surjective and square: a bijection.
    pub fn is_invertible(&self) -> bool {
        self.surjective && self.total_in_bits() == self.total_out_bits()
    }

    // ----- evaluation ---------------------------------------------------

    /// The packed output for a flattened input (in-dims concatenated, the
    /// first in-dim in the low bits).
    pub fn apply_flat(&self, mut input: u64) -> u64 {
        let mut out = 0;
        for d in &self.ins {
            for &b in &d.bases {
                if input & 1 == 1 {
                    out ^= b;
                }
                input >>= 1;
            }
        }
        out
    }

    /// Applies the layout to named input coordinates. Every in-dim must be
    /// given exactly once; each value must lie inside its dim.
    pub fn apply(&self, inputs: &[(&str, u64)]) -> Result<Vec<(DimName, u32)>> {
        let mut seen = vec![false; self.ins.len()];
        let mut out = 0u64;
        for &(name, value) in inputs {
            let k = self.in_index(name)?;
            if std::mem::replace(&mut seen[k], true) {
                return Err(LayoutError::DuplicateDim {
                    side: "in",
                    name: name.into(),
                });
            }
            let d = &self.ins[k];
            if value >> d.bases.len() != 0 {
                return Err(LayoutError::invalid(
                    format!("{name} = {value}"),
                    format!("in-dim '{name}' has size {}", 1u64 << d.bases.len()),
                ));
            }
            for (i, &b) in d.bases.iter().enumerate() {
                if value >> i & 1 == 1 {
                    out ^= b;
                }
            }
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            return Err(LayoutError::invalid(
                "apply",
                format!("no value given for in-dim '{}'", self.ins[k].name),
            ));
        }
        Ok(self
            .out_dim_names()
            .cloned()
            .zip(self.unpack(out))
            .collect())
    }

    // ----- the product ---------------------------------------------------

    /// Triton's `inner * outer` (here `self * outer`). Dims present in only
    /// one factor are concatenated; a shared in-dim takes `self`'s bits low
    /// and `outer`'s high; a shared out-dim takes `self`'s values low and
    /// `outer`'s scaled by `self`'s size. Common dims must appear in the same
    /// relative order in both.
    pub fn product(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let inner = self;
        let in_names = supremum(
            &inner.in_dim_names().cloned().collect::<Vec<_>>(),
            &outer.in_dim_names().cloned().collect::<Vec<_>>(),
        )
        .ok_or_else(|| LayoutError::NoCommonOrder {
            op: "product",
            side: "in",
            a: join_names(inner.in_dim_names()),
            b: join_names(outer.in_dim_names()),
        })?;
        let out_names = supremum(
            &inner.out_dim_names().cloned().collect::<Vec<_>>(),
            &outer.out_dim_names().cloned().collect::<Vec<_>>(),
        )
        .ok_or_else(|| LayoutError::NoCommonOrder {
            op: "product",
            side: "out",
            a: join_names(inner.out_dim_names()),
            b: join_names(outer.out_dim_names()),
        })?;

        let outs: Vec<OutDim> = out_names
            .iter()
            .map(|n| OutDim {
                name: n.clone(),
                log2: inner.out_dim_size_log2(n) + outer.out_dim_size_log2(n),
            })
            .collect();
        let mut result_offset = Vec::with_capacity(outs.len());
        let mut acc = 0;
        for o in &outs {
            result_offset.push(acc);
            acc += o.log2;
        }
        if acc > 64 {
            return Err(LayoutError::TooLarge {
                side: "output",
                bits: acc,
            });
        }
        // Moves of bit ranges from a factor's packed word into the result's.
        let moves = |factor: &LinearLayout, shifted: bool| -> Vec<(u32, u32, u32)> {
            let offsets = factor.out_offsets();
            factor
                .outs
                .iter()
                .zip(offsets)
                .map(|(o, from)| {
                    let k = out_names.iter().position(|n| *n == o.name).unwrap_or(0);
                    let shift = if shifted {
                        inner.out_dim_size_log2(&o.name)
                    } else {
                        0
                    };
                    (from, o.log2, result_offset[k] + shift)
                })
                .collect()
        };
        let relocate = |word: u64, moves: &[(u32, u32, u32)]| -> u64 {
            moves.iter().fold(0, |acc, &(from, width, to)| {
                acc | ((word >> from) & low_mask(width)) << to
            })
        };
        let inner_moves = moves(inner, false);
        let outer_moves = moves(outer, true);
        let ins = in_names
            .into_iter()
            .map(|name| {
                let mut bases: Vec<u64> = Vec::new();
                if let Some(d) = inner.ins.iter().find(|d| d.name == name) {
                    bases.extend(d.bases.iter().map(|&w| relocate(w, &inner_moves)));
                }
                if let Some(d) = outer.ins.iter().find(|d| d.name == name) {
                    bases.extend(d.bases.iter().map(|&w| relocate(w, &outer_moves)));
                }
                InDim { name, bases }
            })
            .collect();
        Self::from_parts(ins, outs)
    }

    // ----- composition and inversion ---------------------------------------

    /// Triton's `self.compose(outer)`: the layout `x ↦ outer(self(x))`.
    /// `self`'s out-dims must be `outer`'s in-dims (in any order), each no
    /// larger than the matching in-dim.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        if self.outs.len() != outer.ins.len() {
            return Err(LayoutError::mismatch(
                "compose",
                format!(
                    "the out-dims [{}] of the first layout must be the in-dims [{}] of the second",
                    join_names(self.out_dim_names()),
                    join_names(outer.in_dim_names())
                ),
            ));
        }
        // For each of self's out-dims: the matching in-dim of outer.
        let mut targets = Vec::with_capacity(self.outs.len());
        for o in &self.outs {
            let k = outer.ins.iter().position(|d| d.name == o.name).ok_or_else(|| {
                LayoutError::mismatch(
                    "compose",
                    format!(
                        "out-dim '{}' of the first layout is not an in-dim of the second (it has {})",
                        o.name,
                        join_names(outer.in_dim_names())
                    ),
                )
            })?;
            if (o.log2 as usize) > outer.ins[k].bases.len() {
                return Err(LayoutError::mismatch(
                    "compose",
                    format!(
                        "out-dim '{}' has size {} but the second layout's in-dim has size {}",
                        o.name,
                        1u64 << o.log2,
                        1u64 << outer.ins[k].bases.len()
                    ),
                ));
            }
            targets.push(&outer.ins[k].bases);
        }
        let offsets = self.out_offsets();
        let map = |word: u64| -> u64 {
            let mut out = 0;
            for ((o, &from), bases) in self.outs.iter().zip(&offsets).zip(&targets) {
                let mut v = (word >> from) & low_mask(o.log2);
                while v != 0 {
                    out ^= bases[v.trailing_zeros() as usize];
                    v &= v - 1;
                }
            }
            out
        };
        let ins = self
            .ins
            .iter()
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d.bases.iter().map(|&w| map(w)).collect(),
            })
            .collect();
        Self::from_parts(ins, outer.outs.clone())
    }

    /// Triton's `self.invertAndCompose(outer)`: a layout `C` from `self`'s
    /// in-dims to `outer`'s in-dims with `outer(C(x)) = self(x)`.
    ///
    /// Tie-breaking follows Triton: an in-dim present in both whose bases
    /// are equal maps as the identity; the rest is the solution with every
    /// free variable zero (the smallest offset). `outer` must reach every
    /// value `self` takes; each out-dim of `outer` must be at least as large
    /// as `self`'s.
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let b = self;
        let out_order: Vec<DimName> = b.out_dim_names().cloned().collect();
        if outer.outs.len() != out_order.len() || !out_order.iter().all(|n| outer.has_out_dim(n)) {
            return Err(LayoutError::mismatch(
                "invert_and_compose",
                format!(
                    "the two layouts must have the same out-dims, but have [{}] and [{}]",
                    join_names(b.out_dim_names()),
                    join_names(outer.out_dim_names())
                ),
            ));
        }
        let a = outer.transpose_outs(&out_order)?;
        for (ao, bo) in a.outs.iter().zip(&b.outs) {
            if ao.log2 < bo.log2 {
                return Err(LayoutError::mismatch(
                    "invert_and_compose",
                    format!(
                        "out-dim '{}' has size {} in the layout to invert, smaller than {}",
                        ao.name,
                        1u64 << ao.log2,
                        1u64 << bo.log2
                    ),
                ));
            }
        }

        let identity_dims: Vec<DimName> = a
            .ins
            .iter()
            .filter(|ad| {
                b.ins.iter().any(|bd| {
                    bd.name == ad.name
                        && bd.bases.len() == ad.bases.len()
                        && bd
                            .bases
                            .iter()
                            .zip(&ad.bases)
                            .all(|(&x, &y)| b.unpack(x) == a.unpack(y))
                })
            })
            .map(|d| d.name.clone())
            .collect();
        let is_identity = |n: &DimName| identity_dims.contains(n);

        // Solve A X = B over the non-identity dims. B's columns are
        // re-packed into A's bit positions (A's out-dims may be larger).
        let a_offsets = a.out_offsets();
        let b_offsets = b.out_offsets();
        let to_a_bits = |word: u64| -> u64 {
            b.outs
                .iter()
                .zip(&b_offsets)
                .zip(&a_offsets)
                .fold(0, |acc, ((o, &from), &to)| {
                    acc | ((word >> from) & low_mask(o.log2)) << to
                })
        };
        let a_free: Vec<&InDim> = a.ins.iter().filter(|d| !is_identity(&d.name)).collect();
        let mut echelon = Echelon::new();
        for d in &a_free {
            for &w in &d.bases {
                echelon.insert(w);
            }
        }
        let mut ins = Vec::new();
        for d in b.ins.iter().filter(|d| !is_identity(&d.name)) {
            let mut bases = Vec::with_capacity(d.bases.len());
            for (i, &w) in d.bases.iter().enumerate() {
                let solution = echelon.solve(to_a_bits(w)).ok_or_else(|| {
                    LayoutError::mismatch(
                        "invert_and_compose",
                        format!(
                            "{}={} maps to ({}), which the layout to invert never reaches",
                            d.name,
                            1u64 << i,
                            b.unpack(w)
                                .iter()
                                .map(|v| v.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                bases.push(solution);
            }
            ins.push(InDim {
                name: d.name.clone(),
                bases,
            });
        }
        // Out-dims of the solution: A's non-identity in-dims, whose bits are
        // the solution mask's bits in order.
        let outs: Vec<OutDim> = a_free
            .iter()
            .map(|d| OutDim {
                name: d.name.clone(),
                log2: d.bases.len() as u32,
            })
            .collect();
        let mut ret = Self::from_parts(ins, outs)?;
        for name in &identity_dims {
            let size = a.in_dim_size(name) as u32;
            ret = ret.product(&Self::identity_1d(size, name.clone(), name.clone())?)?;
        }
        let in_order: Vec<DimName> = b.in_dim_names().cloned().collect();
        let out_order: Vec<DimName> = a.in_dim_names().cloned().collect();
        ret.transpose_ins(&in_order)?.transpose_outs(&out_order)
    }

    /// The inverse of a bijection (Triton's `invert`).
    pub fn invert(&self) -> Result<LinearLayout> {
        if !self.is_invertible() {
            return Err(if !self.surjective {
                self.not_surjective()
            } else {
                LayoutError::NotInjective {
                    rank: self.rank(),
                    bits: self.total_in_bits(),
                }
            });
        }
        self.pseudoinvert()
    }

    /// A right inverse of a surjective layout: for every output `y`, the
    /// smallest input with `L(x) = y` (Triton's `pseudoinvert`).
    pub fn pseudoinvert(&self) -> Result<LinearLayout> {
        if !self.surjective {
            return Err(self.not_surjective());
        }
        let mut identity = Self::empty();
        for o in &self.outs {
            identity = identity.product(&Self::identity_1d(
                1 << o.log2,
                o.name.clone(),
                o.name.clone(),
            )?)?;
        }
        identity.invert_and_compose(self)
    }

    // ----- reshaping -----------------------------------------------------

    fn check_permutation(&self, side: &'static str, new: &[DimName]) -> Result<()> {
        let old: Vec<&DimName> = match side {
            "in" => self.in_dim_names().collect(),
            _ => self.out_dim_names().collect(),
        };
        let same = new.len() == old.len()
            && new.iter().all(|n| old.contains(&n))
            && old.iter().all(|n| new.contains(n));
        if !same {
            return Err(LayoutError::mismatch(
                if side == "in" {
                    "transpose_ins"
                } else {
                    "transpose_outs"
                },
                format!(
                    "[{}] is not a reordering of the {side}-dims [{}]",
                    join_names(new),
                    join_names(old)
                ),
            ));
        }
        Ok(())
    }

    /// Reorders the in-dims.
    pub fn transpose_ins(&self, order: &[DimName]) -> Result<LinearLayout> {
        self.check_permutation("in", order)?;
        let ins = order
            .iter()
            .map(|n| {
                self.ins
                    .iter()
                    .find(|d| d.name == *n)
                    .cloned()
                    .expect("checked")
            })
            .collect();
        Ok(LinearLayout {
            ins,
            outs: self.outs.clone(),
            surjective: self.surjective,
        })
    }

    /// Reorders the out-dims (moving each coordinate's bits with it).
    pub fn transpose_outs(&self, order: &[DimName]) -> Result<LinearLayout> {
        self.check_permutation("out", order)?;
        if order.iter().zip(&self.outs).all(|(n, o)| *n == o.name) {
            return Ok(self.clone());
        }
        let offsets = self.out_offsets();
        let mut moves = Vec::with_capacity(order.len());
        let mut outs = Vec::with_capacity(order.len());
        let mut to = 0;
        for n in order {
            let k = self
                .outs
                .iter()
                .position(|o| o.name == *n)
                .expect("checked");
            moves.push((offsets[k], self.outs[k].log2, to));
            to += self.outs[k].log2;
            outs.push(self.outs[k].clone());
        }
        let ins = self
            .ins
            .iter()
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d
                    .bases
                    .iter()
                    .map(|&w| {
                        moves.iter().fold(0, |acc, &(from, width, to)| {
                            acc | ((w >> from) & low_mask(width)) << to
                        })
                    })
                    .collect(),
            })
            .collect();
        Ok(LinearLayout {
            ins,
            outs,
            surjective: self.surjective,
        })
    }

    fn sizes_to_log2(what: &str, dims: &[(DimName, u64)]) -> Result<Vec<(DimName, u32)>> {
        let mut out: Vec<(DimName, u32)> = Vec::with_capacity(dims.len());
        for (n, s) in dims {
            if out.iter().any(|(m, _)| m == n) {
                return Err(LayoutError::DuplicateDim {
                    side: if what == "in" { "in" } else { "out" },
                    name: n.clone(),
                });
            }
            out.push((
                n.clone(),
                log2_exact(&format!("the size of {what}-dim '{n}'"), *s as i64)?,
            ));
        }
        Ok(out)
    }

    /// Flattens the in-dims and splits them again into `dims` (sizes must
    /// multiply to the same total).
    pub fn reshape_ins(&self, dims: &[(DimName, u64)]) -> Result<LinearLayout> {
        let dims = Self::sizes_to_log2("in", dims)?;
        let total: u32 = dims.iter().map(|(_, l)| l).sum();
        if total != self.total_in_bits() {
            return Err(LayoutError::mismatch(
                "reshape_ins",
                format!(
                    "the new in-dims have {} elements but the layout has {}",
                    1u128 << total,
                    self.total_in_size()
                ),
            ));
        }
        let mut flat = self.columns();
        let ins = dims
            .into_iter()
            .map(|(name, log2)| InDim {
                name,
                bases: flat.by_ref().take(log2 as usize).collect(),
            })
            .collect();
        Ok(LinearLayout {
            ins,
            outs: self.outs.clone(),
            surjective: self.surjective,
        })
    }

    /// Flattens the out-dims and splits them again into `dims` (sizes must
    /// multiply to the same total). With packed bases this only renames bits.
    pub fn reshape_outs(&self, dims: &[(DimName, u64)]) -> Result<LinearLayout> {
        let dims = Self::sizes_to_log2("out", dims)?;
        let total: u32 = dims.iter().map(|(_, l)| l).sum();
        if total != self.total_out_bits() {
            return Err(LayoutError::mismatch(
                "reshape_outs",
                format!(
                    "the new out-dims have {} elements but the layout has {}",
                    1u128 << total,
                    self.total_out_size()
                ),
            ));
        }
        Ok(LinearLayout {
            ins: self.ins.clone(),
            outs: dims
                .into_iter()
                .map(|(name, log2)| OutDim { name, log2 })
                .collect(),
            surjective: self.surjective,
        })
    }

    /// All in-dims as one, named after the first.
    pub fn flatten_ins(&self) -> Result<LinearLayout> {
        match self.ins.first() {
            None => Ok(self.clone()),
            Some(d) => self.reshape_ins(&[(d.name.clone(), self.total_in_size())]),
        }
    }

    /// All out-dims as one, named after the first.
    pub fn flatten_outs(&self) -> Result<LinearLayout> {
        match self.outs.first() {
            None => Ok(self.clone()),
            Some(d) => self.reshape_outs(&[(d.name.clone(), self.total_out_size())]),
        }
    }

    /// The restriction to some in-dims and projection onto some out-dims;
    /// dims keep their original order.
    /// The layout keeping only the bases of `in_dim` that `keep` accepts
    /// (given their index and coordinates); other in-dims and the out-dims
    /// are unchanged.
    pub fn retain_bases(
        &self,
        in_dim: &str,
        keep: impl Fn(usize, &[u32]) -> bool,
    ) -> Result<LinearLayout> {
        let bases = self
            .bases()
            .into_iter()
            .map(|(n, b)| {
                let filtered = n == in_dim;
                let kept = b
                    .into_iter()
                    .enumerate()
                    .filter(|(i, v)| !filtered || keep(*i, v))
                    .map(|(_, v)| v.into_iter().map(i64::from).collect())
                    .collect();
                (n, kept)
            })
            .collect();
        let outs = self
            .out_dims()
            .into_iter()
            .map(|(n, s)| (n, s as i64))
            .collect();
        LinearLayout::from_bases_with_sizes(bases, outs, false)
    }

    pub fn sublayout(&self, in_dims: &[DimName], out_dims: &[DimName]) -> Result<LinearLayout> {
        for n in in_dims {
            self.in_index(n)?;
        }
        for n in out_dims {
            self.out_index(n)?;
        }
        let offsets = self.out_offsets();
        let mut moves = Vec::new();
        let mut outs = Vec::new();
        let mut to = 0;
        for (o, &from) in self.outs.iter().zip(&offsets) {
            if out_dims.contains(&o.name) {
                moves.push((from, o.log2, to));
                to += o.log2;
                outs.push(o.clone());
            }
        }
        let ins = self
            .ins
            .iter()
            .filter(|d| in_dims.contains(&d.name))
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d
                    .bases
                    .iter()
                    .map(|&w| {
                        moves.iter().fold(0, |acc, &(from, width, to)| {
                            acc | ((w >> from) & low_mask(width)) << to
                        })
                    })
                    .collect(),
            })
            .collect();
        Self::from_parts(ins, outs)
    }

    /// Is the sublayout from `in_dims` to `out_dims` all zeros?
    pub fn sublayout_is_zero(&self, in_dims: &[DimName], out_dims: &[DimName]) -> Result<bool> {
        let sub = self.sublayout(in_dims, out_dims)?;
        Ok(sub.columns().all(|w| w == 0))
    }

    /// The in-dims of `self` followed by those of `other` (same out-dims).
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.outs != other.outs {
            return Err(LayoutError::mismatch(
                "concat_ins",
                "both layouts must have the same out-dims with the same sizes",
            ));
        }
        let mut ins = self.ins.clone();
        for d in &other.ins {
            if self.has_in_dim(&d.name) {
                return Err(LayoutError::DuplicateDim {
                    side: "in",
                    name: d.name.clone(),
                });
            }
            ins.push(d.clone());
        }
        Self::from_parts(ins, self.outs.clone())
    }

    /// The out-dims of `self` followed by those of `other` (same in-dims).
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        let same_ins = self.ins.len() == other.ins.len()
            && self
                .ins
                .iter()
                .zip(&other.ins)
                .all(|(x, y)| x.name == y.name && x.bases.len() == y.bases.len());
        if !same_ins {
            return Err(LayoutError::mismatch(
                "concat_outs",
                "both layouts must have the same in-dims with the same sizes",
            ));
        }
        if let Some(o) = other.outs.iter().find(|o| self.has_out_dim(&o.name)) {
            return Err(LayoutError::DuplicateDim {
                side: "out",
                name: o.name.clone(),
            });
        }
        let shift = self.total_out_bits();
        if shift + other.total_out_bits() > 64 {
            return Err(LayoutError::TooLarge {
                side: "output",
                bits: shift + other.total_out_bits(),
            });
        }
        let ins = self
            .ins
            .iter()
            .zip(&other.ins)
            .map(|(x, y)| InDim {
                name: x.name.clone(),
                bases: x
                    .bases
                    .iter()
                    .zip(&y.bases)
                    .map(|(&a, &b)| if shift >= 64 { a } else { a | b << shift })
                    .collect(),
            })
            .collect();
        let mut outs = self.outs.clone();
        outs.extend(other.outs.iter().cloned());
        Self::from_parts(ins, outs)
    }

    /// Changes the size of an in-dim: growing appends zero bases (the new
    /// inputs broadcast), shrinking drops the top bases.
    pub fn resize_in_dim(&self, in_dim: &str, new_size: u64) -> Result<LinearLayout> {
        let k = self.in_index(in_dim)?;
        let log2 = log2_exact(
            &format!("the new size of in-dim '{in_dim}'"),
            new_size as i64,
        )?;
        let mut ins = self.ins.clone();
        ins[k].bases.resize(log2 as usize, 0);
        Self::from_parts(ins, self.outs.clone())
    }

    /// Shrinks an out-dim: coordinates at or above the new size become 0.
    pub fn resize_out_dim(&self, out_dim: &str, new_size: u64) -> Result<LinearLayout> {
        let k = self.out_index(out_dim)?;
        let log2 = log2_exact(
            &format!("the new size of out-dim '{out_dim}'"),
            new_size as i64,
        )?;
        if log2 > self.outs[k].log2 {
            return Err(LayoutError::mismatch(
                "resize_out_dim",
                format!(
                    "out-dim '{out_dim}' can only shrink (from {} to {new_size})",
                    1u64 << self.outs[k].log2
                ),
            ));
        }
        let mut coords = self.bases();
        for (_, bases) in &mut coords {
            for basis in bases {
                if u64::from(basis[k]) >= new_size {
                    basis[k] = 0;
                }
            }
        }
        let mut out_dims = self.out_dims();
        out_dims[k].1 = new_size;
        Self::from_unpacked(coords, out_dims)
    }

    /// Builds from unpacked bases (as [`LinearLayout::bases`] returns them)
    /// and out-dim sizes; surjectivity is not required.
    pub fn from_unpacked(
        bases: UnpackedBases,
        out_dims: Vec<(DimName, u64)>,
    ) -> Result<LinearLayout> {
        Self::from_bases_with_sizes(
            bases
                .into_iter()
                .map(|(n, b)| {
                    (
                        n,
                        b.into_iter()
                            .map(|v| v.into_iter().map(i64::from).collect())
                            .collect(),
                    )
                })
                .collect(),
            out_dims.into_iter().map(|(n, s)| (n, s as i64)).collect(),
            false,
        )
    }

    /// Does the layout act as the identity on `dims` (as both in- and
    /// out-dims), without mixing them with the other dims? (Triton's
    /// `isTrivialOver`.)
    pub fn is_trivial_over(&self, dims: &[DimName]) -> Result<bool> {
        if dims
            .iter()
            .any(|d| !self.has_in_dim(d) && !self.has_out_dim(d))
        {
            return Ok(false);
        }
        // The square sublayout on `dims` must be the identity.
        for d in dims {
            if !self.has_in_dim(d) || !self.has_out_dim(d) {
                return Ok(false);
            }
            if self.in_dim_size(d) != self.out_dim_size(d) {
                return Ok(false);
            }
        }
        let square = self.sublayout(dims, dims)?;
        if square.columns().enumerate().any(|(i, w)| w != 1u64 << i) {
            return Ok(false);
        }
        let rest_in: Vec<DimName> = self
            .in_dim_names()
            .filter(|n| !dims.contains(n))
            .cloned()
            .collect();
        let rest_out: Vec<DimName> = self
            .out_dim_names()
            .filter(|n| !dims.contains(n))
            .cloned()
            .collect();
        Ok(self.sublayout_is_zero(&rest_in, dims)? && self.sublayout_is_zero(dims, &rest_out)?)
    }

    /// Removes dims on which the layout is trivial (Triton's `quotient`);
    /// `None` when it is not trivial over them.
    pub fn quotient(&self, dims: &[DimName]) -> Result<Option<LinearLayout>> {
        if !self.is_trivial_over(dims)? {
            return Ok(None);
        }
        let ins: Vec<DimName> = self
            .in_dim_names()
            .filter(|n| !dims.contains(n))
            .cloned()
            .collect();
        let outs: Vec<DimName> = self
            .out_dim_names()
            .filter(|n| !dims.contains(n))
            .cloned()
            .collect();
        self.sublayout(&ins, &outs).map(Some)
    }

    // ----- division --------------------------------------------------------

    /// A layout `C` with `self = divisor * C`, if one exists (Triton's
    /// `divideLeft(self, divisor)`). `C` keeps all of `self`'s dims.
    pub fn divide_left(&self, divisor: &LinearLayout) -> Option<LinearLayout> {
        self.divide(divisor, true)
    }

    /// A layout `C` with `self = C * divisor`, if one exists (Triton's
    /// `divideRight(self, divisor)`).
    pub fn divide_right(&self, divisor: &LinearLayout) -> Option<LinearLayout> {
        self.divide(divisor, false)
    }

    fn divide(&self, b: &LinearLayout, left: bool) -> Option<LinearLayout> {
        let a = self;
        if !b.in_dim_names().all(|n| a.has_in_dim(n))
            || !b.out_dim_names().all(|n| a.has_out_dim(n))
        {
            return None;
        }
        let mut c_outs = Vec::with_capacity(a.outs.len());
        for o in &a.outs {
            let lb = b.out_dim_size_log2(&o.name);
            if lb > o.log2 {
                return None;
            }
            c_outs.push(OutDim {
                name: o.name.clone(),
                log2: o.log2 - lb,
            });
        }
        let c_sizes: Vec<u32> = c_outs.iter().map(|o| o.log2).collect();
        let mut c_ins = Vec::with_capacity(a.ins.len());
        for d in &a.ins {
            let in_b = b.in_dim_size_log2(&d.name) as usize;
            if in_b > d.bases.len() {
                return None;
            }
            let in_c = d.bases.len() - in_b;
            let coords: Vec<Vec<u32>> = d.bases.iter().map(|&w| a.unpack(w)).collect();
            let b_coord = |i: usize, out: &DimName| -> u32 {
                b.ins
                    .iter()
                    .find(|bd| bd.name == d.name)
                    .and_then(|bd| {
                        let k = b.outs.iter().position(|o| o.name == *out)?;
                        Some(b.unpack(bd.bases[i])[k])
                    })
                    .unwrap_or(0)
            };
            let mut bases = Vec::with_capacity(in_c);
            // Left: B's bases come first; right: C's bases come first.
            let (b_range, c_range) = if left {
                (0..in_b, in_b..d.bases.len())
            } else {
                (in_c..d.bases.len(), 0..in_c)
            };
            for (j, i) in b_range.enumerate() {
                for (k, o) in a.outs.iter().enumerate() {
                    let v = coords[i][k];
                    let expected = b_coord(j, &o.name);
                    let recovered = if left {
                        v
                    } else {
                        // A = C * B: B's values sit above C's bits.
                        if v & ((1 << c_sizes[k]) - 1) != 0 {
                            return None;
                        }
                        v >> c_sizes[k]
                    };
                    if recovered != expected {
                        return None;
                    }
                }
            }
            for i in c_range {
                let mut word = 0u64;
                let mut offset = 0;
                for (k, o) in a.outs.iter().enumerate() {
                    let v = coords[i][k];
                    let part = if left {
                        let lb = b.out_dim_size_log2(&o.name);
                        if v & ((1u32 << lb) - 1) != 0 {
                            return None;
                        }
                        v >> lb
                    } else {
                        if (v as u64) >> c_sizes[k] != 0 {
                            return None;
                        }
                        v
                    };
                    word |= (part as u64) << offset;
                    offset += c_sizes[k];
                }
                bases.push(word);
            }
            c_ins.push(InDim {
                name: d.name.clone(),
                bases,
            });
        }
        let c = Self::from_parts(c_ins, c_outs).ok()?;
        // The construction guarantees the identity; checking it keeps any
        // dim-order subtlety from producing a wrong quotient.
        let rebuilt = if left { b.product(&c) } else { c.product(b) };
        (rebuilt.ok()? == *a).then_some(c)
    }

    // ----- analysis ------------------------------------------------------

    /// For each in-dim, the mask of its bits that are free variables: bits
    /// whose basis is a combination of earlier bases, so flipping them does
    /// not change the output beyond what earlier bits can (Triton's
    /// `getFreeVariableMasks`).
    pub fn free_variable_masks(&self) -> Vec<(DimName, u64)> {
        let mut echelon = Echelon::new();
        self.ins
            .iter()
            .map(|d| {
                let mut mask = 0u64;
                for (i, &w) in d.bases.iter().enumerate() {
                    if !echelon.insert(w) {
                        mask |= 1 << i;
                    }
                }
                (d.name.clone(), mask)
            })
            .collect()
    }

    /// How many consecutive values of the first in-dim map to consecutive
    /// values of the first out-dim, with nothing else touching those low bits
    /// (Triton's `getNumConsecutiveInOut`; used for vector widths).
    pub fn num_consecutive_in_out(&self) -> u64 {
        let (Some(first), Some(out0)) = (self.ins.first(), self.outs.first()) else {
            return 1;
        };
        let mask0 = low_mask(out0.log2);
        let mut consec = 0;
        while consec < first.bases.len() && first.bases[consec] == 1u64 << consec && consec < 64 {
            consec += 1;
        }
        let mut other = 0u64;
        for (k, d) in self.ins.iter().enumerate() {
            for (i, &w) in d.bases.iter().enumerate() {
                if k != 0 || i >= consec {
                    other |= w & mask0;
                }
            }
        }
        let trailing = if other != 0 {
            other.trailing_zeros() as usize
        } else {
            31
        };
        1u64 << consec.min(trailing)
    }

    /// Equality of bases and out-dim names, ignoring out-dim sizes.
    pub fn equal_ignoring_out_dim_sizes(&self, other: &LinearLayout) -> bool {
        self.outs.len() == other.outs.len()
            && self
                .outs
                .iter()
                .zip(&other.outs)
                .all(|(x, y)| x.name == y.name)
            && self.bases() == other.bases()
    }
}

/// `dim0`, `dim1`, ...: Triton's names for tensor dims.
pub fn standard_out_name(dim: usize) -> DimName {
    const NAMES: [&str; 8] = [
        "dim0", "dim1", "dim2", "dim3", "dim4", "dim5", "dim6", "dim7",
    ];
    NAMES
        .get(dim)
        .map(|&s| DimName::new_static(s))
        .unwrap_or_else(|| DimName::from(format!("dim{dim}")))
}

impl fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Prints like Triton's `toString`: one line per basis, then the out-dims.
impl fmt::Display for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.ins {
            if d.bases.is_empty() {
                writeln!(f, " - {} is a size 1 dimension", d.name)?;
                continue;
            }
            for (i, &w) in d.bases.iter().enumerate() {
                let coords = self.unpack(w);
                let lead = if i == 0 { " - " } else { "   " };
                writeln!(
                    f,
                    "{lead}{}={} -> ({})",
                    d.name,
                    1u64 << i,
                    coords
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
            }
        }
        write!(
            f,
            "where out dims are: [{}]",
            self.outs
                .iter()
                .map(|o| format!("{} (size {})", o.name, 1u64 << o.log2))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ll(bases: Vec<(&str, Vec<Vec<i64>>)>, outs: Vec<(&str, i64)>) -> LinearLayout {
        LinearLayout::from_bases_with_sizes(
            bases,
            outs.into_iter()
                .map(|(n, s)| (DimName::from(n), s))
                .collect(),
            false,
        )
        .unwrap()
    }

    #[test]
    fn supremum_merges_orders_and_rejects_conflicts() {
        let n = |v: &[&str]| v.iter().map(|s| DimName::from(*s)).collect::<Vec<_>>();
        assert_eq!(
            supremum(&n(&["a", "b"]), &n(&["a", "c"])),
            Some(n(&["a", "b", "c"]))
        );
        assert_eq!(
            supremum(&n(&["a", "b"]), &n(&["b", "c"])),
            Some(n(&["a", "b", "c"]))
        );
        // Triton's walk tolerates conflicting orders and follows the first list.
        assert_eq!(
            supremum(&n(&["a", "b"]), &n(&["b", "a"])),
            Some(n(&["a", "b"]))
        );
        assert_eq!(supremum(&n(&["x"]), &n(&[])), Some(n(&["x"])));
    }

    #[test]
    fn seed_basis_example_applies_to_1_3() {
        // Seed 000: L(0,1)=(0,1), L(0,2)=(0,2), L(1,0)=(1,1), L(2,0)=(2,2).
        let l = ll(
            vec![
                ("t", vec![vec![1, 1], vec![2, 2]]),
                ("w", vec![vec![0, 1], vec![0, 2]]),
            ],
            vec![("x", 4), ("y", 4)],
        );
        let out = l.apply(&[("t", 1), ("w", 3)]).unwrap();
        assert_eq!(out, vec![(DimName::from("x"), 1), (DimName::from("y"), 2)]);
    }

    fn names(v: &[&str]) -> Vec<DimName> {
        v.iter().map(|s| DimName::from(*s)).collect()
    }

    /// register: [[0,1],[1,0]], lane: [[0,2],[2,0]] onto (dim0: 4, dim1: 4).
    fn two_by_two() -> LinearLayout {
        ll(
            vec![
                ("register", vec![vec![0, 1], vec![1, 0]]),
                ("lane", vec![vec![0, 2], vec![2, 0]]),
            ],
            vec![("dim0", 4), ("dim1", 4)],
        )
    }

    #[test]
    fn transposes_reorder_dims_without_changing_the_map() {
        let l = two_by_two();
        let t = l.transpose_outs(&names(&["dim1", "dim0"])).unwrap();
        assert_eq!(t.bases()[0].1, vec![vec![1, 0], vec![0, 1]]);
        assert_eq!(
            t.out_dims(),
            vec![(DimName::from("dim1"), 4), (DimName::from("dim0"), 4)]
        );
        let t = l.transpose_ins(&names(&["lane", "register"])).unwrap();
        assert_eq!(t.bases()[0].0, "lane");
        for (r, lane) in [(1, 2), (3, 3), (2, 1)] {
            assert_eq!(
                t.apply(&[("lane", lane), ("register", r)]).unwrap(),
                l.apply(&[("register", r), ("lane", lane)]).unwrap()
            );
        }
        assert!(l.transpose_outs(&names(&["dim0"])).is_err());
    }

    #[test]
    fn sublayout_projects_and_restricts() {
        let l = two_by_two();
        let s = l.sublayout(&names(&["lane"]), &names(&["dim1"])).unwrap();
        assert_eq!(
            s.bases(),
            vec![(DimName::from("lane"), vec![vec![2], vec![0]])]
        );
        assert!(!s.is_surjective());
        assert!(l.sublayout(&names(&["warp"]), &names(&["dim1"])).is_err());
    }

    #[test]
    fn concat_joins_ins_or_outs() {
        let a = LinearLayout::identity_1d(4, "register", "dim0").unwrap();
        let b = LinearLayout::zeros_1d_sized(2, "lane", "dim0", 4).unwrap();
        let c = a.concat_ins(&b).unwrap();
        assert_eq!(
            c.bases(),
            vec![
                (DimName::from("register"), vec![vec![1], vec![2]]),
                (DimName::from("lane"), vec![vec![0]])
            ]
        );
        let d = LinearLayout::identity_1d(4, "register", "dim1").unwrap();
        let e = a.concat_outs(&d).unwrap();
        assert_eq!(e.bases()[0].1, vec![vec![1, 1], vec![2, 2]]);
        assert!(a.concat_ins(&a).is_err());
    }

    #[test]
    fn resizing_an_in_dim_broadcasts_and_an_out_dim_clips() {
        let l = LinearLayout::identity_1d(4, "i", "o").unwrap();
        let grown = l.resize_in_dim("i", 16).unwrap();
        assert_eq!(grown.bases()[0].1, vec![vec![1], vec![2], vec![0], vec![0]]);
        let shrunk = grown.resize_in_dim("i", 2).unwrap();
        assert_eq!(shrunk.bases()[0].1, vec![vec![1]]);
        let clipped = l.resize_out_dim("o", 2).unwrap();
        assert_eq!(clipped.bases()[0].1, vec![vec![1], vec![0]]);
        assert_eq!(clipped.out_dim_size("o"), 2);
        assert!(l.resize_out_dim("o", 8).is_err());
    }

    #[test]
    fn quotient_removes_dims_the_layout_maps_to_themselves() {
        // register -> dim0 and block -> block as the identity.
        let l = LinearLayout::identity_1d(4, "register", "dim0")
            .unwrap()
            .product(&LinearLayout::identity_1d(2, "block", "block").unwrap())
            .unwrap();
        let q = l.quotient(&names(&["block"])).unwrap().unwrap();
        assert_eq!(q, LinearLayout::identity_1d(4, "register", "dim0").unwrap());
        // Mixing block into dim0 makes the quotient impossible.
        let mixed = ll(
            vec![
                ("register", vec![vec![1, 0], vec![2, 0]]),
                ("block", vec![vec![1, 1]]),
            ],
            vec![("dim0", 4), ("block", 2)],
        );
        assert_eq!(mixed.quotient(&names(&["block"])).unwrap(), None);
    }

    #[test]
    fn apply_rejects_values_outside_the_dim() {
        let l = LinearLayout::identity_1d(4, "i", "o").unwrap();
        assert!(matches!(
            l.apply(&[("i", 4)]),
            Err(LayoutError::Invalid { .. })
        ));
        assert!(matches!(
            l.apply(&[("j", 0)]),
            Err(LayoutError::UnknownDim { .. })
        ));
    }
}
