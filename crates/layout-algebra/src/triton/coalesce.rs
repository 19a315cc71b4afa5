//! Triton's coalesce heuristic (seed 003, `getCoalescedEncoding` and
//! `BlockedEncodingAttr::get`): from what axis analysis knows of a pointer
//! tensor, the blocked layout that makes its loads and stores coalesce.
//!
//! 1. `order` sorts dims by contiguity, most contiguous first (ties keep dim
//!    order).
//! 2. Along `order[0]` each thread takes as many elements as alignment allows
//!    — `min(divisibility / element bytes, contiguity)` — capped at 128 bits
//!    and at the elements each thread owns on average.
//! 3. Lanes then warps fill the dims in `order`, each dim taking as many as
//!    its extent leaves room for; the last dim takes the rest.

use crate::error::{InvalidKind, LayoutError, Result};
use crate::triton::{Blocked, CgaLayout};

/// What axis analysis knows about one pointer tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    /// Per dim: length of runs of consecutive addresses.
    pub contiguity: Vec<u32>,
    /// Per dim: the largest power of two (in bytes) dividing the addresses.
    pub divisibility: Vec<u32>,
}

/// The input of the heuristic for one memory operation.
#[derive(Clone, Debug)]
pub struct CoalesceRequest {
    pub shape: Vec<u32>,
    pub element_bits: u32,
    /// The pointer itself.
    pub pointer: AxisInfo,
    /// Other values in the pointer's slice with the same contiguity order
    /// (Triton takes the best alignment among them).
    pub same_order: Vec<AxisInfo>,
    pub num_warps: u32,
    pub threads_per_warp: u32,
    pub cga: CgaLayout,
}

/// Dims sorted by contiguity, largest first; equal contiguities keep dim order.
pub fn contiguity_order(contiguity: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..contiguity.len()).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(contiguity[d]));
    order
}

/// The coalesced blocked layout for a load or store.
pub fn coalesced_layout(req: &CoalesceRequest) -> Result<Blocked> {
    coalesce_steps(req).map(|s| s.layout)
}

/// Every decision of the heuristic, in the order seed 003 explains them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoalesceSteps {
    /// 1. Dims by contiguity, most contiguous first.
    pub order: Vec<usize>,
    /// 2. Along `order[0]`: the element size in bytes, the pointer's
    ///    divisibility and contiguity there, and the elements alignment
    ///    allows (`min(divisibility / element bytes, contiguity)`, the best
    ///    over the pointers with the same order).
    pub element_bytes: u32,
    pub divisibility: u32,
    pub contiguity: u32,
    pub alignment: u32,
    /// The 128-bit limit in elements.
    pub vector_limit: u32,
    /// Elements each thread owns on average (at least 1).
    pub elements_per_thread: u64,
    /// 3. and 4. The layout: `sizePerThread` from the steps above, then
    ///    lanes and warps spread over the dims in `order`.
    pub layout: Blocked,
}

/// [`coalesced_layout`] with the numbers behind each decision.
pub fn coalesce_steps(req: &CoalesceRequest) -> Result<CoalesceSteps> {
    let rank = req.shape.len();
    if rank == 0 {
        return Err(LayoutError::invalid_of(
            InvalidKind::Rank,
            "coalesce",
            "the tensor has rank 0",
        ));
    }
    for info in std::iter::once(&req.pointer).chain(&req.same_order) {
        if info.contiguity.len() != rank || info.divisibility.len() != rank {
            return Err(LayoutError::invalid(
                "coalesce",
                format!("axis information must have one entry per dim ({rank})"),
            ));
        }
    }
    for (what, v) in [
        ("element width", req.element_bits),
        ("number of warps", req.num_warps),
        ("threads per warp", req.threads_per_warp),
    ] {
        if v == 0 || !v.is_power_of_two() {
            return Err(LayoutError::NotPowerOfTwo {
                what: what.into(),
                value: v as i64,
            });
        }
    }
    let order = contiguity_order(&req.pointer.contiguity);
    let num_elems: u64 = req.shape.iter().map(|&s| s as u64).product();
    let num_threads = (req.num_warps * req.threads_per_warp) as u64;
    let elems_per_thread = (num_elems / num_threads).max(1);
    let elem_bytes = (req.element_bits / 8).max(1);
    let vector_limit = (128 / req.element_bits).max(1);
    let mut alignment = 1u32;
    for info in std::iter::once(&req.pointer).chain(&req.same_order) {
        if contiguity_order(&info.contiguity) != order {
            continue;
        }
        let max_multiple = (info.divisibility[order[0]] / elem_bytes).max(1);
        alignment = alignment.max(max_multiple.min(info.contiguity[order[0]]));
    }
    let per_thread = alignment.min(vector_limit).max(1);
    let mut size_per_thread = vec![1u32; rank];
    size_per_thread[order[0]] = (per_thread as u64).min(elems_per_thread) as u32;
    let layout = blocked_for_shape(
        &req.shape,
        size_per_thread,
        order.clone(),
        req.num_warps,
        req.threads_per_warp,
        req.cga.clone(),
    )?;
    Ok(CoalesceSteps {
        element_bytes: elem_bytes,
        divisibility: req.pointer.divisibility[order[0]],
        contiguity: req.pointer.contiguity[order[0]],
        alignment,
        vector_limit,
        elements_per_thread: elems_per_thread,
        order,
        layout,
    })
}

/// `BlockedEncodingAttr::get`: given `sizePerThread` and `order`, spread the
/// lanes and warps over the shape, most minor dim first.
pub fn blocked_for_shape(
    shape: &[u32],
    size_per_thread: Vec<u32>,
    order: Vec<usize>,
    num_warps: u32,
    threads_per_warp: u32,
    cga: CgaLayout,
) -> Result<Blocked> {
    let rank = shape.len();
    let split = cga.split()?;
    let shape_per_cta: Vec<u32> = shape
        .iter()
        .zip(&split)
        .map(|(&s, &k)| ((s as u64 / k).max(1)) as u32)
        .collect();
    let mut tpw = vec![0u32; rank];
    let mut wpc = vec![0u32; rank];
    let (mut remaining_lanes, mut remaining_threads, mut remaining_warps) =
        (threads_per_warp, num_warps * threads_per_warp, num_warps);
    let (mut prev_lanes, mut prev_warps) = (1u32, 1u32);
    for &i in &order[..rank - 1] {
        let per_cta = (shape_per_cta[i] / size_per_thread[i]).max(1);
        let threads_per_cta = remaining_threads.clamp(1, per_cta);
        tpw[i] = threads_per_cta.clamp(1, remaining_lanes);
        wpc[i] = (threads_per_cta / tpw[i]).clamp(1, remaining_warps);
        remaining_warps /= wpc[i];
        remaining_lanes /= tpw[i];
        remaining_threads /= threads_per_cta;
        prev_lanes *= tpw[i];
        prev_warps *= wpc[i];
    }
    let last = order[rank - 1];
    tpw[last] = threads_per_warp / prev_lanes;
    wpc[last] = num_warps / prev_warps;
    let blocked = Blocked {
        size_per_thread,
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga,
    };
    blocked.validate()?;
    Ok(blocked)
}
