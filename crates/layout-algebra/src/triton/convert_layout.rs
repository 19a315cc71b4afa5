//! What a `ttg.convert_layout` between two distributed layouts costs, as
//! Triton decides it.
//!
//! - [`minimal_conversion`]: `dst⁻¹∘src` with the trailing in-dims on which it
//!   is the identity removed (Triton's `minimalCvtLayout`). What is left
//!   decides the lowering: nothing (a no-op), only `register` (registers are
//!   renamed), `register` and `lane` (warp shuffles, when the permutation has
//!   fewer than two register/lane transpositions), anything else (a round
//!   trip through shared memory).
//! - [`mixed_transpositions`]: the register<->lane transpositions of the
//!   permutation a warp-shuffle lowering would emit (the cycle walk of
//!   Triton's `getWarpLayoutConvertDecomposition`).
//! - [`optimal_swizzling_ld_st`]: the shared-memory layout Triton chooses for
//!   the round trip (`optimalSwizzlingLdSt`, the Linear Layouts paper §5.4):
//!   vector bases common to both sides' registers, segment bases that keep
//!   the lanes of both accesses conflict-free where possible, bank bases for
//!   the rest, and `reps`: bases held in registers on both sides, which
//!   become rounds over a smaller buffer instead of more scratch.
//!
//! - [`optimal_swizzling`]: on NVIDIA, the same construction for every pair
//!   of store/load instructions the target has (`st.shared`, `stmatrix`,
//!   `stmatrix.trans` / `ld.shared`, `ldmatrix`, `ldmatrix.trans`), keeping
//!   the pair with the fewest conflicts.
//!
//! The scratch size is the swizzled layout's size over its rounds. The
//! conflicts of an ld/st.shared side are the bank model's count for the
//! access the lowering issues; for ldmatrix/stmatrix, Triton's per-phase
//! measure.

use crate::bank::{self, BankTarget, Instruction};
use crate::error::{LayoutError, Result};
use crate::f2;
use crate::linear::{DimName, LinearLayout};
use crate::machine::{ConversionSwizzle, SharedInstructions};

const REGISTER: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";
const BLOCK: &str = "block";
const VECTOR: &str = "vector";
const BANK: &str = "bank";
const SEGMENT: &str = "segment";
const REPS: &str = "reps";

/// How Triton lowers a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionKind {
    /// Every thread already holds the right values in the right registers.
    Noop,
    /// Each thread keeps its values; only their register order changes.
    Register,
    /// Values move between the lanes of a warp with `shfl.sync`.
    Shuffle,
    /// Values go through shared memory (a store, a barrier and a load).
    Shared,
}

impl ConversionKind {
    pub fn name(self) -> &'static str {
        match self {
            ConversionKind::Noop => "noop",
            ConversionKind::Register => "register",
            ConversionKind::Shuffle => "shuffle",
            ConversionKind::Shared => "shared",
        }
    }
}

/// The shared-memory round trip of a conversion.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedRoundTrip {
    /// The swizzled layout: in-dims `vector`, `bank`, `segment`, `block`,
    /// `reps` -> the tensor's dims.
    pub layout: LinearLayout,
    /// Rounds (store, barrier, load) over one buffer.
    pub rounds: u64,
    /// Elements of the buffer (per CTA).
    pub scratch_elements: u64,
    pub scratch_bytes: u64,
    /// Extra wavefronts per wavefront of the load of `dst` / the store of
    /// `src` (0 = conflict-free): the bank model's count for ld/st.shared,
    /// Triton's per-phase measure for ldmatrix/stmatrix.
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    /// The instructions that store `src` and load `dst` (of any width:
    /// the kind Triton's swizzle search pairs them by).
    pub store: Instruction,
    pub load: Instruction,
    /// The loads read other CTAs of the cluster (`ld.shared::cluster`).
    pub remote_load: bool,
}

/// The analysis of one conversion.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Conversion {
    pub kind: ConversionKind,
    /// `dst⁻¹∘src` without the trailing in-dims it is trivial over.
    pub minimal: LinearLayout,
    /// Register<->lane transpositions of the warp permutation, when only
    /// registers and lanes move.
    pub mixed_transpositions: Option<usize>,
    /// Present when the conversion goes through shared memory.
    pub shared: Option<SharedRoundTrip>,
}

/// Analyses the conversion of a tensor held in `src` to `dst` (both
/// `register`, `lane`, `warp`[, `block`] -> the same tensor dims) with
/// `element_bits`-bit elements.
pub fn analyse_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    element_bits: u32,
    target: &BankTarget,
    instructions: SharedInstructions,
) -> Result<Conversion> {
    check_distributed("source", src)?;
    check_distributed("destination", dst)?;
    if src.out_dims() != dst.out_dims() {
        return Err(LayoutError::mismatch(
            "convert",
            format!(
                "the two layouts must cover the same tensor, but have out-dims [{}] and [{}]",
                describe_outs(src),
                describe_outs(dst)
            ),
        ));
    }
    if !(8..=64).contains(&element_bits) || !element_bits.is_power_of_two() {
        return Err(LayoutError::invalid(
            "element width",
            format!("{element_bits} bits; a conversion moves 8-, 16-, 32- or 64-bit elements"),
        ));
    }
    if src.in_dim_size(LANE) != dst.in_dim_size(LANE)
        || src.in_dim_size(WARP) != dst.in_dim_size(WARP)
    {
        return Err(LayoutError::mismatch(
            "convert",
            format!(
                "both layouts must run on the same threads, but have {}x{} and {}x{} lanes x warps",
                src.in_dim_size(LANE),
                src.in_dim_size(WARP),
                dst.in_dim_size(LANE),
                dst.in_dim_size(WARP)
            ),
        ));
    }
    let minimal = minimal_conversion(src, dst)?;
    let mut mixed = None;
    let kind = if src == dst {
        ConversionKind::Noop
    } else if renames_registers(src, dst)? {
        ConversionKind::Register
    } else if stays_in_warp(src, dst)? {
        mixed = mixed_transpositions(src, dst)?;
        match mixed {
            Some(m) if m < 2 => ConversionKind::Shuffle,
            _ => ConversionKind::Shared,
        }
    } else {
        ConversionKind::Shared
    };
    let shared = match kind {
        // Across the CTAs of a cluster each thread loads from the CTA that
        // holds its elements (`mapa`, `ld.shared::cluster`): ldmatrix cannot
        // read another CTA's shared memory, the stores stay local.
        ConversionKind::Shared if crosses_ctas(src, dst)? => {
            let local_stores = SharedInstructions {
                ldmatrix: false,
                ..instructions
            };
            let mut trip = shared_round_trip(src, dst, element_bits, target, local_stores)?;
            trip.remote_load = true;
            Some(trip)
        }
        ConversionKind::Shared => Some(shared_round_trip(
            src,
            dst,
            element_bits,
            target,
            instructions,
        )?),
        _ => None,
    };
    Ok(Conversion {
        kind,
        minimal,
        mixed_transpositions: mixed,
        shared,
    })
}

fn check_distributed(which: &str, layout: &LinearLayout) -> Result<()> {
    let ins: Vec<&str> = layout.in_dim_names().map(|n| n.as_str()).collect();
    let ok = matches!(
        ins.as_slice(),
        [REGISTER, LANE, WARP] | [REGISTER, LANE, WARP, BLOCK]
    );
    if !ok {
        return Err(LayoutError::invalid(
            format!("{which} layout"),
            format!(
                "a conversion needs distributed layouts with in-dims register, lane, warp[, block], not [{}]",
                ins.join(", ")
            ),
        ));
    }
    if !layout.is_surjective() {
        return Err(LayoutError::invalid(
            format!("{which} layout"),
            "does not cover every element of the tensor",
        ));
    }
    Ok(())
}

fn describe_outs(layout: &LinearLayout) -> String {
    layout
        .out_dims()
        .iter()
        .map(|(n, s)| format!("{n}: {s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `src⁻¹∘dst` (where the source holds what each destination slot needs),
/// quotiented by the trailing in-dims the two layouts share
/// (block, then warp, lane, register) as long as it is the identity on them
/// (Triton's `minimalCvtLayout`).
pub fn minimal_conversion(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let src_ins: Vec<DimName> = src.in_dim_names().cloned().collect();
    let dst_ins: Vec<DimName> = dst.in_dim_names().cloned().collect();
    let common: Vec<DimName> = src_ins
        .iter()
        .rev()
        .zip(dst_ins.iter().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.clone())
        .collect();
    let mut comp = dst.invert_and_compose(src)?;
    for dim in common {
        match comp.quotient(std::slice::from_ref(&dim))? {
            Some(q) => comp = q,
            None => break,
        }
    }
    Ok(comp)
}

/// Does every thread already hold the values it needs, in registers whose
/// index does not depend on the thread? Then the conversion only renames
/// registers: lanes, warps and blocks map as before, and the destination's
/// registers lie in the span of the source's.
fn renames_registers(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let (s, d) = (src.flatten_outs()?, dst.flatten_outs()?);
    for dim in [LANE, WARP, BLOCK] {
        if flat_bases(&s, dim)? != flat_bases(&d, dim)? {
            return Ok(false);
        }
    }
    let regs = f2::span_of(&[flat_bases(&s, REGISTER)?]);
    Ok(flat_bases(&d, REGISTER)?.iter().all(|&w| regs.contains(w)))
}

/// Does every warp already hold the values it needs? The destination's
/// register and lane bases must lie in the span of the source's, and each
/// warp (and block) basis may differ between the two only by source lanes:
/// a source broadcast over warps then serves each warp locally, the source
/// lane of a shuffle depending on the warp. (A difference in registers
/// would need a register index that depends on the warp, which the
/// shuffle lowering cannot express.)
fn stays_in_warp(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let (s, d) = (src.flatten_outs()?, dst.flatten_outs()?);
    let threads = f2::span_of(&[flat_bases(&s, REGISTER)?, flat_bases(&s, LANE)?]);
    for dim in [REGISTER, LANE] {
        if !flat_bases(&d, dim)?.iter().all(|&w| threads.contains(w)) {
            return Ok(false);
        }
    }
    let lanes = f2::span_of(&[flat_bases(&s, LANE)?]);
    for dim in [WARP, BLOCK] {
        let (sv, dv) = (flat_bases(&s, dim)?, flat_bases(&d, dim)?);
        if sv.len() != dv.len() || sv.iter().zip(&dv).any(|(a, b)| !lanes.contains(a ^ b)) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Flat (single out-dim) basis words of one in-dim; empty when absent.
fn flat_bases(flat: &LinearLayout, dim: &str) -> Result<Vec<u64>> {
    if !flat.has_in_dim(dim) {
        return Ok(Vec::new());
    }
    Ok(flat.packed_bases(dim)?.to_vec())
}

/// Drops register bases that are zero (Triton's
/// `actionRemoveBroadcastedRegs`): a register that repeats another's value
/// is never stored twice.
fn without_broadcast_registers(layout: &LinearLayout) -> Result<LinearLayout> {
    layout.retain_bases(REGISTER, |_, v| v.iter().any(|&x| x != 0))
}

/// The number of register<->lane transpositions in the permutation of
/// register and lane bits that turns `src` into `dst` within a warp, as
/// Triton's `getWarpLayoutConvertDecomposition` factors it; `None` when the
/// two do not differ by such a permutation.
pub fn mixed_transpositions(src: &LinearLayout, dst: &LinearLayout) -> Result<Option<usize>> {
    let src = without_broadcast_registers(src)?;
    let dst = without_broadcast_registers(dst)?;
    let n_reg = src
        .in_dim_size_log2(REGISTER)
        .max(dst.in_dim_size_log2(REGISTER)) as usize;
    let n_lane = src.in_dim_size_log2(LANE).max(dst.in_dim_size_log2(LANE)) as usize;
    let outs: Vec<DimName> = src.out_dim_names().cloned().collect();
    let reg_lane = [DimName::from(REGISTER), DimName::from(LANE)];
    // Both layouts restricted to registers and lanes, padded with zero bases
    // to the same number of each.
    let padded = |l: &LinearLayout| -> Result<LinearLayout> {
        let sub = l.sublayout(&reg_lane, &outs)?;
        let mut bases = sub.bases();
        for (name, list) in bases.iter_mut() {
            let want = if name == REGISTER { n_reg } else { n_lane };
            list.resize(want, vec![0; outs.len()]);
        }
        LinearLayout::from_unpacked(bases, sub.out_dims())
    };
    let s = padded(&src)?;
    let t = padded(&dst)?;
    // The permutation as a map on flat indices: register i -> i, lane j ->
    // n_reg + j. Out-dims of an invert_and_compose here are register then
    // lane, packed in that order, so a set bit is already a flat index.
    let flat_index = |dim: &str, i: usize| if dim == REGISTER { i } else { n_reg + i };
    let total = n_reg + n_lane;
    let mut next: Vec<Option<usize>> = vec![None; total];
    let one_hot = |w: u64| (w.count_ones() == 1).then(|| w.trailing_zeros() as usize);
    if let Ok(p) = s.invert_and_compose(&t) {
        // Where each source slot's value goes.
        for dim in [REGISTER, LANE] {
            for (i, &w) in p.packed_bases(dim)?.iter().enumerate() {
                if w != 0 {
                    let Some(to) = one_hot(w) else {
                        return Ok(None);
                    };
                    next[flat_index(dim, i)] = Some(to);
                }
            }
        }
    } else if let Ok(q) = t.invert_and_compose(&s) {
        // The source holds more than this warp's destination needs (it is
        // broadcast over warps): follow where each destination slot's value
        // comes from instead.
        for dim in [REGISTER, LANE] {
            for (j, &w) in q.packed_bases(dim)?.iter().enumerate() {
                if w != 0 {
                    let Some(from) = one_hot(w) else {
                        return Ok(None);
                    };
                    if next[from].is_some() {
                        return Ok(None);
                    }
                    next[from] = Some(flat_index(dim, j));
                }
            }
        }
    } else {
        return Ok(None);
    }
    // Slots that are zero on both sides stay put; the remaining free source
    // slots take the unused destination slots in order (Triton pairs the
    // zero bases of the two sides the same way).
    let s_flat = s.flatten_outs()?;
    let t_flat = t.flatten_outs()?;
    for dim in [REGISTER, LANE] {
        let sv = s_flat.packed_bases(dim)?;
        let tv = t_flat.packed_bases(dim)?;
        for i in 0..sv.len() {
            if sv[i] == 0 && tv[i] == 0 {
                next[flat_index(dim, i)] = Some(flat_index(dim, i));
            }
        }
    }
    let used: Vec<usize> = next.iter().flatten().copied().collect();
    let mut unused_targets = (0..total).filter(|j| !used.contains(j));
    for slot in next.iter_mut().filter(|n| n.is_none()) {
        *slot = unused_targets.next();
    }
    let Some(next): Option<Vec<usize>> = next.into_iter().collect() else {
        return Ok(None);
    };
    let mut seen = vec![false; total];
    for &t in &next {
        if seen[t] {
            return Ok(None); // not a permutation
        }
        seen[t] = true;
    }
    // Walk each cycle; every run r_m -> l_j ... l_k -> r_i is one
    // transposition (r_i l_j).
    let is_reg = |i: usize| i < n_reg;
    let mut visited = vec![false; total];
    let mut count = 0;
    for start in 0..total {
        if visited[start] {
            continue;
        }
        let mut in_lane_run = false;
        let mut cur = start;
        loop {
            visited[cur] = true;
            let nxt = next[cur];
            if is_reg(cur) && !is_reg(nxt) {
                in_lane_run = true;
            } else if !is_reg(cur) && is_reg(nxt) && in_lane_run {
                count += 1;
                in_lane_run = false;
            }
            cur = nxt;
            if cur == start {
                break;
            }
        }
    }
    Ok(Some(count))
}

// ----- the optimal swizzle (Triton's GenericSwizzling) -------------------

/// Sorted, deduplicated, without zero.
fn as_set(words: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut v: Vec<u64> = words.into_iter().filter(|w| *w != 0).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The segment bases (Triton's `computeSegment`): first unit vectors
/// touched by neither side's bank tile; then `a ^ b` pairs, which keep both
/// sides conflict-free; only then raw bases of one side, which accept
/// conflicts split between the two.
fn compute_segment(
    bank_src: &[u64],
    bank_dst: &[u64],
    block: &[u64],
    rank: u32,
    len: usize,
) -> Vec<u64> {
    let set_src = as_set(bank_src.iter().chain(block).copied());
    let set_dst = as_set(bank_dst.iter().chain(block).copied());
    let mut segment: Vec<u64> = (0..rank)
        .map(|b| 1u64 << b)
        .filter(|u| !set_src.contains(u) && !set_dst.contains(u))
        .collect();
    if segment.len() >= len {
        segment.truncate(len);
        return segment;
    }
    let mut a: Vec<u64> = set_src
        .iter()
        .copied()
        .filter(|v| !set_dst.contains(v))
        .collect();
    let mut b: Vec<u64> = set_dst
        .iter()
        .copied()
        .filter(|v| !set_src.contains(v))
        .collect();
    if a.len() > b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    let log_conflicts =
        (len as i64 - a.len() as i64 - segment.len() as i64).clamp(0, a.len() as i64) as usize;
    for i in log_conflicts..a.len() {
        segment.push(a[i] ^ b[i]);
    }
    segment.extend_from_slice(&a[..log_conflicts]);
    segment.extend_from_slice(&b[..log_conflicts]);
    segment.truncate(len);
    segment
}

/// The vector bases of the swizzle and, when both sides could fill the
/// first bank, whether the source did (Triton's `getVecBasisLdSt`).
fn vector_bases(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
) -> Result<(Vec<u64>, Option<bool>)> {
    let reg_src = flat_bases(src, REGISTER)?;
    let reg_dst = flat_bases(dst, REGISTER)?;
    let block_src = flat_bases(src, BLOCK)?;
    let rank = src.total_out_bits();
    let mut vbasis = f2::intersection_basis(&reg_src, &reg_dst, rank);
    let max_vec = (128 / bits).trailing_zeros() as usize;
    vbasis.truncate(max_vec);
    let mut src_fills_bank = None;
    if (1u64 << vbasis.len()) * (bits as u64) < 32 {
        let per_bank = (32 / bits).trailing_zeros() as usize;
        let nonzero = |v: Vec<u64>| v.into_iter().filter(|w| *w != 0).collect::<Vec<_>>();
        let warp_src = nonzero(flat_bases(src, WARP)?);
        let warp_dst = nonzero(flat_bases(dst, WARP)?);
        let not_in_vec = |regs: &[u64], vb: &[u64]| {
            regs.iter()
                .copied()
                .filter(|r| !vb.contains(r))
                .collect::<Vec<_>>()
        };
        let reg_src_warp = f2::intersection_basis(&not_in_vec(&reg_src, &vbasis), &warp_dst, rank);
        let reg_dst_warp = f2::intersection_basis(&not_in_vec(&reg_dst, &vbasis), &warp_src, rank);
        let largest = if reg_src_warp.len() == reg_dst_warp.len() && !reg_src_warp.is_empty() {
            let src_lower = reg_src_warp.iter().min() < reg_dst_warp.iter().min();
            src_fills_bank = Some(src_lower);
            if src_lower {
                reg_src_warp
            } else {
                reg_dst_warp
            }
        } else {
            let src_more = reg_src_warp.len() > reg_dst_warp.len();
            src_fills_bank = Some(src_more);
            if src_more { reg_src_warp } else { reg_dst_warp }
        };
        vbasis.extend(largest);
        if vbasis.len() < per_bank {
            vbasis.extend(f2::intersection_basis(&warp_src, &warp_dst, rank));
        }
        let mut i = 0;
        while vbasis.len() < per_bank && (i < warp_src.len() || i < warp_dst.len()) {
            if i < warp_src.len() && !vbasis.contains(&warp_src[i]) {
                vbasis.push(warp_src[i]);
            }
            if vbasis.len() < per_bank
                && i < warp_dst.len()
                && !vbasis.contains(&warp_dst[i])
                && !block_src.contains(&warp_dst[i])
            {
                vbasis.push(warp_dst[i]);
            }
            i += 1;
        }
        vbasis.truncate(per_bank);
    }
    Ok((vbasis, src_fills_bank))
}

/// The lane bases one `ld.shared`/`st.shared` phase covers: all but the top
/// ones when a wide vector splits the warp into phases.
fn phase_lanes(lanes: &[u64], vec_elems: u64, bits: u32, banks: u32) -> Vec<u64> {
    let log2_vec = ((vec_elems * bits as u64) / 32).max(1).trailing_zeros() as usize;
    let log2_banks = banks.trailing_zeros() as usize;
    let log2_phase = (log2_vec + lanes.len()).saturating_sub(log2_banks);
    lanes[..lanes.len().saturating_sub(log2_phase)].to_vec()
}

/// The lanes one phase of each side serves with plain loads and stores
/// (`getLaneTile`): the first lanes that fill the banks, except a 128-bit
/// load on a machine that names its lane groups (`b128_load_lanes`, AMD's
/// `ds_read_b128`) — as many lanes as a phase holds; a machine whose named
/// groups do not fit its lanes and banks takes the first lanes.
fn ld_st_tiles(
    src_flat: &LinearLayout,
    dst_flat: &LinearLayout,
    vec_elems: u64,
    bits: u32,
    banks: u32,
    b128_load_lanes: &[usize],
) -> Result<(Vec<u64>, Vec<u64>)> {
    let lane_src = flat_bases(src_flat, LANE)?;
    let lane_dst = flat_bases(dst_flat, LANE)?;
    let tile_src = phase_lanes(&lane_src, vec_elems, bits, banks);
    let first = phase_lanes(&lane_dst, vec_elems, bits, banks);
    let named = vec_elems * bits as u64 == 128
        && b128_load_lanes.len() == first.len()
        && b128_load_lanes.iter().all(|&i| i < lane_dst.len());
    let tile_dst = if named {
        b128_load_lanes.iter().map(|&i| lane_dst[i]).collect()
    } else {
        first
    };
    Ok((tile_src, tile_dst))
}

fn flat_layout(dims: Vec<(&str, Vec<u64>)>, rank: u32) -> Result<LinearLayout> {
    LinearLayout::from_bases_with_sizes(
        dims.into_iter()
            .map(|(n, ws)| (n, ws.into_iter().map(|w| vec![w as i64]).collect()))
            .collect(),
        vec![(DimName::from("flat"), 1i64 << rank)],
        true,
    )
}

const MATRIX: Instruction = Instruction::Matrix {
    count: 4,
    trans: false,
};
const MATRIX_TRANS: Instruction = Instruction::Matrix {
    count: 4,
    trans: true,
};

/// The instructions that may store the source and load the destination
/// (Triton's `getSrcDstTiles`).
fn src_dst_tiles(
    instructions: SharedInstructions,
    bits: u32,
) -> (Vec<Instruction>, Vec<Instruction>) {
    let mut src = vec![Instruction::LD_ST];
    let mut dst = vec![Instruction::LD_ST];
    if bits <= 32 {
        if instructions.stmatrix {
            src.push(MATRIX);
        }
        if instructions.ldmatrix {
            dst.push(MATRIX);
        }
    }
    if bits == 16 {
        if instructions.stmatrix {
            src.push(MATRIX_TRANS);
        }
        if instructions.ldmatrix {
            dst.push(MATRIX_TRANS);
        }
    }
    (src, dst)
}

/// The flat bases of a swizzle, one list per in-dim.
struct SwizzleBases {
    vector: Vec<u64>,
    bank: Vec<u64>,
    segment: Vec<u64>,
    block: Vec<u64>,
    reps: Vec<u64>,
}

/// Builds the swizzle from its vector bases and the lane bases of one phase
/// of each access (Triton's tile-level `optimalSwizzling` and `buildReps`).
/// The result is flat: in-dims `vector`, `bank`, `segment`, `block`, `reps`.
#[allow(clippy::too_many_arguments)]
fn swizzle_from_tiles(
    src_flat: &LinearLayout,
    dst_flat: &LinearLayout,
    bits: u32,
    vbasis: &[u64],
    tile_src: &[u64],
    tile_dst: &[u64],
    mut leave_reps: usize,
    banks: u32,
) -> Result<SwizzleBases> {
    let rank = src_flat.total_out_bits();
    let block = flat_bases(src_flat, BLOCK)?;
    let reg_src = flat_bases(src_flat, REGISTER)?;
    let reg_dst = flat_bases(dst_flat, REGISTER)?;
    let nonzero_block: Vec<u64> = block.iter().copied().filter(|w| *w != 0).collect();
    let bank_src: Vec<u64> = vbasis.iter().chain(tile_src).copied().collect();
    let bank_dst: Vec<u64> = vbasis.iter().chain(tile_dst).copied().collect();
    let vec_bits = (1u64 << vbasis.len()) * bits as u64;
    let fixed = vbasis.len() + nonzero_block.len();
    let len_bank = (((banks as u64 * 32) / vec_bits).max(1).trailing_zeros() as usize)
        .min((rank as usize).saturating_sub(fixed));
    let len_segment = (rank as usize).saturating_sub(len_bank + fixed);
    let segment = compute_segment(&bank_src, &bank_dst, &nonzero_block, rank, len_segment);
    let union: Vec<u64> = vbasis
        .iter()
        .chain(&segment)
        .chain(&nonzero_block)
        .copied()
        .collect();
    let bank_bases = f2::complement_basis(&union, rank);
    // Rounds: segment bases held in registers on both sides, except the
    // first `leave_reps`, which ldmatrix/stmatrix need to vectorise.
    let mut kept = Vec::new();
    let mut reps = Vec::new();
    for s in segment {
        if reg_src.contains(&s) && reg_dst.contains(&s) {
            if leave_reps > 0 {
                leave_reps -= 1;
                kept.push(s);
            } else {
                reps.push(s);
            }
        } else {
            kept.push(s);
        }
    }
    Ok(SwizzleBases {
        vector: vbasis.to_vec(),
        bank: bank_bases,
        segment: kept,
        block,
        reps,
    })
}

fn assemble(parts: SwizzleBases, rank: u32, outs: &[(DimName, u64)]) -> Result<LinearLayout> {
    let SwizzleBases {
        vector,
        bank,
        segment,
        block,
        reps,
    } = parts;
    flat_layout(
        vec![
            (VECTOR, vector),
            (BANK, bank),
            (SEGMENT, segment),
            (BLOCK, block),
            (REPS, reps),
        ],
        rank,
    )?
    .reshape_outs(outs)
}

/// The shared layout Triton picks for a conversion through shared memory
/// with `ld.shared`/`st.shared` only (`optimalSwizzlingLdSt`). `src` and
/// `dst` must have no zero register bases. `b128_load_lanes`: the lane-id
/// bits one phase of a 128-bit load serves, where the machine names them
/// (AMD's `ds_read_b128`, [`ConversionSwizzle::LdSt`]); empty, the first
/// lanes that fill the banks. In-dims: `vector`, `bank`, `segment`,
/// `block`, `reps`; out-dims: the tensor's.
pub fn optimal_swizzling_ld_st(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    banks: u32,
    b128_load_lanes: &[usize],
) -> Result<LinearLayout> {
    let src_flat = src.flatten_outs()?;
    let dst_flat = dst.flatten_outs()?;
    let rank = src_flat.total_out_bits();
    let reg_src = flat_bases(&src_flat, REGISTER)?;
    let reg_dst = flat_bases(&dst_flat, REGISTER)?;
    let (vbasis, src_fills_bank) = vector_bases(&src_flat, &dst_flat, bits)?;
    let vec_elems = 1u64 << vbasis.len();
    let (tile_src, tile_dst) = ld_st_tiles(
        &src_flat,
        &dst_flat,
        vec_elems,
        bits,
        banks,
        b128_load_lanes,
    )?;
    let mut parts = swizzle_from_tiles(
        &src_flat, &dst_flat, bits, &vbasis, &tile_src, &tile_dst, 0, banks,
    )?;

    // Narrow vectors: put the bank bases that are registers of the side that
    // filled the first bank (or of the side with more of them) first, so
    // that side can still vectorise across banks. Triton 3.9 does this only
    // where there are at most 32 banks (`optimalSwizzlingLdSt`'s
    // `log2Vec < 2` reorder, restricted to `numBanks <= 32` by Triton PR
    // 11169): on gfx950's 64 banks the register bases stay on the high bank
    // bits, and the compiled kernel stores with strided `ds_write2_b32`
    // where gfx942's has `ds_write_b128`.
    let log2_vec = ((vec_elems * bits as u64) / 32).max(1).trailing_zeros();
    if log2_vec < 2 && banks <= 32 {
        let bank_bases = &parts.bank;
        let in_src: Vec<usize> = (0..bank_bases.len())
            .filter(|&i| reg_src.contains(&bank_bases[i]))
            .collect();
        let in_dst: Vec<usize> = (0..bank_bases.len())
            .filter(|&i| reg_dst.contains(&bank_bases[i]))
            .collect();
        let mut order = match src_fills_bank {
            Some(true) => in_src,
            Some(false) => in_dst,
            None if in_src.len() > in_dst.len() => in_src,
            None => in_dst,
        };
        for i in 0..bank_bases.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        parts.bank = order.iter().map(|&i| bank_bases[i]).collect();
    }
    assemble(parts, rank, &src.out_dims())
}

/// The common vector of a pair of instructions, and the lanes of one of
/// their tiles (Triton's `optimalSwizzlingTile`): `None` when the two
/// instructions cannot share a swizzle.
fn tile_vector(
    a: &LinearLayout,
    b: &LinearLayout,
    n_reg_a: usize,
    n_reg_b: usize,
    lanes_a: &[usize],
    lanes_b: &[usize],
) -> Result<Option<Vec<u64>>> {
    if n_reg_a < n_reg_b {
        return tile_vector(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a);
    }
    let rank = a.total_out_bits();
    // b's in-dims in terms of a's.
    let Ok(cvt) = b.invert_and_compose(a) else {
        return Ok(None);
    };
    let out_index = |name: &str| cvt.out_dim_names().position(|n| n == name);
    let (Some(reg_out), Some(lane_out)) = (out_index(REGISTER), out_index(LANE)) else {
        return Ok(None);
    };
    let reg_a = flat_bases(a, REGISTER)?;
    let reg_b = flat_bases(b, REGISTER)?;
    let lane_a = flat_bases(a, LANE)?;
    let lane_b = flat_bases(b, LANE)?;
    let mut vbasis = f2::intersection_basis(&reg_a, &reg_b, rank);
    if vbasis.len() < n_reg_b {
        return Ok(None);
    }
    vbasis.truncate(n_reg_b);
    let pick = |lanes: &[u64], ids: &[usize]| -> Option<Vec<u64>> {
        ids.iter().map(|&i| lanes.get(i).copied()).collect()
    };
    let (Some(tile_a), Some(tile_b)) = (pick(&lane_a, lanes_a), pick(&lane_b, lanes_b)) else {
        return Ok(None);
    };
    if tile_a.contains(&0) || tile_b.contains(&0) {
        return Ok(None);
    }
    // b's first lanes must land in a's registers ...
    for &idx in &lanes_b[..n_reg_a - n_reg_b] {
        if cvt.basis(LANE, idx)?[reg_out] == 0 {
            return Ok(None);
        }
    }
    // ... and the rest on a's lanes, one to one.
    for (&ia, &ib) in lanes_a
        .iter()
        .zip(&lanes_b[lanes_b.len() - lanes_a.len()..])
    {
        if cvt.basis(LANE, ib)?[lane_out] != 1 << ia {
            return Ok(None);
        }
    }
    vbasis.extend(tile_b);
    Ok(Some(vbasis))
}

/// One phase of an instruction: the first `3 - addr` registers outside the
/// vector, then the addressing lanes.
fn instruction_tile(
    instruction: Instruction,
    regs: &[u64],
    lanes: &[u64],
    vbasis: &[u64],
) -> Option<Vec<u64>> {
    let tile = instruction.lane_tile();
    let needed = 3 - tile.addressing.len();
    let mut out: Vec<u64> = regs
        .iter()
        .copied()
        .filter(|r| !vbasis.contains(r))
        .take(needed)
        .collect();
    if out.len() < needed {
        return None;
    }
    for &i in tile.addressing {
        out.push(*lanes.get(i)?);
    }
    Some(out)
}

/// The swizzle Triton chooses, with the instructions it pairs and their
/// conflicts (Triton's `optimalSwizzling` over the instruction tiles).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChosenSwizzle {
    pub layout: LinearLayout,
    pub store: Instruction,
    pub load: Instruction,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
}

/// The swizzle for a conversion through shared memory as Triton picks it on
/// the machine (`instructions.swizzle`): on NVIDIA trying every pair of
/// store and load instructions the target has and keeping the one with the
/// fewest conflicts (ties: the most rounds, i.e. the smallest buffer); on
/// AMD the ld/st-only swizzle with the machine's 128-bit load lane groups.
/// `src` and `dst` must have no zero register bases.
pub fn optimal_swizzling(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    instructions: SharedInstructions,
    banks: u32,
) -> Result<ChosenSwizzle> {
    if let ConversionSwizzle::LdSt { b128_load_lanes } = instructions.swizzle {
        return ld_st_swizzle(src, dst, bits, banks, b128_load_lanes);
    }
    let src_flat = src.flatten_outs()?;
    let dst_flat = dst.flatten_outs()?;
    let rank = src_flat.total_out_bits();
    let total_bases = (128 / bits).trailing_zeros() as usize;
    let (src_tiles, dst_tiles) = src_dst_tiles(instructions, bits);
    let reg_src = flat_bases(&src_flat, REGISTER)?;
    let reg_dst = flat_bases(&dst_flat, REGISTER)?;
    let lane_src = flat_bases(&src_flat, LANE)?;
    let lane_dst = flat_bases(&dst_flat, LANE)?;
    let mut best: Option<(u64, u64, ChosenSwizzle)> = None;
    for &st in &src_tiles {
        for &ld in &dst_tiles {
            let (st_tile, ld_tile) = (st.lane_tile(), ld.lane_tile());
            let Some(vbasis) = tile_vector(
                &src_flat,
                &dst_flat,
                total_bases - st_tile.contiguous.len(),
                total_bases - ld_tile.contiguous.len(),
                st_tile.contiguous,
                ld_tile.contiguous,
            )?
            else {
                continue;
            };
            let (Some(tile_src), Some(tile_dst)) = (
                instruction_tile(st, &reg_src, &lane_src, &vbasis),
                instruction_tile(ld, &reg_dst, &lane_dst, &vbasis),
            ) else {
                continue;
            };
            let missing = |t: bank::LaneTile| t.contiguous.len() + t.addressing.len() - 3;
            let leave = missing(st_tile).min(missing(ld_tile));
            let parts = swizzle_from_tiles(
                &src_flat, &dst_flat, bits, &vbasis, &tile_src, &tile_dst, leave, banks,
            )?;
            let read = f2::conflict_ways(&tile_dst, &parts.segment);
            let write = f2::conflict_ways(&tile_src, &parts.segment);
            let rounds = 1u64 << parts.reps.len();
            let better = match &best {
                None => true,
                Some((c, r, _)) => read + write < *c || (read + write == *c && rounds > *r),
            };
            if better {
                let layout = assemble(parts, rank, &src.out_dims())?;
                best = Some((
                    read + write,
                    rounds,
                    ChosenSwizzle {
                        layout,
                        store: st,
                        load: ld,
                        read_conflicts: read,
                        write_conflicts: write,
                    },
                ));
            }
        }
    }
    if let Some((_, _, chosen)) = best {
        return Ok(chosen);
    }
    // No pair can use 128-bit accesses: plain ld/st with Triton's
    // ld/st-only swizzle, whose conflicts its own formula gives.
    ld_st_swizzle(src, dst, bits, banks, &[])
}

/// Triton's ld/st-only swizzle as a choice, with the conflicts its own
/// formula gives.
fn ld_st_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    banks: u32,
    b128_load_lanes: &[usize],
) -> Result<ChosenSwizzle> {
    let layout = optimal_swizzling_ld_st(src, dst, bits, banks, b128_load_lanes)?;
    let flat = layout.flatten_outs()?;
    let vec_elems = flat.in_dim_size(VECTOR);
    let segment = flat_bases(&flat, SEGMENT)?;
    let (tile_src, tile_dst) = ld_st_tiles(
        &src.flatten_outs()?,
        &dst.flatten_outs()?,
        vec_elems,
        bits,
        banks,
        b128_load_lanes,
    )?;
    Ok(ChosenSwizzle {
        layout,
        store: Instruction::LD_ST,
        load: Instruction::LD_ST,
        read_conflicts: f2::conflict_ways(&tile_dst, &segment),
        write_conflicts: f2::conflict_ways(&tile_src, &segment),
    })
}

/// The round trip through shared memory: Triton's swizzle, the scratch it
/// needs and the conflicts of the store and the load.
/// Elements of the scratch buffer Triton allocates for a conversion through
/// shared memory with its generic swizzle (`getNumScratchElemsSwizzledCvt`):
/// the swizzled layout's elements per round, without CTA copies.
pub fn swizzled_scratch_elements(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    instructions: SharedInstructions,
    banks: u32,
) -> Result<u64> {
    let src = without_broadcast_registers(src)?;
    let dst = without_broadcast_registers(dst)?;
    let chosen = optimal_swizzling(&src, &dst, bits, instructions, banks)?;
    let rounds = chosen.layout.in_dim_size(REPS);
    let blocks = 1u64 << f2::rank(flat_bases(&src.flatten_outs()?, BLOCK)?);
    Ok(chosen.layout.total_out_size() / (rounds * blocks))
}

fn shared_round_trip(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    target: &BankTarget,
    instructions: SharedInstructions,
) -> Result<SharedRoundTrip> {
    let src = without_broadcast_registers(src)?;
    let dst = without_broadcast_registers(dst)?;
    let chosen = optimal_swizzling(&src, &dst, bits, instructions, target.banks)?;
    let rounds = chosen.layout.in_dim_size(REPS);
    let blocks = 1u64 << f2::rank(flat_bases(&src.flatten_outs()?, BLOCK)?);
    let scratch_elements = chosen.layout.total_out_size() / (rounds * blocks);
    // ld/st.shared sides: the bank model's count for the access the
    // lowering issues (the widest vectorisation into the buffer). It also
    // sees conflicts Triton's per-phase measure misses: below 32 bits per
    // access, lanes that differ in a sub-word bit and a segment bit hit
    // different words of one bank.
    let buffer = as_offset_layout(&chosen.layout)?;
    let physical = |side: &LinearLayout,
                    triton: u64,
                    instruction: Instruction,
                    direction: bank::Direction|
     -> Result<u64> {
        if !matches!(instruction, Instruction::LdSt { .. }) {
            return Ok(triton);
        }
        let (vec, _) = bank::largest_vectorisation(side, &buffer, bits)?;
        let access = bank::Access {
            distributed: side,
            shared: &buffer,
            element_bits: bits,
            instruction: bank::Instruction::LdSt {
                bits: vec as u32 * bits,
            },
            direction,
        };
        let w = bank::wavefronts_by_rank(&access, target)?;
        Ok((w.wavefronts / w.ideal.max(1)).saturating_sub(1))
    };
    Ok(SharedRoundTrip {
        rounds,
        scratch_elements,
        scratch_bytes: scratch_elements * bits as u64 / 8,
        read_conflicts: physical(
            &dst,
            chosen.read_conflicts,
            chosen.load,
            bank::Direction::Load,
        )?,
        write_conflicts: physical(
            &src,
            chosen.write_conflicts,
            chosen.store,
            bank::Direction::Store,
        )?,
        store: chosen.store,
        load: chosen.load,
        remote_load: false,
        layout: chosen.layout,
    })
}

/// Whether the conversion moves elements between CTAs: the two layouts
/// place the tensor on the CTAs of a cluster differently (Triton's
/// `shouldUseDistSmem`: more than one CTA, and different CTA layouts).
fn crosses_ctas(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let blocks = |l: &LinearLayout| -> Result<Vec<u64>> { flat_bases(&l.flatten_outs()?, BLOCK) };
    let (b_src, b_dst) = (blocks(src)?, blocks(dst)?);
    Ok(b_src.len().max(b_dst.len()) > 0 && b_src != b_dst)
}

/// The swizzle as a shared layout: in-dim `offset` (vector, bank, segment,
/// reps in that order, the buffer's element index) and `block`.
pub fn as_offset_layout(swizzle: &LinearLayout) -> Result<LinearLayout> {
    let bases = swizzle.bases();
    let pick = |dim: &str| -> Vec<Vec<u32>> {
        bases
            .iter()
            .find(|(n, _)| n == dim)
            .map(|(_, b)| b.clone())
            .unwrap_or_default()
    };
    let offset: Vec<Vec<u32>> = [VECTOR, BANK, SEGMENT, REPS]
        .iter()
        .flat_map(|d| pick(d))
        .collect();
    LinearLayout::from_unpacked(
        vec![("offset".into(), offset), (BLOCK.into(), pick(BLOCK))],
        swizzle.out_dims(),
    )
}
