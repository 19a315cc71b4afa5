//! Triton's layout encodings as linear layouts (seeds 000 and 002; Triton's
//! `LinearLayoutConversions.cpp`).
//!
//! Each encoding describes one CTA tile (`register`, `lane`, `warp` or
//! `offset` onto `dim0..`); [`combine_cta_cga_with_shape`] places the tiles of
//! the CTAs of a cluster (`block`) and fits the result to the tensor shape:
//! a tensor smaller than the tile *broadcasts* (several hardware locations
//! hold one element), a larger one *wraps* (each thread holds more
//! registers).
//!
//! Canonical form: where Triton 3.9 drops register bases that broadcast (a
//! tensor smaller than the layout), so do we; Triton's older C++ kept them as
//! zero bases. [`strip_zero_register_bases`] converts between the two.

pub mod coalesce;
pub mod convert_layout;
pub mod keys;
pub mod reduce;

// One module per encoding: its parameters, validation, linear layout and
// the attribute text it prints.
mod amd_mfma;
mod amd_rotating_shared;
mod amd_wmma;
mod blocked;
mod cga;
mod dot_operand;
mod key_source;
mod linear_encoding;
mod nvidia_mma;
mod nvmma_shared;
mod padded_shared;
mod partitioned_shared;
mod shared_linear;
mod slice;
mod swizzled_shared;

pub use amd_mfma::AmdMfma;
pub use amd_rotating_shared::AmdRotatingShared;
pub use amd_wmma::{AmdWmma, WmmaCtaTiles};
pub use blocked::Blocked;
pub use cga::CgaLayout;
pub use dot_operand::DotOperand;
pub use key_source::{KeyFault, KeySource};
pub use linear_encoding::LinearEncoding;
pub use nvidia_mma::NvidiaMma;
pub use nvmma_shared::NvmmaShared;
pub use padded_shared::{PaddedLinear, PaddedShared};
pub use partitioned_shared::PartitionedShared;
pub use shared_linear::SharedLinear;
pub use slice::Slice;
pub use swizzled_shared::SwizzledShared;

use crate::error::{InvalidKind, LayoutError, Result, Subject};
use crate::linear::{DimName, LinearLayout, standard_out_name};

const REGISTER: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";
const BLOCK: &str = "block";
const OFFSET: &str = "offset";

fn is_pow2(n: u64) -> bool {
    n != 0 && n & (n - 1) == 0
}

fn require_pow2(what: impl FnOnce() -> Subject, values: &[u32]) -> Result<()> {
    for &v in values {
        if !is_pow2(v as u64) {
            return Err(LayoutError::NotPowerOfTwo {
                what: what(),
                value: v as i64,
            });
        }
    }
    Ok(())
}

fn require_rank(what: impl Into<Subject>, got: usize, rank: usize) -> Result<()> {
    require_length(InvalidKind::Rank, what, got, rank)
}

/// [`require_rank`] for a CTA placement parameter (`CTASplitNum`).
fn require_cta_rank(what: impl Into<Subject>, got: usize, rank: usize) -> Result<()> {
    require_length(InvalidKind::CtaPlacement, what, got, rank)
}

fn require_length(
    kind: InvalidKind,
    what: impl Into<Subject>,
    got: usize,
    rank: usize,
) -> Result<()> {
    if got != rank {
        return Err(LayoutError::invalid_of(
            kind,
            what,
            format!("has {got} entries but the layout has rank {rank}"),
        ));
    }
    Ok(())
}

fn require_permutation(what: Subject, order: &[usize]) -> Result<()> {
    if order.is_empty() {
        return Err(LayoutError::invalid_of(
            InvalidKind::Order,
            what,
            "is empty; a layout has at least one dim",
        ));
    }
    let mut seen = vec![false; order.len()];
    for &d in order {
        if d >= order.len() || std::mem::replace(&mut seen[d], true) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Order,
                what,
                format!("{order:?} is not a permutation of 0..{}", order.len()),
            ));
        }
    }
    Ok(())
}

/// After dropping zero (broadcast) bases, the bases must be distinct unit
/// vectors: each moves along one dim by a power of two (a permutation
/// matrix), as Triton requires of `CGALayout` and `#ttg.linear`.
fn require_permutation_bases<'a>(
    kind: InvalidKind,
    what: Subject,
    bases: impl IntoIterator<Item = &'a Vec<u32>>,
) -> Result<()> {
    let mut seen: Vec<(usize, u32)> = Vec::new();
    for b in bases {
        let nonzero: Vec<(usize, u32)> = b
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, v)| v != 0)
            .collect();
        match nonzero.as_slice() {
            [] => {}
            [(d, v)] if is_pow2(*v as u64) => {
                if seen.contains(&(*d, *v)) {
                    return Err(LayoutError::invalid_of(
                        kind,
                        what,
                        format!(
                            "the basis {b:?} appears twice; after removing zero bases the bases must form a permutation matrix"
                        ),
                    ));
                }
                seen.push((*d, *v));
            }
            _ => {
                return Err(LayoutError::invalid_of(
                    kind,
                    what,
                    format!(
                        "the basis {b:?} moves in more than one dim or by a non-power of two; each basis must be a single power of two"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Product of layout parameters; absurd values saturate instead of wrapping.
fn saturating_product(values: &[u32]) -> u32 {
    values.iter().fold(1u32, |acc, &v| acc.saturating_mul(v))
}

fn names(rank: usize) -> Vec<DimName> {
    (0..rank).map(standard_out_name).collect()
}

/// `getMatrixOrder`: `[rank-1, ..., 0]`, with the two minor dims swapped
/// when not row-major.
pub fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rank).rev().collect();
    if !row_major && rank >= 2 {
        order.swap(0, 1);
    }
    order
}

/// `getOrderForDotOperand`: the order of operand `op_idx` (0 = A `[M, K]`,
/// 1 = B `[K, N]`), K-contiguous or not.
pub fn dot_operand_order(op_idx: u32, rank: usize, k_contig: bool) -> Vec<usize> {
    matrix_order(rank, (op_idx != 0) != k_contig)
}

/// `identityND`-style helper: identity of `in_dim` onto the standard dims
/// following `order`.
fn identity_nd(in_dim: &str, shape: &[u32], order: &[usize]) -> Result<LinearLayout> {
    LinearLayout::identity_standard_nd(in_dim, shape, order)
}

fn identity(size: u32, in_dim: &str, out: &DimName) -> Result<LinearLayout> {
    LinearLayout::identity_1d(size, in_dim, out.clone())
}

fn zeros(size: u32, in_dim: &str, out: &DimName) -> Result<LinearLayout> {
    LinearLayout::zeros_1d(size, in_dim, out.clone())
}

fn layout_from(bases: Vec<(&str, Vec<Vec<i64>>)>, outs: Vec<DimName>) -> Result<LinearLayout> {
    LinearLayout::from_bases(bases, outs)
}

// ----- CTA placement -------------------------------------------------------

/// Grows the layout with identity bases of its first in-dim (`register` or
/// `offset`) along each out-dim, in out-dim order, until it covers `shape`
/// (Triton's `ensureLayoutNotSmallerThan`).
fn ensure_not_smaller(
    layout: LinearLayout,
    order: &[DimName],
    shape: &[u64],
) -> Result<LinearLayout> {
    let Some(first) = layout.in_dim_names().next().cloned() else {
        return Ok(layout);
    };
    let mut ret = layout;
    for (name, &desired) in order.iter().zip(shape) {
        let actual = ret.out_dim_size(name);
        if desired > actual {
            ret = ret.product(&LinearLayout::identity_1d(
                (desired / actual) as u32,
                first.clone(),
                name.clone(),
            )?)?;
        }
    }
    Ok(ret)
}

/// Shrinks each out-dim to `shape` by removing its largest values: bases
/// that would leave the tensor now repeat it (broadcast). Register bases
/// that broadcast are dropped, the others become zero (Triton's
/// `ensureLayoutNotLargerThan` with `broadcastRegisters = false`).
fn ensure_not_larger(
    layout: &LinearLayout,
    shape: &[(DimName, u64)],
    drop_registers: bool,
) -> Result<LinearLayout> {
    let mut bases = layout.bases();
    let out_dims = layout.out_dims();
    let mut dropped_registers: Vec<usize> = Vec::new();
    for (k, (name, actual)) in out_dims.iter().enumerate() {
        let desired = shape
            .iter()
            .find(|(n, _)| n == name)
            .map_or(*actual, |(_, s)| *s);
        let mut actual = *actual;
        if actual <= desired {
            continue;
        }
        // (in-dim index, basis index, value), largest values first; ties keep
        // their order (as Triton's sort does for these short lists).
        let mut candidates: Vec<(usize, usize, u32)> = Vec::new();
        for (d, (_, in_bases)) in bases.iter().enumerate() {
            for (i, b) in in_bases.iter().enumerate() {
                if b[k] != 0 {
                    if !is_pow2(b[k] as u64) {
                        return Err(LayoutError::invalid(
                            "fitting the layout to the tensor",
                            format!(
                                "basis {i} of '{}' has {} in out-dim '{name}', not a power of two",
                                bases[d].0, b[k]
                            ),
                        ));
                    }
                    candidates.push((d, i, b[k]));
                }
            }
        }
        candidates.sort_by_key(|c| std::cmp::Reverse(c.2));
        for (d, i, _) in candidates {
            if actual <= desired {
                break;
            }
            if drop_registers && bases[d].0 == REGISTER {
                if !dropped_registers.contains(&i) {
                    dropped_registers.push(i);
                }
            } else {
                bases[d].1[i][k] = 0;
            }
            actual >>= 1;
        }
    }
    if !dropped_registers.is_empty() {
        for (name, in_bases) in &mut bases {
            if name == REGISTER {
                let kept = std::mem::take(in_bases)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !dropped_registers.contains(i))
                    .map(|(_, b)| b)
                    .collect();
                *in_bases = kept;
            }
        }
    }
    // Sizes are re-inferred from the remaining values, as in Triton.
    LinearLayout::from_bases(
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
        out_dims.into_iter().map(|(n, _)| n).collect(),
    )
}

/// Places a CTA's layout into the cluster and fits it to `shape` (Triton's
/// `combineCtaCgaWithShape`). The CTA layout's out-dim order decides which
/// dim repeats first when the tensor is larger than the tile.
pub fn combine_cta_cga_with_shape(
    cta: LinearLayout,
    cga: &CgaLayout,
    shape: &[u32],
) -> Result<LinearLayout> {
    let rank = shape.len();
    if cta.num_out_dims() != rank || cga.rank() != rank {
        return Err(LayoutError::invalid_of(
            InvalidKind::Rank,
            "layout",
            format!(
                "has rank {} (CTA placement rank {}) but the tensor has rank {rank}",
                cta.num_out_dims(),
                cga.rank()
            ),
        ));
    }
    require_pow2(
        || format!("every dim of the tensor shape {shape:?}").into(),
        shape,
    )?;
    let std_names = names(rank);
    let labeled: Vec<(DimName, u64)> = std_names
        .iter()
        .cloned()
        .zip(shape.iter().map(|&s| s as u64))
        .collect();
    let cta_order: Vec<DimName> = cta.out_dim_names().cloned().collect();
    let cga_ll =
        ensure_not_larger(&cga.to_linear()?, &labeled, false)?.transpose_outs(&cta_order)?;
    let cta_shape: Vec<(DimName, u64)> = cta_order
        .iter()
        .map(|n| {
            let s = labeled.iter().find(|(m, _)| m == n).map_or(1, |(_, s)| *s);
            (n.clone(), (s / cga_ll.out_dim_size(n)).max(1))
        })
        .collect();
    let sizes: Vec<u64> = cta_shape.iter().map(|(_, s)| *s).collect();
    let cta = ensure_not_smaller(cta, &cta_order, &sizes)?;
    let cta = ensure_not_larger(&cta, &cta_shape, true)?;
    let ret = cta.product(&cga_ll)?.transpose_outs(&std_names)?;
    for (n, s) in &labeled {
        if ret.out_dim_size(n) != *s {
            return Err(LayoutError::invalid(
                "layout",
                format!(
                    "covers {} elements of {n} but the tensor has {s}",
                    ret.out_dim_size(n)
                ),
            ));
        }
    }
    Ok(ret)
}

/// Removes all-zero `register` bases (Triton's older C++ kept them when a
/// tensor is smaller than its layout).
pub fn strip_zero_register_bases(layout: &LinearLayout) -> Result<LinearLayout> {
    layout.retain_bases(REGISTER, |_, b| b.iter().any(|&x| x != 0))
}

// ----- encodings -------------------------------------------------------------

/// `slice`-free helper: a layout of `register` and `warp` onto tile units.
fn tile_units(
    tiles: &WmmaCtaTiles,
    rank: usize,
    keep: impl Fn(usize) -> bool,
) -> Result<LinearLayout> {
    let conv = |b: &Vec<Vec<u32>>, drop_zero: bool| -> Result<Vec<Vec<i64>>> {
        let mut out = Vec::new();
        for v in b {
            if v.len() != rank {
                return Err(LayoutError::invalid_of(
                    InvalidKind::Rank,
                    Subject::Param("ctaLayout"),
                    format!("basis {v:?} does not have rank {rank}"),
                ));
            }
            let kept: Vec<i64> = v
                .iter()
                .enumerate()
                .map(|(d, &x)| if keep(d) { x as i64 } else { 0 })
                .collect();
            if drop_zero && kept.iter().all(|&x| x == 0) {
                continue;
            }
            out.push(kept);
        }
        Ok(out)
    };
    LinearLayout::from_bases_with_sizes(
        vec![
            (REGISTER, conv(&tiles.register, true)?),
            (WARP, conv(&tiles.warp, false)?),
        ],
        {
            let mut sizes = vec![1i64; rank];
            for v in tiles.register.iter().chain(&tiles.warp) {
                for (d, &x) in v.iter().enumerate() {
                    if keep(d) && x > 0 {
                        sizes[d] = sizes[d].max(((x as u64 + 1).next_power_of_two()) as i64);
                    }
                }
            }
            names(rank).into_iter().zip(sizes).collect()
        },
        false,
    )
}

/// What an encoding must agree with: the kernel's launch shape (Triton's
/// `ttg.threads-per-warp`, `ttg.num-warps`, `ttg.num-ctas`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub threads_per_warp: u32,
    pub num_warps: u32,
    pub num_ctas: u32,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            threads_per_warp: 32,
            num_warps: 4,
            num_ctas: 1,
        }
    }
}

/// A Triton layout encoding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Blocked(Blocked),
    SwizzledShared(SwizzledShared),
    NvmmaShared(NvmmaShared),
    NvidiaMma(NvidiaMma),
    AmdMfma(AmdMfma),
    AmdWmma(AmdWmma),
    Slice(Box<Slice>),
    DotOperand(Box<DotOperand>),
    Linear(LinearEncoding),
    AmdRotatingShared(AmdRotatingShared),
    SharedLinear(SharedLinear),
    PaddedShared(PaddedShared),
    PartitionedShared(Box<PartitionedShared>),
}

impl Encoding {
    /// The checks of the encoding's parameters that need no tensor shape
    /// (Triton's attribute verifiers): powers of two, warp sizes, ranks.
    pub fn validate_params(&self) -> Result<()> {
        match self {
            Encoding::SwizzledShared(s) => s.validate(),
            Encoding::NvmmaShared(s) => s.validate(),
            Encoding::NvidiaMma(m) => m.validate(),
            Encoding::AmdMfma(m) => m.validate(),
            Encoding::AmdWmma(m) => m.validate(),
            Encoding::Blocked(b) => b.validate(),
            Encoding::DotOperand(d) => d.validate(),
            Encoding::AmdRotatingShared(s) => s.validate(),
            Encoding::SharedLinear(s) => s.layout().map(|_| ()),
            Encoding::PaddedShared(s) => s.layout().map(|_| ()),
            Encoding::PartitionedShared(s) => s.validate(),
            Encoding::Slice(_) | Encoding::Linear(_) => Ok(()),
        }
    }

    /// Triton's name for the kind (`blocked`, `nvidia_mma`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Encoding::Blocked(_) => "blocked",
            Encoding::SwizzledShared(_) => "swizzled_shared",
            Encoding::NvmmaShared(_) => "nvmma_shared",
            Encoding::NvidiaMma(_) => "nvidia_mma",
            Encoding::AmdMfma(_) => "amd_mfma",
            Encoding::AmdWmma(_) => "amd_wmma",
            Encoding::Slice(_) => "slice",
            Encoding::DotOperand(_) => "dot_op",
            Encoding::Linear(_) => "linear",
            Encoding::AmdRotatingShared(_) => "amd_rotating_shared",
            Encoding::SharedLinear(_) => "shared_linear",
            Encoding::PaddedShared(_) => "padded_shared",
            Encoding::PartitionedShared(_) => "partitioned_shared",
        }
    }

    /// The rank the encoding is written for, when its parameters fix one
    /// (`nvmma_shared`: its CTA placement's, 2 unless it says `rank`).
    pub fn fixed_rank(&self) -> Option<usize> {
        match self {
            Encoding::SwizzledShared(s) => Some(s.order.len()),
            Encoding::NvmmaShared(s) => Some(s.cga.rank()),
            Encoding::AmdRotatingShared(s) => Some(s.order.len()),
            Encoding::SharedLinear(s) => Some(s.rank()),
            Encoding::PaddedShared(s) => Some(s.rank()),
            Encoding::PartitionedShared(p) => p.inner.fixed_rank(),
            Encoding::Blocked(b) => Some(b.rank()),
            _ => None,
        }
    }

    /// Shared-memory layouts have in-dims `offset` and `block`.
    pub fn is_shared(&self) -> bool {
        matches!(
            self,
            Encoding::SwizzledShared(_)
                | Encoding::NvmmaShared(_)
                | Encoding::AmdRotatingShared(_)
                | Encoding::SharedLinear(_)
                | Encoding::PaddedShared(_)
                | Encoding::PartitionedShared(_)
        )
    }

    /// Threads per warp the encoding assumes, where it fixes one.
    pub fn warp_size(&self) -> Option<u32> {
        match self {
            Encoding::Blocked(b) => Some(saturating_product(&b.threads_per_warp)),
            Encoding::NvidiaMma(_) => Some(32),
            Encoding::AmdMfma(_) => Some(64),
            Encoding::AmdWmma(_) => Some(32),
            Encoding::Slice(s) => s.parent.warp_size(),
            Encoding::DotOperand(d) => d.parent.warp_size(),
            Encoding::Linear(l) => Some(1 << l.lane.len()),
            Encoding::SwizzledShared(_)
            | Encoding::NvmmaShared(_)
            | Encoding::AmdRotatingShared(_)
            | Encoding::SharedLinear(_)
            | Encoding::PaddedShared(_)
            | Encoding::PartitionedShared(_) => None,
        }
    }

    /// Warps per CTA, where the encoding fixes it.
    pub fn num_warps(&self) -> Option<u32> {
        match self {
            Encoding::Blocked(b) => Some(saturating_product(&b.warps_per_cta)),
            Encoding::NvidiaMma(m) => Some(saturating_product(&m.warps_per_cta)),
            Encoding::AmdMfma(m) => Some(saturating_product(&m.warps_per_cta)),
            // Triton 3.9's form places warps by bases, one bit each.
            Encoding::AmdWmma(m) => Some(match &m.cta_tiles {
                Some(tiles) => 1 << tiles.warp.len(),
                None => saturating_product(&m.warps_per_cta),
            }),
            Encoding::Slice(s) => s.parent.num_warps(),
            Encoding::DotOperand(d) => d.parent.num_warps(),
            Encoding::Linear(l) => Some(1 << l.warp.len()),
            Encoding::SwizzledShared(_)
            | Encoding::NvmmaShared(_)
            | Encoding::AmdRotatingShared(_)
            | Encoding::SharedLinear(_)
            | Encoding::PaddedShared(_)
            | Encoding::PartitionedShared(_) => None,
        }
    }

    /// The CTA placement, where the encoding has one.
    pub fn cga(&self) -> Option<&CgaLayout> {
        match self {
            Encoding::Blocked(b) => Some(&b.cga),
            Encoding::SwizzledShared(s) => Some(&s.cga),
            Encoding::NvmmaShared(s) => Some(&s.cga),
            Encoding::NvidiaMma(m) => Some(&m.cga),
            Encoding::AmdMfma(m) => Some(&m.cga),
            Encoding::AmdWmma(m) => Some(&m.cga),
            Encoding::Slice(s) => s.parent.cga(),
            Encoding::DotOperand(d) => d.parent.cga(),
            Encoding::AmdRotatingShared(s) => Some(&s.cga),
            Encoding::PartitionedShared(p) => p.inner.cga(),
            Encoding::Linear(_) | Encoding::SharedLinear(_) | Encoding::PaddedShared(_) => None,
        }
    }

    /// Checks the encoding against the machine it runs on: threads per warp,
    /// warps per CTA and CTAs per cluster must match the kernel's.
    pub fn validate_for(&self, target: &Target) -> Result<()> {
        if let Some(w) = self.warp_size()
            && w != target.threads_per_warp
        {
            let t = target.threads_per_warp;
            return Err(match self {
                Encoding::Blocked(_) => LayoutError::invalid_of(
                    InvalidKind::WarpSize,
                    Subject::Param("threadsPerWarp"),
                    format!("multiplies to {w}, but a warp has {t} threads"),
                ),
                other => LayoutError::invalid(
                    format!("#ttg.{}", other.kind()),
                    format!("is laid out for {w}-thread warps, but a warp has {t} threads"),
                ),
            });
        }
        if let Some(n) = self.num_warps()
            && n != target.num_warps
        {
            return Err(LayoutError::invalid(
                Subject::Param("warpsPerCTA"),
                format!(
                    "multiplies to {n}, but the kernel runs {} warps",
                    target.num_warps
                ),
            ));
        }
        let ctas = match self {
            Encoding::Linear(l) => 1u64 << l.block.len(),
            other => other.cga().map_or(1, CgaLayout::num_ctas),
        };
        if ctas != target.num_ctas as u64 {
            return Err(LayoutError::invalid_of(
                InvalidKind::CtaPlacement,
                "CTA placement",
                format!(
                    "places {ctas} CTAs, but the kernel runs {} CTAs per cluster",
                    target.num_ctas
                ),
            ));
        }
        Ok(())
    }

    /// The linear layout of this encoding over a tensor of `shape`.
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        match self {
            Encoding::Blocked(b) => b.to_linear_layout(shape),
            Encoding::SwizzledShared(s) => s.to_linear_layout(shape),
            Encoding::NvmmaShared(s) => s.to_linear_layout(shape),
            Encoding::NvidiaMma(m) => m.to_linear_layout(shape),
            Encoding::AmdMfma(m) => m.to_linear_layout(shape),
            Encoding::AmdWmma(m) => m.to_linear_layout(shape),
            Encoding::Slice(s) => s.to_linear_layout(shape),
            Encoding::DotOperand(d) => d.to_linear_layout(shape),
            Encoding::Linear(l) => l.to_linear_layout(shape),
            Encoding::AmdRotatingShared(s) => s.to_linear_layout(shape),
            Encoding::SharedLinear(s) => s.to_linear_layout(shape),
            Encoding::PaddedShared(s) => s.to_linear_layout(shape),
            Encoding::PartitionedShared(s) => s.to_linear_layout(shape),
        }
    }

    /// The padding of a `#ttg.padded_shared` (or of one inside a
    /// partitioned layout): `(interval, padding)` pairs in elements.
    pub fn padding(&self) -> &[(u32, u32)] {
        match self {
            Encoding::PaddedShared(p) => &p.intervals,
            Encoding::PartitionedShared(p) => p.inner.padding(),
            _ => &[],
        }
    }
}

fn check_rank(kind: &str, rank: usize, shape: &[u32]) -> Result<()> {
    if rank != shape.len() {
        return Err(LayoutError::invalid_of(
            InvalidKind::Rank,
            format!("#ttg.{kind}"),
            format!(
                "has rank {rank} but the tensor {shape:?} has rank {}",
                shape.len()
            ),
        ));
    }
    Ok(())
}

/// The parameters of an XOR swizzle (`swizzled_shared`,
/// `amd_rotating_shared`): order a permutation, the rest powers of two.
fn validate_swizzle(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    order: &[usize],
    cga: &CgaLayout,
) -> Result<()> {
    require_permutation(Subject::Param("order"), order)?;
    require_cta_rank("CTA placement", cga.rank(), order.len())?;
    require_pow2(|| Subject::Param("vec"), &[vec])?;
    require_pow2(|| Subject::Param("perPhase"), &[per_phase])?;
    require_pow2(|| Subject::Param("maxPhase"), &[max_phase])?;
    Ok(())
}

/// `reshapeLayout`: reads the out-dims row-major (last dim fastest) and
/// splits them into `shape`, also row-major.
fn reshape_row_major(layout: &LinearLayout, shape: &[u32]) -> Result<LinearLayout> {
    let mut src: Vec<DimName> = layout.out_dim_names().cloned().collect();
    src.reverse();
    let rank = shape.len();
    let mut new: Vec<(DimName, u64)> = names(rank)
        .into_iter()
        .zip(shape.iter().map(|&s| s as u64))
        .collect();
    new.reverse();
    layout
        .transpose_outs(&src)?
        .reshape_outs(&new)?
        .transpose_outs(&names(rank))
}

/// `transposeLinearLayout`: out coordinate `k` of every basis becomes the
/// old coordinate `order[k]`; sizes are re-inferred.
fn permute_coordinates(layout: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let bases = layout
        .bases()
        .into_iter()
        .map(|(n, b)| {
            (
                n,
                b.into_iter()
                    .map(|v| order.iter().map(|&k| v[k] as i64).collect())
                    .collect(),
            )
        })
        .collect();
    LinearLayout::from_bases(bases, layout.out_dim_names().cloned().collect())
}

/// `nvidiaMmaTile`: `kWidth` registers and 4 lanes along the inner dim, 8
/// lanes along the outer dim, then register repeats to fill the tile. The
/// out-dims come in `rep_order` (which dim repeats first).
fn nvidia_mma_tile(
    tile_shape: &[u32],
    k_width: u32,
    order: &[usize],
    rep_order: &[usize],
) -> Result<LinearLayout> {
    let rank = rep_order.len();
    let outs = names(rank);
    let (inner, outer) = (order[0], order[1]);
    let (m, n) = (tile_shape[outer], tile_shape[inner]);
    if m % 8 != 0 || n % (k_width * 4) != 0 {
        return Err(LayoutError::invalid(
            "MMA tile",
            format!("a {m}x{n} tile does not fit 8 rows by 4 x kWidth ({k_width}) columns"),
        ));
    }
    identity_nd(REGISTER, &vec![1; rank], rep_order)?
        .product(&identity(k_width, REGISTER, &outs[inner])?)?
        .product(&identity(4, LANE, &outs[inner])?)?
        .product(&identity(8, LANE, &outs[outer])?)?
        .product(&identity(m / 8, REGISTER, &outs[outer])?)?
        .product(&identity(n / (k_width * 4), REGISTER, &outs[inner])?)
}

/// Warps along the non-K dims, broadcast along K (`broadcastedDotOperandLayout`).
fn broadcasted_dot_operand(
    shape: &[u32],
    order: &[usize],
    k_dim: usize,
    in_dim: &str,
) -> Result<LinearLayout> {
    let outs = names(shape.len());
    let mut layout = LinearLayout::empty();
    for &d in order {
        let f = if d == k_dim {
            zeros(shape[d], in_dim, &outs[d])?
        } else {
            identity(shape[d], in_dim, &outs[d])?
        };
        layout = layout.product(&f)?;
    }
    Ok(layout)
}

/// Prints an encoding as Triton prints the attribute in TTGIR
/// (`#ttg.blocked<{sizePerThread = [1, 4], ...}>`); a parent is printed
/// inline. CTA placement appears only when there is more than one CTA.
impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Encoding::Blocked(e) => e.fmt(f),
            Encoding::SwizzledShared(e) => e.fmt(f),
            Encoding::NvmmaShared(e) => e.fmt(f),
            Encoding::NvidiaMma(e) => e.fmt(f),
            Encoding::AmdMfma(e) => e.fmt(f),
            Encoding::AmdWmma(e) => e.fmt(f),
            Encoding::Slice(e) => e.fmt(f),
            Encoding::DotOperand(e) => e.fmt(f),
            Encoding::Linear(e) => e.fmt(f),
            Encoding::AmdRotatingShared(e) => e.fmt(f),
            Encoding::SharedLinear(e) => e.fmt(f),
            Encoding::PaddedShared(e) => e.fmt(f),
            Encoding::PartitionedShared(e) => e.fmt(f),
        }
    }
}

// ----- printing, as TTGIR spells the keys -----------------------------------

/// `[a, b, c]`.
fn list<T: std::fmt::Display>(v: &[T]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `[[a, b], [c, d]]`.
fn bases_list(v: &[Vec<u32>]) -> String {
    format!(
        "[{}]",
        v.iter().map(|b| list(b)).collect::<Vec<_>>().join(", ")
    )
}

/// `, CGALayout = [...]` for a cluster of several CTAs, else nothing.
fn cga_keys(c: &CgaLayout) -> String {
    if c.num_ctas() > 1 {
        format!(", CGALayout = {}", bases_list(c.bases()))
    } else {
        String::new()
    }
}

/// The keys of the swizzled encodings (`swizzled_shared`,
/// `amd_rotating_shared`).
fn swizzle_keys(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    order: &[usize],
    c: &CgaLayout,
) -> String {
    format!(
        "vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = {}{}",
        list(order),
        cga_keys(c)
    )
}

/// The bases of one in-dim, empty when the layout has no such dim.
fn bases_of(l: &LinearLayout, in_dim: &str) -> Vec<Vec<u32>> {
    l.bases()
        .into_iter()
        .find(|(n, _)| n == in_dim)
        .map(|(_, b)| b)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[usize]) -> Blocked {
        Blocked {
            size_per_thread: spt.to_vec(),
            threads_per_warp: tpw.to_vec(),
            warps_per_cta: wpc.to_vec(),
            order: order.to_vec(),
            cga: CgaLayout::single(order.len()),
        }
    }

    #[test]
    fn cga_coordinate_1_1_is_block_101b() {
        // Seed 000: CTAsPerCGA = [2, 4], CTASplitNum = [2, 4], CTAOrder = [1, 0]:
        // CTA (1, 1) is block id 0b101 (dim1's two bits low, dim0's bit high).
        let cga = CgaLayout::from_split(&[2, 4], &[2, 4], &[1, 0]).unwrap();
        let l = cga.to_linear().unwrap();
        let out = l.apply(&[("block", 0b101)]).unwrap();
        assert_eq!(out.iter().map(|(_, v)| *v).collect::<Vec<_>>(), vec![1, 1]);
    }

    #[test]
    fn encodings_are_checked_against_the_kernel_launch() {
        let t = Target::default();
        let b = Encoding::Blocked(blocked(&[1, 1], &[4, 4], &[4, 1], &[1, 0]));
        let e = b.validate_for(&t).unwrap_err();
        assert_eq!(
            e.to_string(),
            "threadsPerWarp: multiplies to 16, but a warp has 32 threads"
        );
        let b = Encoding::Blocked(blocked(&[1, 1], &[8, 4], &[2, 1], &[1, 0]));
        let e = b.validate_for(&t).unwrap_err();
        assert_eq!(
            e.to_string(),
            "warpsPerCTA: multiplies to 2, but the kernel runs 4 warps"
        );
        let mut ok = blocked(&[1, 1], &[8, 4], &[2, 2], &[1, 0]);
        assert_eq!(Encoding::Blocked(ok.clone()).validate_for(&t), Ok(()));
        ok.cga = CgaLayout::from_split(&[2, 1], &[2, 1], &[1, 0]).unwrap();
        let e = Encoding::Blocked(ok).validate_for(&t).unwrap_err();
        assert!(
            matches!(
                e,
                LayoutError::Invalid {
                    kind: InvalidKind::CtaPlacement,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// Each error names the parameter (the key a front end points at) and
    /// its kind, not only a message.
    #[test]
    fn blocked_validation_reports_reasons() {
        let b = blocked(&[1, 3], &[8, 4], &[1, 1], &[1, 0]);
        assert_eq!(
            b.to_linear_layout(&[8, 8]),
            Err(LayoutError::NotPowerOfTwo {
                what: Subject::Param("sizePerThread"),
                value: 3
            })
        );
        let b = blocked(&[1, 1], &[8, 4], &[1, 1], &[1, 1]);
        assert!(matches!(
            b.to_linear_layout(&[8, 8]),
            Err(LayoutError::Invalid {
                what: Subject::Param("order"),
                kind: InvalidKind::Order,
                ..
            })
        ));
        let b = blocked(&[1, 1], &[8, 4], &[1, 1], &[1, 0]);
        assert!(matches!(
            b.to_linear_layout(&[8, 8, 8]),
            Err(LayoutError::Invalid {
                kind: InvalidKind::Rank,
                ..
            })
        ));
        let e = CgaLayout::from_split(&[2], &[4], &[0]).unwrap_err();
        assert!(
            matches!(
                e,
                LayoutError::Invalid {
                    kind: InvalidKind::CtaPlacement,
                    ..
                }
            ),
            "{e}"
        );
    }
}
