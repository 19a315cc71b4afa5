//! How Triton 3.9 lowers `tt.reduce` across warps (`ReduceOpHelper`):
//! each thread first reduces its registers along the axis, then the lanes
//! of a warp shuffle; what is left along the axis lies across warps (and
//! CTAs) and goes through shared memory — a conversion that moves those
//! warp bits into lanes, then another shuffle, until the axis is one
//! element. The scratch is the largest of those conversions' buffers.

use crate::error::Result;
use crate::linear::{DimName, LinearLayout, UnpackedBases};
use crate::machine::{ConversionSwizzle, SharedInstructions};
use crate::triton::convert_layout::swizzled_scratch_elements;

const REGISTER: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";
const BLOCK: &str = "block";

/// Bytes of scratch a reduction over `axis` of inputs of `input_bits` each,
/// held in `layout`, needs (0 when no warp holds a different part of the
/// axis) on a machine of `banks` banks. Triton sizes each conversion's
/// buffer with its ld/st-only swizzle on every target, without the lane
/// groups a conversion's own 128-bit loads follow on AMD
/// (`getNumScratchElemsSwizzledCvt` with the machine's banks), as compiled
/// kernels' scratch sizes show.
pub fn reduce_scratch_bytes(
    layout: &LinearLayout,
    axis: usize,
    input_bits: &[u32],
    banks: u32,
) -> Result<u64> {
    let instructions = SharedInstructions {
        swizzle: ConversionSwizzle::LdSt {
            b128_load_lanes: &[],
        },
        ..SharedInstructions::LD_ST
    };
    let mut largest = 0u64;
    for (from, to) in reduce_conversions(layout, axis)? {
        let mut bytes = 0;
        for &bits in input_bits {
            let bits = bits.clamp(8, 64);
            let elements = swizzled_scratch_elements(&from, &to, bits, instructions, banks)?;
            bytes += elements * (bits as u64 / 8);
        }
        largest = largest.max(bytes);
    }
    Ok(largest)
}

/// The conversions through shared memory a reduction over `axis` of a
/// tensor held in `layout` makes, in order: each from the layout left
/// after the shuffles to the one with the axis's warp bits in lanes.
pub fn reduce_conversions(
    layout: &LinearLayout,
    axis: usize,
) -> Result<Vec<(LinearLayout, LinearLayout)>> {
    Ok(rounds(layout, axis)?.0)
}

/// The conversions of the rounds and the layout the last one leaves the
/// reduced values in (the axis one element long).
fn rounds(
    layout: &LinearLayout,
    axis: usize,
) -> Result<(Vec<(LinearLayout, LinearLayout)>, LinearLayout)> {
    let mut current = reduced_in_registers_and_lanes(layout, axis)?;
    let mut out = Vec::new();
    // Each round moves at least one warp bit of the axis into lanes.
    for _ in 0..=layout.total_in_bits() {
        if axis_size(&current, axis) <= 1 {
            break;
        }
        let inter = inter_layout(&current, axis)?;
        let next = zero_axis_bases(&inter, axis, LANE)?;
        out.push((current, inter));
        current = next;
    }
    Ok((out, current))
}

/// Where the reduced values are after the last round, as a layout of the
/// result's dims (`result_outs`: the source's without the axis). Triton
/// 3.9 then converts them to the result's own layout (the slice of the
/// source along the axis) when the two differ — through shared memory
/// like any conversion (`st.shared` + `ld.shared` after the round's), which
/// the GPU counts as a second round trip.
pub fn reduced_layout(
    layout: &LinearLayout,
    axis: usize,
    result_outs: Vec<(DimName, u64)>,
) -> Result<LinearLayout> {
    let (_, last) = rounds(layout, axis)?;
    let mut bases = last.bases();
    for (_, list) in bases.iter_mut() {
        for b in list.iter_mut() {
            if axis < b.len() {
                b.remove(axis);
            }
        }
    }
    LinearLayout::from_unpacked(bases, result_outs)
}

fn axis_size(layout: &LinearLayout, axis: usize) -> u64 {
    layout.out_dims().get(axis).map_or(1, |(_, size)| *size)
}

/// The layout after each thread reduced its registers and each warp its
/// lanes along `axis` (`reducedRegLaneLayout`).
fn reduced_in_registers_and_lanes(layout: &LinearLayout, axis: usize) -> Result<LinearLayout> {
    let l = layout.retain_bases(REGISTER, |_, v| v.iter().any(|&x| x != 0))?;
    let l = zero_axis_bases(&l, axis, REGISTER)?;
    let l = l.retain_bases(REGISTER, |_, v| v.iter().any(|&x| x != 0))?;
    zero_axis_bases(&l, axis, LANE)
}

/// `zeroBasesAlongDimAndReorder`: the bases of `dim` lose their `axis`
/// coordinate; the other bases along the axis are renumbered 1, 2, 4, ...
/// in order, so the axis shrinks to what is left.
fn zero_axis_bases(layout: &LinearLayout, axis: usize, dim: &str) -> Result<LinearLayout> {
    let mut bases = layout.bases();
    for (name, list) in bases.iter_mut() {
        if name == dim {
            for b in list.iter_mut() {
                if let Some(c) = b.get_mut(axis) {
                    *c = 0;
                }
            }
        }
    }
    let mut next = 1u32;
    for (_, list) in bases.iter_mut() {
        for b in list.iter_mut() {
            if let Some(c) = b.get_mut(axis)
                && *c != 0
            {
                *c = next;
                next *= 2;
            }
        }
    }
    rebuild(layout, bases, Some((axis, next as u64)))
}

/// `getInterLayout`: the warp (and CTA) bases along the axis swapped into
/// lanes — into lanes that hold nothing when there are enough of them,
/// else into the first lanes.
fn inter_layout(layout: &LinearLayout, axis: usize) -> Result<LinearLayout> {
    let mut bases = layout.bases();
    let take = |bases: &UnpackedBases, dim: &str| -> Vec<Vec<u32>> {
        bases
            .iter()
            .find(|(n, _)| n == dim)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    };
    let mut lanes = take(&bases, LANE);
    let mut warps = take(&bases, WARP);
    let mut blocks = take(&bases, BLOCK);
    let along = |list: &[Vec<u32>]| -> Vec<usize> {
        (0..list.len())
            .filter(|&i| list[i].get(axis).is_some_and(|&c| c != 0))
            .collect()
    };
    let warp_axis = along(&warps);
    let block_axis = along(&blocks);
    let empty_lanes: Vec<usize> = (0..lanes.len())
        .filter(|&i| lanes[i].iter().all(|&c| c == 0))
        .collect();
    let total = warp_axis.len() + block_axis.len();
    let targets: Vec<usize> = if empty_lanes.len() >= total {
        empty_lanes
    } else {
        (0..lanes.len()).collect()
    };
    let mut slot = 0;
    for &w in &warp_axis {
        let Some(&l) = targets.get(slot) else { break };
        std::mem::swap(&mut lanes[l], &mut warps[w]);
        slot += 1;
    }
    if total <= lanes.len() {
        for &b in &block_axis {
            let Some(&l) = targets.get(slot) else { break };
            std::mem::swap(&mut lanes[l], &mut blocks[b]);
            slot += 1;
        }
    }
    for (name, list) in bases.iter_mut() {
        match name.as_str() {
            LANE => *list = lanes.clone(),
            WARP => *list = warps.clone(),
            BLOCK => *list = blocks.clone(),
            _ => {}
        }
    }
    rebuild(layout, bases, None)
}

/// A layout with new bases over the same out-dims (the axis resized when
/// its bases were renumbered).
fn rebuild(
    layout: &LinearLayout,
    bases: UnpackedBases,
    resized: Option<(usize, u64)>,
) -> Result<LinearLayout> {
    let outs: Vec<(DimName, u64)> = layout
        .out_dims()
        .into_iter()
        .enumerate()
        .map(|(i, (n, s))| match resized {
            Some((axis, size)) if axis == i => (n, size),
            _ => (n, s),
        })
        .collect();
    LinearLayout::from_unpacked(bases, outs)
}
