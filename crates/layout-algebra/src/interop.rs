//! Conversions between the layout families.
//!
//! A CuTe layout or XLA tiling is GF(2)-linear when every size is a power of
//! two and no two index bits land on a shared offset bit (then the sum of
//! offsets is their XOR). Such layouts convert exactly to a [`LinearLayout`];
//! every CuTe swizzle is linear too. A linear layout whose bases are distinct
//! single bits converts back to CuTe. Each impossible conversion says why.

use crate::cute::{IntTuple, Layout, SwizzledLayout};
use crate::error::{LayoutError, Result};
use crate::linear::{DimName, LinearLayout};
use crate::xla::XlaShape;

/// How the index of a CuTe layout becomes in-dims of a linear layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CuteInDims {
    /// One in-dim for the whole 1-D index.
    Flat(DimName),
    /// One in-dim per top-level mode (e.g. `lane`, `register` of a TV layout).
    PerMode(Vec<DimName>),
}

fn not_linear(what: impl Into<crate::Subject>, why: impl Into<String>) -> LayoutError {
    LayoutError::invalid(what, why)
}

fn log2_pow2(n: i64) -> Option<u32> {
    (n > 0 && n & (n - 1) == 0).then(|| n.trailing_zeros())
}

/// A CuTe layout as a linear layout from its index (or modes) to `offset`.
pub fn cute_to_linear(layout: &Layout, in_dims: &CuteInDims) -> Result<LinearLayout> {
    let what = || format!("converting {layout} to a linear layout");
    let modes: Vec<(DimName, Layout)> = match in_dims {
        CuteInDims::Flat(n) => vec![(n.clone(), layout.clone())],
        CuteInDims::PerMode(names) => {
            if names.len() != layout.rank() {
                return Err(LayoutError::invalid(
                    what(),
                    format!("{} names for {} modes", names.len(), layout.rank()),
                ));
            }
            names
                .iter()
                .cloned()
                .zip((0..layout.rank()).map(|i| layout.mode(i)))
                .collect()
        }
    };
    let mut bases = Vec::with_capacity(modes.len());
    let mut used = 0i64;
    for (name, mode) in modes {
        let mut b = Vec::new();
        for (s, d) in mode.leaves() {
            let bits = log2_pow2(s).ok_or_else(|| {
                not_linear(
                    what(),
                    format!(
                        "a mode of size {s} is not a power of two, and a linear layout's sizes are; keep this layout in CuTe notation, whose algebra handles any size"
                    ),
                )
            })?;
            if d < 0 {
                return Err(not_linear(
                    what(),
                    format!("the negative stride {d} is not a bit map"),
                ));
            }
            if d != 0 && log2_pow2(d).is_none() {
                return Err(not_linear(
                    what(),
                    format!("the stride {d} is not a power of two"),
                ));
            }
            for k in 0..bits {
                let v = d << k;
                if v != 0 {
                    if used & v != 0 {
                        return Err(not_linear(
                            what(),
                            format!(
                                "two index bits both reach offset {v}: the offsets add with carries, which XOR cannot express"
                            ),
                        ));
                    }
                    used |= v;
                }
                b.push(vec![v]);
            }
        }
        bases.push((name, b));
    }
    let size = (layout.cosize() as u64).next_power_of_two() as i64;
    LinearLayout::from_bases_with_sizes(bases, vec![(DimName::from("offset"), size)], false)
}

/// A swizzled CuTe layout (`Sw<B,M,S> o 0 o L`): the layout's bit map
/// followed by the swizzle's XOR.
pub fn swizzled_to_linear(layout: &SwizzledLayout, in_dims: &CuteInDims) -> Result<LinearLayout> {
    if layout.offset != 0 {
        return Err(not_linear(
            format!("converting {layout} to a linear layout"),
            format!(
                "the offset {} is added before the swizzle, which makes the map affine, not linear",
                layout.offset
            ),
        ));
    }
    let inner = cute_to_linear(&layout.layout, in_dims)?;
    let sw = layout.swizzle;
    let reach = 1i64 << (sw.base as i64 + sw.bits as i64 + sw.shift.unsigned_abs() as i64);
    let size = (inner.out_dim_size("offset") as i64).max(reach);
    let bits = size.trailing_zeros();
    let swizzle_ll = LinearLayout::from_bases_with_sizes(
        vec![(
            "offset",
            (0..bits).map(|k| vec![sw.apply(1 << k)]).collect(),
        )],
        vec![(DimName::from("offset"), size)],
        true,
    )?;
    inner.resize_out_offset(size)?.compose(&swizzle_ll)
}

impl LinearLayout {
    /// Grows the `offset` out-dim (a no-op when already that large).
    fn resize_out_offset(&self, size: i64) -> Result<LinearLayout> {
        let have = self.out_dim_size("offset") as i64;
        if have == size {
            return Ok(self.clone());
        }
        let bases = self
            .bases()
            .into_iter()
            .map(|(n, b)| {
                (
                    n,
                    b.into_iter()
                        .map(|v| v.into_iter().map(i64::from).collect())
                        .collect(),
                )
            })
            .collect();
        LinearLayout::from_bases_with_sizes(bases, vec![(DimName::from("offset"), size)], false)
    }
}

/// An XLA tiling of a power-of-two array as a linear layout from the logical
/// dims (`dim0`, `dim1`, ...) to the physical element `offset`.
pub fn xla_to_linear(shape: &XlaShape) -> Result<LinearLayout> {
    let what = || format!("converting {shape} to a linear layout");
    for (i, &d) in shape.dims.iter().enumerate() {
        if log2_pow2(d).is_none() {
            return Err(not_linear(
                what(),
                format!(
                    "dim {i} has size {d}, not a power of two, and a linear layout's sizes are; the XLA shape itself handles any size"
                ),
            ));
        }
    }
    if let Some(l) = &shape.layout {
        for tile in &l.tiles {
            for t in tile {
                if let crate::xla::TileDim::Size(t) = t
                    && log2_pow2(*t).is_none()
                {
                    return Err(not_linear(
                        what(),
                        format!("tile size {t} is not a power of two"),
                    ));
                }
            }
        }
    }
    let padded = shape.padded_elements();
    if log2_pow2(padded).is_none() {
        return Err(not_linear(
            what(),
            format!("the padded buffer has {padded} elements, not a power of two"),
        ));
    }
    let rank = shape.dims.len();
    let mut bases = Vec::with_capacity(rank);
    for (i, &d) in shape.dims.iter().enumerate() {
        let mut b = Vec::new();
        for k in 0..d.trailing_zeros() {
            let mut e = vec![0i64; rank];
            e[i] = 1 << k;
            b.push(vec![shape.offset(&e)?]);
        }
        bases.push((crate::linear::standard_out_name(i), b));
    }
    let ll =
        LinearLayout::from_bases_with_sizes(bases, vec![(DimName::from("offset"), padded)], false)?;
    // With power-of-two sizes the tiling permutes bits; check it anyway on
    // small arrays, so a wrong conversion can never pass silently.
    if shape.logical_elements() <= 1 << 16 {
        let offsets = shape.offsets();
        for (flat, &o) in offsets.iter().enumerate() {
            // Row-major logical index -> per-dim coordinates -> flat LL input.
            let mut rest = flat as u64;
            let mut input = 0u64;
            let mut shift_total: Vec<u32> = Vec::with_capacity(rank);
            let mut acc = 0;
            for &d in &shape.dims {
                shift_total.push(acc);
                acc += d.trailing_zeros();
            }
            for i in (0..rank).rev() {
                let d = shape.dims[i] as u64;
                input |= (rest % d) << shift_total[i];
                rest /= d;
            }
            if ll.apply_flat(input) as i64 != o {
                return Err(not_linear(
                    what(),
                    format!("element {flat} lands at {o}, which no bit map reproduces"),
                ));
            }
        }
    }
    Ok(ll)
}

/// A linear layout back to CuTe, when every basis is a distinct single bit
/// (or zero): one mode per in-dim, out-dims flattened into one offset.
pub fn linear_to_cute(layout: &LinearLayout) -> Result<Layout> {
    let what = || "converting a linear layout to CuTe".to_string();
    let flat = layout.flatten_outs()?;
    let mut modes = Vec::new();
    let mut used = 0u64;
    for (name, bases) in flat.bases() {
        let mut leaves = Vec::new();
        for (k, b) in bases.iter().enumerate() {
            let v = b.first().copied().unwrap_or(0) as u64;
            if v.count_ones() > 1 {
                return Err(not_linear(
                    what(),
                    format!(
                        "{name}={} maps to offset {v}, which has more than one bit: CuTe strides add, they do not XOR",
                        1u64 << k
                    ),
                ));
            }
            if v != 0 && used & v != 0 {
                return Err(not_linear(
                    what(),
                    format!(
                        "{name}={} maps to offset {v}, which another basis also reaches",
                        1u64 << k
                    ),
                ));
            }
            used |= v;
            leaves.push(Layout::new(IntTuple::Int(2), IntTuple::Int(v as i64))?);
        }
        let mode = if leaves.is_empty() {
            Layout::new(IntTuple::Int(1), IntTuple::Int(0))?
        } else {
            Layout::concat(leaves).coalesce()
        };
        modes.push(mode);
    }
    Ok(match modes.len() {
        0 => Layout::new(IntTuple::Int(1), IntTuple::Int(0))?,
        1 => modes.pop().unwrap(),
        _ => Layout::concat(modes),
    })
}
