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
mod shared;

pub use shared::{AmdRotatingShared, PaddedLinear, PaddedShared, PartitionedShared, SharedLinear};

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

/// How the CTAs of a cluster (CGA) map to tiles of the tensor: one basis per
/// bit of the CTA id, in units of CTA tiles (Triton 3.9's `CGALayout`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CgaLayout {
    rank: usize,
    bases: Vec<Vec<u32>>,
}

impl CgaLayout {
    /// One CTA.
    pub fn single(rank: usize) -> Self {
        CgaLayout {
            rank,
            bases: Vec::new(),
        }
    }

    /// From the `CGALayout = [[..], ..]` bases.
    pub fn from_bases(rank: usize, bases: Vec<Vec<u32>>) -> Result<Self> {
        for (i, b) in bases.iter().enumerate() {
            if b.len() != rank {
                return Err(LayoutError::invalid_of(
                    InvalidKind::CtaPlacement,
                    Subject::Param("CGALayout"),
                    format!(
                        "basis {i} has {} entries but the layout has rank {rank}",
                        b.len()
                    ),
                ));
            }
        }
        require_permutation_bases(
            InvalidKind::CtaPlacement,
            Subject::Param("CGALayout"),
            &bases,
        )?;
        let layout = CgaLayout { rank, bases };
        layout.to_linear()?;
        Ok(layout)
    }

    /// From the older `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` triple: along
    /// each dim (minor first in `CTAOrder`), `split` CTAs take distinct tiles
    /// and the remaining `ctas / split` repeat them (seed 000 `makeCgaLayout`).
    pub fn from_split(ctas_per_cga: &[u32], split_num: &[u32], order: &[usize]) -> Result<Self> {
        let rank = ctas_per_cga.len();
        require_cta_rank(Subject::Param("CTASplitNum"), split_num.len(), rank)?;
        require_cta_rank(Subject::Param("CTAOrder"), order.len(), rank)?;
        require_permutation(Subject::Param("CTAOrder"), order)?;
        require_pow2(|| Subject::Param("CTAsPerCGA"), ctas_per_cga)?;
        require_pow2(|| Subject::Param("CTASplitNum"), split_num)?;
        let mut bases = Vec::new();
        for &dim in order {
            let (ctas, split) = (ctas_per_cga[dim], split_num[dim]);
            if ctas % split != 0 {
                return Err(LayoutError::invalid_of(
                    InvalidKind::CtaPlacement,
                    Subject::Param("CTAsPerCGA"),
                    format!(
                        "CTAsPerCGA[{dim}] = {ctas} is not a multiple of CTASplitNum[{dim}] = {split}"
                    ),
                ));
            }
            let mut tile = 1;
            while tile < split {
                let mut b = vec![0; rank];
                b[dim] = tile;
                bases.push(b);
                tile *= 2;
            }
            for _ in 0..(ctas / split).trailing_zeros() {
                bases.push(vec![0; rank]);
            }
        }
        Ok(CgaLayout { rank, bases })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn bases(&self) -> &[Vec<u32>] {
        &self.bases
    }

    pub fn num_ctas(&self) -> u64 {
        1 << self.bases.len()
    }

    /// `block -> dim0..` with each dim sized by the tiles it reaches.
    pub fn to_linear(&self) -> Result<LinearLayout> {
        let bases = self
            .bases
            .iter()
            .map(|b| b.iter().map(|&v| v as i64).collect())
            .collect();
        let mut out_dims = vec![1i64; self.rank];
        for b in &self.bases {
            for (d, &v) in b.iter().enumerate() {
                if v > 0 {
                    out_dims[d] = out_dims[d].max(((v as u64 + 1).next_power_of_two()) as i64);
                }
            }
        }
        LinearLayout::from_bases_with_sizes(
            vec![(BLOCK, bases)],
            names(self.rank).into_iter().zip(out_dims).collect(),
            false,
        )
    }

    /// Tiles per dim: the tensor is split into this many CTA tiles.
    pub fn split(&self) -> Result<Vec<u64>> {
        let l = self.to_linear()?;
        Ok(names(self.rank).iter().map(|n| l.out_dim_size(n)).collect())
    }
}

/// Shape of one CTA's tile of the tensor.
fn shape_per_cta(cga: &CgaLayout, shape: &[u32]) -> Result<Vec<u32>> {
    Ok(shape
        .iter()
        .zip(cga.split()?)
        .map(|(&s, split)| ((s as u64 / split).max(1)) as u32)
        .collect())
}

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

/// `#ttg.blocked`: each thread holds a `sizePerThread` block, threads and
/// warps tile it following `order` (minor dim first).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub size_per_thread: Vec<u32>,
    pub threads_per_warp: Vec<u32>,
    pub warps_per_cta: Vec<u32>,
    pub order: Vec<usize>,
    pub cga: CgaLayout,
}

/// `#ttg.swizzled_shared`: rows of the two minor dims are XOR-swizzled in
/// groups of `vec` elements by `(row / perPhase) % maxPhase`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledShared {
    pub vec: u32,
    pub per_phase: u32,
    pub max_phase: u32,
    pub order: Vec<usize>,
    pub cga: CgaLayout,
}

/// `#ttg.nvmma_shared`: the TMA / wgmma shared layout with a 0, 32, 64 or
/// 128-byte swizzle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvmmaShared {
    pub swizzling_byte_width: u32,
    pub transposed: bool,
    pub element_bit_width: u32,
    pub fp4_padded: bool,
    pub cga: CgaLayout,
}

/// `#ttg.nvidia_mma`: mma.sync (version 2) or wgmma (version 3) accumulators.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvidiaMma {
    pub version_major: u32,
    pub version_minor: u32,
    pub warps_per_cta: Vec<u32>,
    pub instr_shape: Vec<u32>,
    pub cga: CgaLayout,
}

/// `#ttg.amd_mfma`: CDNA matrix-core accumulators (64 lanes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdMfma {
    pub version: u32,
    pub warps_per_cta: Vec<u32>,
    pub instr_shape: Vec<u32>,
    pub is_transposed: bool,
    /// Empty means one tile per warp in every dim.
    pub tiles_per_warp: Vec<u32>,
    /// 0 means the default (32).
    pub element_bit_width: u32,
    pub cga: CgaLayout,
}

/// `#ttg.amd_wmma`: RDNA wave-matrix accumulators (32 lanes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdWmma {
    pub version: u32,
    pub is_transposed: bool,
    /// Older dumps give `warpsPerCTA`; newer ones give `ctaLayout` bases.
    pub warps_per_cta: Vec<u32>,
    /// `ctaLayout = {register = [..], warp = [..]}`: how registers and warps
    /// repeat the instruction tile, in units of tiles (Triton 3.9's form).
    pub cta_tiles: Option<WmmaCtaTiles>,
    /// Empty means `[16, 16, 16]`.
    pub instr_shape: Vec<u32>,
    pub cga: CgaLayout,
}

/// Repetitions of the WMMA tile, in tile units.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WmmaCtaTiles {
    pub register: Vec<Vec<u32>>,
    pub warp: Vec<Vec<u32>>,
}

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

/// `#ttg.slice`: the parent with one dim removed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    pub dim: usize,
    pub parent: Encoding,
}

/// `#ttg.dot_op`: operand `op_idx` (0 = A, 1 = B) of a dot whose result has
/// the parent layout; each thread holds `k_width` consecutive K elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotOperand {
    pub op_idx: u32,
    pub k_width: u32,
    pub parent: Encoding,
}

/// `#ttg.linear`: explicit bases for `register`, `lane`, `warp`, `block`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearEncoding {
    pub register: Vec<Vec<u32>>,
    pub lane: Vec<Vec<u32>>,
    pub warp: Vec<Vec<u32>>,
    pub block: Vec<Vec<u32>>,
    /// The tensor shape the bases were written for; `None` means the shape
    /// the layout is applied to.
    pub shape: Option<Vec<u32>>,
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

impl Blocked {
    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// Checks the parameters on their own (not against a target).
    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        require_rank(
            Subject::Param("sizePerThread"),
            self.size_per_thread.len(),
            rank,
        )?;
        require_rank(
            Subject::Param("threadsPerWarp"),
            self.threads_per_warp.len(),
            rank,
        )?;
        require_rank(
            Subject::Param("warpsPerCTA"),
            self.warps_per_cta.len(),
            rank,
        )?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        require_permutation(Subject::Param("order"), &self.order)?;
        require_pow2(|| Subject::Param("sizePerThread"), &self.size_per_thread)?;
        require_pow2(|| Subject::Param("threadsPerWarp"), &self.threads_per_warp)?;
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        check_rank("blocked", self.rank(), shape)?;
        let cta = identity_nd(REGISTER, &self.size_per_thread, &self.order)?
            .product(&identity_nd(LANE, &self.threads_per_warp, &self.order)?)?
            .product(&identity_nd(WARP, &self.warps_per_cta, &self.order)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
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

impl SwizzledShared {
    pub fn validate(&self) -> Result<()> {
        validate_swizzle(
            self.vec,
            self.per_phase,
            self.max_phase,
            &self.order,
            &self.cga,
        )
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        check_rank("swizzled_shared", self.order.len(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let per_cta = shape_per_cta(&self.cga, shape)?;
        let outs = names(shape.len());
        if shape.len() == 1 {
            return combine_cta_cga_with_shape(
                identity(per_cta[0], OFFSET, &outs[0])?,
                &self.cga,
                shape,
            );
        }
        let (col_dim, row_dim) = (self.order[0], self.order[1]);
        let (num_cols, num_rows) = (per_cta[col_dim] as i64, per_cta[row_dim] as i64);
        let mut bases = Vec::new();
        let mut col = 1;
        while col < num_cols {
            bases.push(vec![0, col]);
            col *= 2;
        }
        let mut row = 1i64;
        while row < num_rows {
            let phase = (row / self.per_phase as i64) % self.max_phase as i64;
            bases.push(vec![row, (self.vec as i64 * phase) % num_cols]);
            row *= 2;
        }
        let mut cta = LinearLayout::from_bases_with_sizes(
            vec![(OFFSET, bases)],
            vec![
                (outs[row_dim].clone(), num_rows),
                (outs[col_dim].clone(), num_cols),
            ],
            true,
        )?;
        for &dim in &self.order[2..] {
            cta = cta.product(&identity(per_cta[dim], OFFSET, &outs[dim])?)?;
        }
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

impl NvmmaShared {
    /// Elements per 16-byte vector.
    pub fn vec(&self) -> u32 {
        128 / self.element_bit_width
    }

    /// (perPhase, maxPhase) of the swizzle.
    pub fn phases(&self) -> (u32, u32) {
        match self.swizzling_byte_width {
            32 => (4, 2),
            64 => (2, 4),
            128 => (1, 8),
            _ => (1, 1),
        }
    }

    pub fn validate(&self) -> Result<()> {
        if ![0, 32, 64, 128].contains(&self.swizzling_byte_width) {
            return Err(LayoutError::invalid(
                Subject::Param("swizzlingByteWidth"),
                format!(
                    "must be 0, 32, 64 or 128, not {}",
                    self.swizzling_byte_width
                ),
            ));
        }
        if ![4, 8, 16, 32, 64].contains(&self.element_bit_width) {
            return Err(LayoutError::invalid(
                Subject::Param("elementBitWidth"),
                format!(
                    "must be 8, 16, 32 or 64 (or 4), not {}",
                    self.element_bit_width
                ),
            ));
        }
        Ok(())
    }

    /// One 8-row core matrix of the swizzle (`getCoreMatrixLinearLayout`).
    fn core_matrix(&self) -> Result<LinearLayout> {
        let tile_cols =
            8 * self.swizzling_byte_width.max(16) as i64 / self.element_bit_width as i64;
        let (per_phase, max_phase) = self.phases();
        let vec = self.vec() as i64;
        let pack = |c: i64| {
            if self.fp4_padded {
                c / 16 * 8 + c % 8
            } else {
                c
            }
        };
        let mut bases = Vec::new();
        let mut col = 1;
        while col < tile_cols {
            bases.push(vec![0, pack(col)]);
            col *= 2;
        }
        let mut row = 1i64;
        while row < 8 {
            bases.push(vec![
                row,
                pack(vec * ((row / per_phase as i64) % max_phase as i64)),
            ]);
            row *= 2;
        }
        layout_from(vec![(OFFSET, bases)], names(2))
    }

    /// `getTMABlockShape`: the box one TMA copy moves.
    fn tma_block_shape(&self, per_cta: &[u32]) -> Result<Vec<u32>> {
        let mut block: Vec<u32> = per_cta.to_vec();
        let contig = if self.transposed { 0 } else { block.len() - 1 };
        if self.fp4_padded {
            block[contig] *= 2;
        }
        for s in &mut block {
            *s = (*s).min(256);
        }
        if self.swizzling_byte_width != 0 {
            let contig_size = 8 * self.swizzling_byte_width / self.element_bit_width;
            if block[contig] < contig_size {
                return Err(LayoutError::invalid(
                    "#ttg.nvmma_shared",
                    format!(
                        "the contiguous dim holds {} elements, fewer than one {}-byte swizzle row ({contig_size})",
                        per_cta[contig], self.swizzling_byte_width
                    ),
                ));
            }
            block[contig] = contig_size;
        }
        if self.fp4_padded {
            block[contig] /= 2;
        }
        Ok(block)
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let per_cta = shape_per_cta(&self.cga, shape)?;
        let outs = names(rank);
        if rank == 1 {
            return combine_cta_cga_with_shape(
                identity(per_cta[0], OFFSET, &outs[0])?,
                &self.cga,
                shape,
            );
        }
        let tma = self.tma_block_shape(&per_cta)?;
        let per_cta64: Vec<u64> = per_cta.iter().map(|&s| s as u64).collect();
        if self.swizzling_byte_width == 0 {
            // Unswizzled: plain row-major tiles, the contiguous dim fastest
            // (the last dim, or dim 0 when transposed).
            let order: Vec<usize> = if self.transposed {
                std::iter::once(0).chain((1..rank).rev()).collect()
            } else {
                (0..rank).rev().collect()
            };
            let mut layout = LinearLayout::empty();
            for &d in &order {
                layout = layout.product(&identity(tma[d], OFFSET, &outs[d])?)?;
            }
            let layout = ensure_not_smaller(layout, &outs, &per_cta64)?;
            return combine_cta_cga_with_shape(layout, &self.cga, shape);
        }
        let mut collapsed = [
            tma[..rank - 1].iter().map(|&s| s as u64).product::<u64>(),
            tma[rank - 1] as u64,
        ];
        if self.transposed {
            collapsed.swap(0, 1);
        }
        let tile = self.core_matrix()?;
        let two = names(2);
        let (tile_rows, tile_cols) = (tile.out_dim_size(&two[0]), tile.out_dim_size(&two[1]));
        let packing = if self.fp4_padded { 2 } else { 1 };
        if collapsed[1] * packing < tile_cols || collapsed[0] < tile_rows {
            return Err(LayoutError::invalid(
                "#ttg.nvmma_shared",
                format!(
                    "the tensor tile must be at least [{tile_rows}, {}] for this swizzle, but is {:?}",
                    tile_cols / packing,
                    collapsed
                ),
            ));
        }
        let layout = ensure_not_smaller(tile, &two, &collapsed)?;
        let mut target: Vec<u32> = tma.clone();
        if self.transposed {
            target.rotate_left(1);
        }
        let mut reshaped = reshape_row_major(&layout, &target)?;
        if self.transposed {
            let mut order = vec![rank - 1];
            order.extend(0..rank - 1);
            reshaped = permute_coordinates(&reshaped, &order)?;
        }
        let reshaped = ensure_not_smaller(reshaped, &outs, &per_cta64)?;
        combine_cta_cga_with_shape(reshaped, &self.cga, shape)
    }
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

impl NvidiaMma {
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    pub fn is_hopper(&self) -> bool {
        self.version_major == 3
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        match self.version_major {
            2 => {
                let ok = (rank == 2 && self.instr_shape == [16, 8])
                    || (rank == 3 && self.instr_shape == [1, 16, 8]);
                if !ok {
                    return Err(LayoutError::invalid(
                        Subject::Param("instrShape"),
                        format!(
                            "{:?} is not an mma.sync (version 2) shape: [16, 8], or [1, 16, 8] with a batch dim",
                            self.instr_shape
                        ),
                    ));
                }
            }
            3 => {
                if rank != 2 {
                    return Err(LayoutError::invalid_of(
                        InvalidKind::Rank,
                        "#ttg.nvidia_mma",
                        "version 3 (wgmma) layouts have rank 2",
                    ));
                }
                let ok = self.instr_shape.len() == 3
                    && self.instr_shape[0] == 16
                    && self.instr_shape[1].is_multiple_of(8)
                    && (8..=256).contains(&self.instr_shape[1])
                    && [8, 16, 32].contains(&self.instr_shape[2]);
                if !ok {
                    return Err(LayoutError::invalid(
                        Subject::Param("instrShape"),
                        format!(
                            "{:?} is not a wgmma (version 3) shape [16, N, K] with N a multiple of 8 up to 256 and K in 8, 16, 32",
                            self.instr_shape
                        ),
                    ));
                }
                if !saturating_product(&self.warps_per_cta).is_multiple_of(4) {
                    return Err(LayoutError::invalid(
                        Subject::Param("warpsPerCTA"),
                        "wgmma runs on groups of 4 warps: the product must be a multiple of 4",
                    ));
                }
            }
            v => {
                return Err(LayoutError::invalid(
                    Subject::Param("versionMajor"),
                    format!(
                        "{v} is not supported (2 = mma.sync, 3 = wgmma); version 1 (Volta) has no linear layout"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The accumulator tile (`[16, 8]`, or `[16, N]` for wgmma).
    fn tile_shape(&self) -> Vec<u32> {
        if self.is_hopper() {
            self.instr_shape[..2].to_vec()
        } else {
            self.instr_shape.clone()
        }
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("nvidia_mma", rank, shape)?;
        let order = matrix_order(rank, true);
        let cta = nvidia_mma_tile(&self.tile_shape(), 2, &order, &order)?;
        let out_order: Vec<DimName> = cta.out_dim_names().cloned().collect();
        let warps = identity_nd(
            WARP,
            &self.warps_per_cta,
            &matrix_order(rank, !self.is_hopper()),
        )?
        .transpose_outs(&out_order)?;
        combine_cta_cga_with_shape(cta.product(&warps)?, &self.cga, shape)
    }
}

impl AmdMfma {
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    fn tiles_per_warp(&self) -> Vec<u32> {
        if self.tiles_per_warp.is_empty() {
            vec![1; self.rank()]
        } else {
            self.tiles_per_warp.clone()
        }
    }

    fn element_bits(&self) -> u32 {
        if self.element_bit_width == 0 {
            32
        } else {
            self.element_bit_width
        }
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        if !(2..=3).contains(&rank) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.amd_mfma",
                format!("rank must be 2 or 3, not {rank}"),
            ));
        }
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_rank(
            Subject::Param("tilesPerWarp"),
            self.tiles_per_warp().len(),
            rank,
        )?;
        require_pow2(|| Subject::Param("tilesPerWarp"), &self.tiles_per_warp())?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        let (m, n) = (
            self.instr_shape.first().copied().unwrap_or(0),
            self.instr_shape.get(1).copied().unwrap_or(0),
        );
        let ok = matches!((m, n), (32, 32) | (16, 16) | (4, 4) | (64, 4) | (4, 64));
        if !ok || self.instr_shape.len() != 3 {
            return Err(LayoutError::invalid(
                Subject::Param("instrShape"),
                format!(
                    "{:?} is not an MFMA shape: [32, 32, K], [16, 16, K], [4, 4, K], [64, 4, K] or [4, 64, K]",
                    self.instr_shape
                ),
            ));
        }
        if (m, n) == (64, 4) && !self.is_transposed {
            return Err(LayoutError::invalid(
                "#ttg.amd_mfma",
                "a 64x4 MFMA layout must be transposed",
            ));
        }
        if self.version > 4 {
            return Err(LayoutError::invalid(
                Subject::Param("version"),
                format!("MFMA versions are 0 to 4, not {}", self.version),
            ));
        }
        if ![32, 64].contains(&self.element_bits()) {
            return Err(LayoutError::invalid(
                Subject::Param("elementBitWidth"),
                format!("must be 32 or 64, not {}", self.element_bit_width),
            ));
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("amd_mfma", rank, shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let batch = rank == 3;
        let (m_idx, n_idx) = (batch as usize, batch as usize + 1);
        let outs = names(rank);
        let order = matrix_order(rank, true);
        let (dim_m, dim_n) = (&outs[order[1]], &outs[order[0]]);
        let (m_dim, n_dim) = (self.instr_shape[0], self.instr_shape[1]);
        let height = if self.element_bits() == 64 { 1 } else { 4 };
        const WARP_SIZE: u32 = 64;
        let tiles = (m_dim * n_dim) / (WARP_SIZE * height);
        let mut tile = if !self.is_transposed {
            let regs = identity(height, REGISTER, dim_m)?;
            let lanes = identity(n_dim, LANE, dim_n)?.product(&identity(
                WARP_SIZE / n_dim,
                LANE,
                dim_m,
            )?)?;
            let mut t = regs.product(&lanes)?;
            if tiles > 0 {
                t = t.product(&identity(tiles, REGISTER, dim_m)?)?;
            }
            t
        } else {
            let regs = identity(height, REGISTER, dim_n)?;
            let lanes = identity(m_dim, LANE, dim_m)?.product(&identity(
                WARP_SIZE / m_dim,
                LANE,
                dim_n,
            )?)?;
            let mut t = regs.product(&lanes)?;
            if tiles > 0 {
                t = t.product(&identity(tiles, REGISTER, dim_n)?)?;
            }
            t
        };
        tile = tile.transpose_outs(&[dim_n.clone(), dim_m.clone()])?;
        let tpw = self.tiles_per_warp();
        let (tpw_m, tpw_n) = (tpw[m_idx], tpw[n_idx]);
        let (wpc_m, wpc_n) = (self.warps_per_cta[m_idx], self.warps_per_cta[n_idx]);
        tile = tile
            .product(&identity(tpw_n, REGISTER, dim_n)?)?
            .product(&identity(wpc_n, WARP, dim_n)?)?
            .product(&identity(
                // In u64: a huge warp count must not overflow.
                (shape[n_idx] as u64 / (n_dim as u64 * wpc_n as u64 * tpw_n as u64)) as u32,
                REGISTER,
                dim_n,
            )?)?
            .product(&identity(tpw_m, REGISTER, dim_m)?)?
            .product(&identity(wpc_m, WARP, dim_m)?)?;
        if batch {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?
                .product(&identity(self.warps_per_cta[0], WARP, b)?)?;
        }
        combine_cta_cga_with_shape(tile, &self.cga, shape)
    }

    fn dot_operand(&self, op_idx: u32, k_width: u32, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        check_rank("dot_op", self.rank(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        require_pow2(|| Subject::Param("kWidth"), &[k_width])?;
        let batch = rank == 3;
        let non_k_idx = if op_idx == 0 { rank - 2 } else { rank - 1 };
        let k_idx = if op_idx == 0 { rank - 1 } else { rank - 2 };
        let tpw_non_k = self.tiles_per_warp()[non_k_idx];
        let (m_dim, n_dim) = (self.instr_shape[0], self.instr_shape[1]);
        let non_k_dim = if op_idx == 0 { m_dim } else { n_dim };
        const WARP_SIZE: u32 = 64;
        let k_size = shape[k_idx];
        let outs = names(rank);
        let order = dot_operand_order(op_idx, rank, true);
        let (dim_k, dim_non_k) = (&outs[order[0]], &outs[order[1]]);
        let regs = identity(k_width, REGISTER, dim_k)?;
        let lanes = identity(non_k_dim, LANE, dim_non_k)?.product(&identity(
            WARP_SIZE / non_k_dim,
            LANE,
            dim_k,
        )?)?;
        let mut tile = regs.product(&lanes)?;
        let mut k_tile = WARP_SIZE / non_k_dim * k_width;
        if (m_dim == 64 && n_dim == 4 && op_idx == 0) || (m_dim == 4 && n_dim == 64 && op_idx == 1)
        {
            tile = tile.product(&identity(16, REGISTER, dim_k)?)?;
            k_tile *= 16;
        }
        if k_size > k_tile {
            tile = tile.product(&identity(k_size / k_tile, REGISTER, dim_k)?)?;
        }
        tile = tile.product(&identity(tpw_non_k, REGISTER, dim_non_k)?)?;
        tile = tile.transpose_outs(&[dim_k.clone(), dim_non_k.clone()])?;
        if batch {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?;
        }
        let warps = identity_nd(WARP, &self.warps_per_cta, &matrix_order(rank, true))?;
        combine_cta_cga_with_shape(tile.product(&warps)?, &self.cga, shape)?.transpose_outs(&outs)
    }
}

impl AmdWmma {
    pub fn rank(&self) -> usize {
        match &self.cta_tiles {
            Some(t) => t
                .warp
                .first()
                .or(t.register.first())
                .map_or(self.cga.rank(), |b| b.len()),
            None => self.warps_per_cta.len(),
        }
    }

    fn instr(&self) -> Vec<u32> {
        if self.instr_shape.is_empty() {
            vec![16, 16, 16]
        } else {
            self.instr_shape.clone()
        }
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        if !(2..=3).contains(&rank) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.amd_wmma",
                format!("rank must be 2 or 3, not {rank}"),
            ));
        }
        if !(1..=3).contains(&self.version) {
            return Err(LayoutError::invalid(
                Subject::Param("version"),
                format!("WMMA versions are 1, 2 and 3, not {}", self.version),
            ));
        }
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        let instr = self.instr();
        if instr.len() != 3 || instr[0] != 16 || instr[1] != 16 || !is_pow2(instr[2] as u64) {
            return Err(LayoutError::invalid(
                Subject::Param("instrShape"),
                format!("{instr:?} is not a WMMA shape [16, 16, K]"),
            ));
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("amd_wmma", rank, shape)?;
        let outs = names(rank);
        let thread_order = matrix_order(rank, !self.is_transposed);
        let tile_outs = vec![outs[thread_order[0]].clone(), outs[thread_order[1]].clone()];
        let mut tile = if self.version == 1 {
            layout_from(
                vec![
                    (REGISTER, vec![vec![0, 2], vec![0, 4], vec![0, 8]]),
                    (
                        LANE,
                        vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 1]],
                    ),
                ],
                tile_outs,
            )?
        } else {
            layout_from(
                vec![
                    (REGISTER, vec![vec![0, 1], vec![0, 2], vec![0, 4]]),
                    (
                        LANE,
                        vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
                    ),
                ],
                tile_outs,
            )?
        };
        if rank == 3 {
            tile = tile
                .product(&identity(1, REGISTER, &outs[0])?)?
                .product(&identity(1, LANE, &outs[0])?)?;
        }
        let warps = match &self.cta_tiles {
            Some(t) => tile_units(t, rank, |_| true)?,
            None => identity_nd(WARP, &self.warps_per_cta, &matrix_order(rank, true))?,
        };
        let rep: Vec<DimName> = matrix_order(rank, true)
            .into_iter()
            .map(|d| outs[d].clone())
            .collect();
        let cta = tile
            .transpose_outs(&rep)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }

    fn dot_operand(&self, op_idx: u32, k_width: u32, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        check_rank("dot_op", self.rank(), shape)?;
        require_pow2(|| Subject::Param("kWidth"), &[k_width])?;
        let outs = names(rank);
        let order = dot_operand_order(op_idx, rank, true);
        let (dim_k, dim_non_k) = (&outs[order[0]], &outs[order[1]]);
        let instr = self.instr();
        let k_dim = instr[2];
        let non_k_dim = if op_idx == 0 { instr[0] } else { instr[1] };
        const WARP_SIZE: u32 = 32;
        if non_k_dim > WARP_SIZE {
            return Err(LayoutError::invalid(
                "#ttg.dot_op",
                format!("kWidth {k_width} does not fit the WMMA instruction {instr:?}"),
            ));
        }
        let depth = WARP_SIZE / non_k_dim;
        let mut tile =
            identity(k_width, REGISTER, dim_k)?.product(&identity(non_k_dim, LANE, dim_non_k)?)?;
        tile = tile.product(&if self.version == 1 {
            zeros(depth, LANE, dim_k)?
        } else {
            identity(depth, LANE, dim_k)?
        })?;
        tile = tile.product(&identity(k_dim / (depth * k_width), REGISTER, dim_k)?)?;
        if rank == 3 {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?;
        }
        let k_idx = if op_idx == 0 { rank - 1 } else { rank - 2 };
        // The C tile's repetitions along the operand's other matrix dim (N for
        // A, M for B) do not apply to the operand: warps there broadcast.
        let warps = match &self.cta_tiles {
            Some(t) => tile_units(t, rank, |d| d != k_idx)?,
            None => broadcasted_dot_operand(
                &self.warps_per_cta,
                &matrix_order(rank, true),
                k_idx,
                WARP,
            )?,
        };
        let rep: Vec<DimName> = dot_operand_order(op_idx, rank, true)
            .into_iter()
            .map(|d| outs[d].clone())
            .collect();
        let cta = tile
            .transpose_outs(&rep)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

impl Slice {
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        if shape.is_empty() {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.slice",
                "the parent layout must have rank 2 or more",
            ));
        }
        if self.dim > shape.len() {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.slice",
                format!(
                    "dim {} is outside the parent's rank {}",
                    self.dim,
                    shape.len() + 1
                ),
            ));
        }
        let mut parent_shape = shape.to_vec();
        parent_shape.insert(self.dim, 1);
        let parent = self.parent.to_linear_layout(&parent_shape)?;
        let parent_outs = names(shape.len() + 1);
        let mut transform = LinearLayout::empty();
        for (idx, (name, size)) in parent.out_dims().into_iter().enumerate() {
            let f = if idx == self.dim {
                LinearLayout::zeros_1d(size as u32, name, parent_outs[0].clone())?
            } else {
                let to = if idx < self.dim { idx } else { idx - 1 };
                LinearLayout::identity_1d(size as u32, name, parent_outs[to].clone())?
            };
            transform = transform.product(&f)?;
        }
        let sliced = parent.compose(&transform)?;
        let bases = sliced
            .bases()
            .into_iter()
            .map(|(n, b)| {
                let strip = n == REGISTER;
                (
                    n,
                    b.into_iter()
                        .filter(|v| !strip || v.iter().any(|&x| x != 0))
                        .map(|v| v.into_iter().map(i64::from).collect())
                        .collect(),
                )
            })
            .collect();
        LinearLayout::from_bases(bases, sliced.out_dim_names().cloned().collect())
    }
}

impl DotOperand {
    pub fn validate(&self) -> Result<()> {
        if self.op_idx > 1 {
            return Err(LayoutError::invalid(
                Subject::Param("opIdx"),
                format!("must be 0 (A) or 1 (B), not {}", self.op_idx),
            ));
        }
        match &self.parent {
            Encoding::NvidiaMma(m) => {
                if !is_pow2(self.k_width as u64) {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        format!(
                            "an MMA operand needs a power-of-two kWidth, not {}",
                            self.k_width
                        ),
                    ));
                }
                if m.is_hopper() && self.op_idx == 1 {
                    return Err(LayoutError::invalid(
                        "#ttg.dot_op",
                        "wgmma (version 3) takes operand B from shared memory, not registers",
                    ));
                }
            }
            Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => {
                if !is_pow2(self.k_width as u64) {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        format!("must be a power of two, not {}", self.k_width),
                    ));
                }
            }
            Encoding::Blocked(_) => {
                if self.k_width != 0 {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        "a dot operand of a blocked (FMA) layout takes no kWidth (it must be 0)",
                    ));
                }
            }
            other => {
                return Err(LayoutError::invalid(
                    "#ttg.dot_op",
                    format!(
                        "the parent must be blocked, nvidia_mma, amd_mfma or amd_wmma, not {}",
                        other.kind()
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        if !(2..=3).contains(&shape.len()) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.dot_op",
                format!(
                    "a dot operand has rank 2 or 3 (with a batch dim), but the tensor {shape:?} has rank {}",
                    shape.len()
                ),
            ));
        }
        match &self.parent {
            Encoding::Blocked(b) => self.fma_operand(b, shape),
            Encoding::AmdMfma(m) => m.dot_operand(self.op_idx, self.k_width, shape),
            Encoding::AmdWmma(w) => w.dot_operand(self.op_idx, self.k_width, shape),
            Encoding::NvidiaMma(m) => self.nvidia_operand(m, shape),
            _ => unreachable!("validated"),
        }
    }

    /// FMA dot: each thread holds the whole K extent of its rows/columns.
    fn fma_operand(&self, blocked: &Blocked, shape: &[u32]) -> Result<LinearLayout> {
        blocked.validate()?;
        let rank = shape.len();
        check_rank("dot_op", blocked.rank(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let k_idx = if self.op_idx == 0 { rank - 1 } else { rank - 2 };
        let mut thread_size = blocked.size_per_thread.clone();
        thread_size[k_idx] = shape[k_idx];
        let outs = names(rank);
        let rep: Vec<DimName> = blocked.order.iter().map(|&d| outs[d].clone()).collect();
        let regs = identity_nd(REGISTER, &thread_size, &blocked.order)?;
        let lanes =
            broadcasted_dot_operand(&blocked.threads_per_warp, &blocked.order, k_idx, LANE)?;
        let warps = broadcasted_dot_operand(&blocked.warps_per_cta, &blocked.order, k_idx, WARP)?;
        let cta = regs
            .transpose_outs(&rep)?
            .product(&lanes.transpose_outs(&rep)?)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &blocked.cga, shape)
    }

    fn nvidia_operand(&self, mma: &NvidiaMma, shape: &[u32]) -> Result<LinearLayout> {
        mma.validate()?;
        let rank = shape.len();
        check_rank("dot_op", mma.rank(), shape)?;
        let is_a = self.op_idx == 0;
        let mut tile = vec![1; rank];
        if is_a {
            tile[rank - 2] = 16;
            tile[rank - 1] = self.k_width * 8;
        } else {
            tile[rank - 2] = self.k_width * 8;
            tile[rank - 1] = 8;
        }
        let order = dot_operand_order(self.op_idx, rank, true);
        let cta = nvidia_mma_tile(&tile, self.k_width, &order, &order)?;
        let k_dim = if is_a { rank - 1 } else { rank - 2 };
        let out_order: Vec<DimName> = cta.out_dim_names().cloned().collect();
        let warps = broadcasted_dot_operand(
            &mma.warps_per_cta,
            &matrix_order(rank, !mma.is_hopper()),
            k_dim,
            WARP,
        )?
        .transpose_outs(&out_order)?;
        combine_cta_cga_with_shape(cta.product(&warps)?, &mma.cga, shape)
    }
}

impl LinearEncoding {
    /// The bases as given (sizes inferred, so they must reach every
    /// coordinate), fitted to `shape` like every other encoding: a smaller
    /// tensor broadcasts, a larger one wraps into more registers.
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        require_permutation_bases(
            InvalidKind::Other,
            "#ttg.linear".into(),
            self.register
                .iter()
                .chain(&self.lane)
                .chain(&self.warp)
                .chain(&self.block),
        )?;
        let rank = shape.len();
        let conv = |b: &Vec<Vec<u32>>| -> Result<Vec<Vec<i64>>> {
            b.iter()
                .map(|v| {
                    if v.len() != rank {
                        return Err(LayoutError::invalid_of(
                            InvalidKind::Rank,
                            "#ttg.linear",
                            format!(
                                "basis {v:?} has {} entries but the tensor has rank {rank}",
                                v.len()
                            ),
                        ));
                    }
                    Ok(v.iter().map(|&x| x as i64).collect())
                })
                .collect()
        };
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let own = self.shape.as_deref().unwrap_or(shape);
        if own.len() != rank {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.linear",
                format!(
                    "was written for rank {} but the tensor has rank {rank}",
                    own.len()
                ),
            ));
        }
        require_pow2(
            || format!("every dim of the layout's shape {own:?}").into(),
            own,
        )?;
        let bases = vec![
            (REGISTER, conv(&self.register)?),
            (LANE, conv(&self.lane)?),
            (WARP, conv(&self.warp)?),
            (BLOCK, conv(&self.block)?),
        ];
        // Without a `shape` (as TTGIR prints it), the layout's own sizes are
        // those its bases reach, as Triton infers them; the tensor may be
        // smaller (it broadcasts) or larger (it wraps).
        let layout = match &self.shape {
            Some(_) => LinearLayout::from_bases_with_sizes(
                bases,
                names(rank)
                    .into_iter()
                    .zip(own.iter().map(|&s| s as i64))
                    .collect(),
                true,
            )?,
            None => LinearLayout::from_bases_inferring_sizes(bases, names(rank), true)?,
        };
        // Grow along the layout's own order: the dims its bases move in,
        // registers first, then the untouched dims from the last.
        let mut order: Vec<usize> = Vec::new();
        for b in self
            .register
            .iter()
            .chain(&self.lane)
            .chain(&self.warp)
            .chain(&self.block)
        {
            if let Some(d) = b.iter().position(|&x| x != 0)
                && !order.contains(&d)
            {
                order.push(d);
            }
        }
        order.extend(
            (0..rank)
                .rev()
                .filter(|d| !order.contains(d))
                .collect::<Vec<_>>(),
        );
        let outs = names(rank);
        let by_order: Vec<DimName> = order.iter().map(|&d| outs[d].clone()).collect();
        let sizes: Vec<u64> = order.iter().map(|&d| shape[d] as u64).collect();
        let grown = ensure_not_smaller(layout, &by_order, &sizes)?;
        let labeled: Vec<(DimName, u64)> = by_order.into_iter().zip(sizes).collect();
        ensure_not_larger(&grown, &labeled, true)
    }
}

/// Prints an encoding as Triton prints the attribute in TTGIR
/// (`#ttg.blocked<{sizePerThread = [1, 4], ...}>`); a parent is printed
/// inline. CTA placement appears only when there is more than one CTA.
impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn list<T: std::fmt::Display>(v: &[T]) -> String {
            format!(
                "[{}]",
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        fn bases(v: &[Vec<u32>]) -> String {
            format!(
                "[{}]",
                v.iter().map(|b| list(b)).collect::<Vec<_>>().join(", ")
            )
        }
        let cga = |c: &CgaLayout| {
            if c.num_ctas() > 1 {
                format!(", CGALayout = {}", bases(c.bases()))
            } else {
                String::new()
            }
        };
        let swizzle = |vec: u32, per_phase: u32, max_phase: u32, order: &[usize], c: &CgaLayout| {
            format!(
                "vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = {}{}",
                list(order),
                cga(c)
            )
        };
        let body = match self {
            Encoding::Blocked(b) => format!(
                "sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}",
                list(&b.size_per_thread),
                list(&b.threads_per_warp),
                list(&b.warps_per_cta),
                list(&b.order),
                cga(&b.cga)
            ),
            Encoding::SwizzledShared(s) => {
                swizzle(s.vec, s.per_phase, s.max_phase, &s.order, &s.cga)
            }
            Encoding::NvmmaShared(s) => format!(
                "swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}{}{}",
                s.swizzling_byte_width,
                s.transposed,
                s.element_bit_width,
                if s.fp4_padded {
                    ", fp4Padded = true"
                } else {
                    ""
                },
                cga(&s.cga)
            ),
            Encoding::NvidiaMma(m) => format!(
                "versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}",
                m.version_major,
                m.version_minor,
                list(&m.warps_per_cta),
                cga(&m.cga),
                list(&m.instr_shape)
            ),
            Encoding::AmdMfma(m) => {
                let mut s = format!(
                    "version = {}, warpsPerCTA = {}, instrShape = {}, isTransposed = {}",
                    m.version,
                    list(&m.warps_per_cta),
                    list(&m.instr_shape),
                    m.is_transposed
                );
                if !m.tiles_per_warp.is_empty() {
                    s += &format!(", tilesPerWarp = {}", list(&m.tiles_per_warp));
                }
                if m.element_bit_width != 0 {
                    s += &format!(", elementBitWidth = {}", m.element_bit_width);
                }
                s + &cga(&m.cga)
            }
            Encoding::AmdWmma(m) => {
                let mut s = format!("version = {}, isTranspose = {}", m.version, m.is_transposed);
                if let Some(t) = &m.cta_tiles {
                    s += &format!(
                        ", ctaLayout = {{register = {}, warp = {}}}",
                        bases(&t.register),
                        bases(&t.warp)
                    );
                } else {
                    s += &format!(", warpsPerCTA = {}", list(&m.warps_per_cta));
                }
                if !m.instr_shape.is_empty() {
                    s += &format!(", instrShape = {}", list(&m.instr_shape));
                }
                s + &cga(&m.cga)
            }
            Encoding::Slice(s) => format!("dim = {}, parent = {}", s.dim, s.parent),
            Encoding::DotOperand(d) => {
                let mut s = format!("opIdx = {}, parent = {}", d.op_idx, d.parent);
                if d.k_width != 0 {
                    s += &format!(", kWidth = {}", d.k_width);
                }
                s
            }
            Encoding::Linear(l) => format!(
                "register = {}, lane = {}, warp = {}, block = {}",
                bases(&l.register),
                bases(&l.lane),
                bases(&l.warp),
                bases(&l.block)
            ),
            Encoding::AmdRotatingShared(s) => {
                swizzle(s.vec, s.per_phase, s.max_phase, &s.order, &s.cga)
            }
            Encoding::SharedLinear(s) => {
                let block = if s.block.is_empty() {
                    String::new()
                } else {
                    format!(", block = {}", bases(&s.block))
                };
                return write!(
                    f,
                    "#ttg.shared_linear<{{offset = {}{block}}}, alignment = {}>",
                    bases(&s.offset),
                    s.alignment
                );
            }
            Encoding::PaddedShared(p) => {
                let pairs: Vec<String> = p
                    .intervals
                    .iter()
                    .map(|(i, q)| format!("{i}:+{q}"))
                    .collect();
                let dict = match &p.linear {
                    PaddedLinear::Identity { order, shape } => {
                        format!("order = {}, shape = {}", list(order), list(shape))
                    }
                    PaddedLinear::Bases { offset, block } => {
                        format!("offset = {}, block = {}", bases(offset), bases(block))
                    }
                };
                return write!(f, "#ttg.padded_shared<[{}] {{{dict}}}>", pairs.join(", "));
            }
            Encoding::PartitionedShared(p) => format!(
                "numPartitions = {}, numGroups = {}, partitionDim = {}, partitionLayout = {}",
                p.num_partitions, p.num_groups, p.partition_dim, p.inner
            ),
        };
        write!(f, "#ttg.{}<{{{body}}}>", self.kind())
    }
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
