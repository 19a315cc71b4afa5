//! Reads of two `ttg.local_load`s that LLVM pairs on AMD.
//!
//! A `ttg.local_load` whose requests sit at offsets a register XORs into a
//! lane's address reads them one at a time (`ds_read_b64`): no two share a
//! base and a constant distance. Two such loads of the same layout from
//! buffers a constant distance apart (the buffers of an unrolled loop's
//! stages indexed by constants, or two single-buffered operands) compute
//! the same per-lane address, and LLVM's LDS optimiser pairs each read of
//! the first with the same read of the second (`ds_read2st64_b64`, as the
//! compiled attention backward and unrolled convolutions show) where
//! nothing between them writes shared memory or waits. The pair is named
//! on the first load; the second issues nothing of its own.

use std::collections::HashMap;

use layout_algebra::bank::{Direction, Instruction, Mnemonic};
use layout_algebra::machine::Vendor;

use super::mlir::{Function, OpId};
use super::{SharedOp, folded_branches, is_ttg, scratch};

/// Pairs the reads of `ops`' local loads (listing the ops `op_ids`) as
/// LLVM does across loads, `aliases` giving each memdesc's allocations.
pub(super) fn pair_reads_across_loads(
    f: &Function,
    text: &str,
    aliases: &HashMap<String, Vec<OpId>>,
    ops: &mut [SharedOp],
    op_ids: &[OpId],
) {
    let candidates: Vec<(usize, OpId, u64, Mnemonic)> = ops
        .iter()
        .zip(op_ids)
        .enumerate()
        .filter_map(|(k, (op, &id))| {
            let load = &f.ops[id];
            if !is_ttg(load, "local_load") {
                return None;
            }
            let [read] = op.instructions.as_slice() else {
                return None;
            };
            let m: Mnemonic = read.mnemonic.parse().ok()?;
            let single = m.vendor == Vendor::Amd
                && m.direction == Direction::Load
                && matches!(m.instruction, Instruction::LdSt { bits: 32 | 64 });
            let place = constant_place(f, text, aliases, load.operands.first()?)?;
            single.then_some((k, id, op.offset + place, m))
        })
        .collect();
    let mut taken = vec![false; candidates.len()];
    for i in 0..candidates.len() {
        if taken[i] {
            continue;
        }
        let (first, a, place_a, m) = candidates[i];
        let Instruction::LdSt { bits } = m.instruction else {
            continue;
        };
        let partner = (i + 1..candidates.len()).find(|&j| {
            let (second, b, place_b, other) = candidates[j];
            !taken[j]
                && other == m
                && ops[second].instructions[0].count == ops[first].instructions[0].count
                && same_view(f, a, b)
                && quiet_between(f, a, b)
                && pairing(bits, place_a.abs_diff(place_b)).is_some()
        });
        let Some(j) = partner else { continue };
        let (second, _, place_b, _) = candidates[j];
        let Some(st64) = pairing(bits, place_a.abs_diff(place_b)) else {
            continue;
        };
        taken[i] = true;
        taken[j] = true;
        let moved = std::mem::take(&mut ops[second].instructions);
        ops[second].read_with = Some(ops[first].span);
        let read = &mut ops[first].instructions[0];
        read.mnemonic = m
            .as_instruction(Instruction::Paired { bits, st64 })
            .to_string();
        read.wavefronts += moved[0].wavefronts;
        read.conflicts = read.conflicts.max(moved[0].conflicts);
    }
}

/// Whether reads of `bits` a distance of `bytes` apart pair, and in which
/// encoding: offsets in units of 64 widths (`st64`) up to 255 of them, or
/// in widths up to 255. `None` where they do not (or are the same
/// address, which LLVM reads once).
fn pairing(bits: u32, bytes: u64) -> Option<bool> {
    let width = u64::from(bits / 8);
    if bytes == 0 {
        None
    } else if bytes.is_multiple_of(64 * width) && bytes / (64 * width) <= 255 {
        Some(true)
    } else if bytes.is_multiple_of(width) && bytes / width <= 255 {
        Some(false)
    } else {
        None
    }
}

/// Whether the loads `a` and `b` read the same view (memdesc type) into
/// the same tensor type: each lane's addresses are then the same up to
/// where the buffers sit.
fn same_view(f: &Function, a: OpId, b: OpId) -> bool {
    f.ops[a].types == f.ops[b].types
}

/// Whether `a` and `b` are in one block with nothing between them that
/// writes shared memory, waits, or branches (only arithmetic, pointer and
/// global-memory ops, dots, other local loads and views).
fn quiet_between(f: &Function, a: OpId, b: OpId) -> bool {
    let (Some(block), true) = (f.ops[a].block, f.ops[a].block == f.ops[b].block) else {
        return false;
    };
    let ops = &f.blocks[block].ops;
    let (Some(from), Some(to)) = (
        ops.iter().position(|&o| o == a),
        ops.iter().position(|&o| o == b),
    ) else {
        return false;
    };
    ops[from + 1..to].iter().all(|&o| {
        let op = &f.ops[o];
        op.regions.is_empty()
            && (op.name.starts_with("arith.")
                || op.name.starts_with("math.")
                || matches!(
                    op.name.as_str(),
                    "tt.addptr"
                        | "tt.splat"
                        | "tt.broadcast"
                        | "tt.expand_dims"
                        | "tt.make_range"
                        | "tt.load"
                        | "tt.trans"
                        | "tt.reshape"
                        | "tt.dot"
                        | "tt.fp_to_fp"
                        | "tt.bitcast"
                        | "ttg.local_load"
                        | "ttg.memdesc_index"
                        | "ttg.memdesc_trans"
                        | "ttg.memdesc_reshape"
                        | "amdg.buffer_load"
                ))
    })
}

/// Where the memdesc `value` starts within its one allocation when that is
/// fixed: the allocation itself, a `ttg.memdesc_index` by a constant (or
/// of an allocation with one buffer), or, through a loop, any view of an
/// allocation with one buffer that only such indexing views.
fn constant_place(
    f: &Function,
    text: &str,
    aliases: &HashMap<String, Vec<OpId>>,
    value: &str,
) -> Option<u64> {
    let [alloc] = aliases.get(value)?.as_slice() else {
        return None;
    };
    let alloc_op = &f.ops[*alloc];
    let alloc_result = alloc_op.results.first()?;
    if alloc_result == value {
        return Some(0);
    }
    let buffers = scratch::parse_type(alloc_op.result_types())?;
    let one_buffer = buffers.shape.first() == Some(&1);
    match f.producer(value) {
        Some(p) if p.name == "ttg.memdesc_index" && p.operands.first() == Some(alloc_result) => {
            if one_buffer {
                return Some(0);
            }
            let index = p.operands.get(1)?;
            let index = f.producer(index).filter(|c| c.name == "arith.constant")?;
            let index = folded_branches::integer_constant(&text[index.span.start..index.span.end])?;
            let bits = scratch::element_bits(&buffers.element)?;
            let slice: u64 = buffers.shape[1..].iter().map(|&d| u64::from(d)).product();
            Some(u64::try_from(index).ok()? * slice * u64::from(bits) / 8)
        }
        // Through a loop's arguments or results: every view of the one
        // buffer starts at its start.
        p if p.is_none_or(|p| p.name.starts_with("scf."))
            && one_buffer
            && f.uses(alloc_result).all(|u| {
                u.name == "ttg.memdesc_index"
                    || is_ttg(u, "local_load")
                    || is_ttg(u, "local_store")
                    || is_ttg(u, "local_dealloc")
            }) =>
        {
            Some(0)
        }
        _ => None,
    }
}
