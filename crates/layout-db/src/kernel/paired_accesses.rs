//! Accesses of two `ttg.local_load`s, or of two `ttg.local_store`s, that
//! LLVM pairs on AMD.
//!
//! A `ttg.local_load` whose requests sit at offsets a register XORs into a
//! lane's address reads them one at a time (`ds_read_b64`): no two share a
//! base and a constant distance. Two such loads of the same layout from
//! buffers a constant distance apart (the buffers of an unrolled loop's
//! stages indexed by constants, or two single-buffered operands) compute
//! the same per-lane address, and LLVM's LDS optimiser pairs each read of
//! the first with the same read of the second (`ds_read2st64_b64`, as the
//! compiled attention backward and unrolled convolutions show) where
//! nothing between them writes shared memory or waits. Two
//! `ttg.local_store`s pair their writes the same way (`ds_write2st64_b64`:
//! a pipelined attention backward's Q and dO tiles, stored one after the
//! other into buffers of one layout). The pair is named on the first op;
//! the second issues nothing of its own.

use std::collections::HashMap;

use layout_algebra::bank::{Direction, Instruction, Mnemonic};
use layout_algebra::machine::Vendor;
use layout_algebra::triton::Encoding;

use super::mlir::{Function, OpId};
use super::{Context, PairedWith, SharedOp, folded_branches, is_ttg, refilled_after, scratch};

/// A local load or store whose accesses may pair with another's: where
/// its ops entry is, which op it is, where its view starts, and its one
/// instruction.
#[derive(Clone)]
struct Candidate {
    entry: usize,
    op: OpId,
    place: Place,
    access: Mnemonic,
}

/// Where a view starts in shared memory.
#[derive(Clone, PartialEq, Eq)]
enum Place {
    /// At a fixed byte offset.
    Fixed(u64),
    /// At buffer `index` of an allocation at `base` whose buffers are
    /// `stride` bytes apart, `index` a value known only at run time.
    Indexed {
        base: u64,
        index: String,
        stride: u64,
    },
}

impl Place {
    /// The constant distance between two places, where there is one: two
    /// buffers picked by the same index from allocations with the same
    /// stride are as far apart as the allocations.
    fn distance(&self, other: &Place) -> Option<u64> {
        match (self, other) {
            (Place::Fixed(a), Place::Fixed(b)) => Some(a.abs_diff(*b)),
            (
                Place::Indexed {
                    base: a,
                    index,
                    stride,
                },
                Place::Indexed {
                    base: b,
                    index: other_index,
                    stride: other_stride,
                },
            ) => (index == other_index && stride == other_stride).then(|| a.abs_diff(*b)),
            _ => None,
        }
    }
}

impl Context<'_> {
    /// Pairs the accesses of `ops`' local loads and of their local stores
    /// (listing the ops `op_ids`) as LLVM does across two ops, `aliases`
    /// giving each memdesc's allocations; on a machine with paired LDS
    /// accesses.
    pub(super) fn pair_accesses_across_ops(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        ops: &mut [SharedOp],
        op_ids: &[OpId],
    ) {
        if !self.machine.lds.paired {
            return;
        }
        for direction in [Direction::Load, Direction::Store] {
            let candidates = self.pairing_candidates(f, aliases, ops, op_ids, direction);
            pair_candidates(f, ops, &candidates, direction);
        }
    }

    /// The ops among `ops` that access shared memory in `direction` with
    /// one single 32- or 64-bit instruction, through a view whose place is
    /// fixed.
    fn pairing_candidates(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        ops: &[SharedOp],
        op_ids: &[OpId],
        direction: Direction,
    ) -> Vec<Candidate> {
        let (name, view_operand) = match direction {
            Direction::Load => ("local_load", 0),
            Direction::Store => ("local_store", 1),
        };
        ops.iter()
            .zip(op_ids)
            .enumerate()
            .filter_map(|(entry, (op, &id))| {
                let access = &f.ops[id];
                // Reads a loop body refills after are left single there
                // (`LdsInstructions::restaged_reads_unpaired`).
                let unpaired_read = direction == Direction::Load
                    && self.machine.lds.restaged_reads_unpaired
                    && refilled_after(f, id);
                if !is_ttg(access, name) || unpaired_read {
                    return None;
                }
                let [one] = op.instructions.as_slice() else {
                    return None;
                };
                let m: Mnemonic = one.mnemonic.parse().ok()?;
                let single = m.vendor == Vendor::Amd
                    && m.direction == direction
                    && matches!(m.instruction, Instruction::LdSt { bits: 32 | 64 });
                let view = access.operands.get(view_operand)?;
                let place = match self.constant_place(f, aliases, view) {
                    Some(place) => Place::Fixed(op.offset.checked_add(place)?),
                    None => self.indexed_place(f, aliases, view, op.offset)?,
                };
                single.then_some(Candidate {
                    entry,
                    op: id,
                    place,
                    access: m,
                })
            })
            .collect()
    }

    /// Whether the `ttg.local_load` `id` reaches its lanes' offsets through
    /// a phi LLVM's known-bits analysis does not see past, so that its
    /// requests pair only by whole registers
    /// ([`layout_algebra::bank::OffsetSplit::WholeRegisters`]): it reads a
    /// result of a loop that may run no times (a drained stage of a
    /// pipeline) and the loop reads, inside, with the same types from a
    /// buffer of several stages it indexes. LICM hoists those offsets out
    /// of the loop (the changing stage keeps them apart from its base), and
    /// GVN merges them with the path that skips the loop, in the block the
    /// loop exits to. A read of the same types before the loop, outside
    /// any loop, serves both paths; a loop over one fixed buffer hoists
    /// whole addresses, which the reads after it compute afresh.
    pub(super) fn offsets_through_phi(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        id: OpId,
    ) -> bool {
        let load = &f.ops[id];
        let same_read = |o: &super::mlir::Op| is_ttg(o, "local_load") && o.types == load.types;
        let Some(view) = load.operands.first() else {
            return false;
        };
        let Some(innermost) = f
            .ops
            .iter()
            .position(|o| o.name == "scf.for" && o.results.contains(view))
        else {
            return false;
        };
        if !super::half_words::may_run_no_times(f, &f.ops[innermost]) {
            return false;
        }
        let staged_read = f.ops.iter().enumerate().any(|(o, op)| {
            f.enclosing(o, "scf.for") == Some(innermost)
                && same_read(op)
                && op
                    .operands
                    .first()
                    .is_some_and(|v| self.multi_buffered(f, aliases, v, op))
        });
        let read_before = f.ops[..innermost]
            .iter()
            .enumerate()
            .any(|(o, op)| same_read(op) && f.enclosing(o, "scf.for").is_none());
        if !staged_read || read_before {
            return false;
        }
        // The first such read after the loop computes the offsets the later
        // ones reuse; GVN merges them only where it comes straight after
        // the loop in the loop's block, with nothing between that branches.
        let Some(block) = f.ops[innermost].block else {
            return false;
        };
        let ops = &f.blocks[block].ops;
        let Some(at) = ops.iter().position(|&o| o == innermost) else {
            return false;
        };
        let Some(first) = ops[at + 1..]
            .iter()
            .position(|&o| same_read(&f.ops[o]))
            .map(|k| at + 1 + k)
        else {
            return false;
        };
        let straight = ops[at + 1..first].iter().all(|&o| !branches(&f.ops[o]));
        let after_first = f
            .ancestor_in(block, id)
            .and_then(|a| ops.iter().position(|&o| o == a))
            .is_some_and(|k| k >= first);
        // A read in a loop of its own after this one pairs as the loop's.
        let beside_loop = f.enclosing(id, "scf.for") == f.enclosing(innermost, "scf.for");
        straight && after_first && beside_loop
    }

    /// Whether the memdesc `value` that `read` reads is a stage of one
    /// unpadded allocation of several stages, which the loop picks by
    /// index: its place changes between trips.
    fn multi_buffered(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        value: &str,
        read: &super::mlir::Op,
    ) -> bool {
        let Some([alloc]) = aliases.get(value).map(Vec::as_slice) else {
            return false;
        };
        let (Some(stages), Some(stage)) = (
            scratch::parse_type(f.ops[*alloc].result_types()),
            scratch::parse_type(read.operand_types()),
        ) else {
            return false;
        };
        stages.shape.len() == stage.shape.len() + 1
            && stages.shape.first().is_some_and(|&n| n > 1)
            && !matches!(self.encoding(&stages), Some(Encoding::PaddedShared(_)))
            && self.constant_place(f, aliases, value).is_none()
    }

    /// Where the memdesc `value` starts within its one allocation when
    /// that is fixed: the allocation itself, a `ttg.memdesc_index` of it by
    /// a constant (or of an allocation with one buffer), or, through a
    /// loop, any view of an allocation with one buffer that is only ever
    /// viewed by indexing it. `None` for a padded allocation, whose
    /// buffers' distances per lane are not one constant.
    fn constant_place(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        value: &str,
    ) -> Option<u64> {
        let [alloc] = aliases.get(value)?.as_slice() else {
            return None;
        };
        let alloc_op = &f.ops[*alloc];
        let alloc_result = alloc_op.results.first()?;
        let buffers = scratch::parse_type(alloc_op.result_types())?;
        if matches!(self.encoding(&buffers), Some(Encoding::PaddedShared(_))) {
            return None;
        }
        if alloc_result == value {
            return Some(0);
        }
        let one_buffer = buffers.shape.first() == Some(&1);
        let indexes_alloc = |p: &super::mlir::Op| {
            p.name == "ttg.memdesc_index" && p.operands.first() == Some(alloc_result)
        };
        match f.producer(value) {
            Some(p) if indexes_alloc(p) => {
                if one_buffer {
                    return Some(0);
                }
                let index = p.operands.get(1)?;
                let index = f.producer(index).filter(|c| c.name == "arith.constant")?;
                let index = folded_branches::integer_constant(
                    &self.text[index.span.start..index.span.end],
                )?;
                let index = u64::try_from(index).ok()?;
                (index < u64::from(*buffers.shape.first()?))
                    .then(|| index.checked_mul(buffer_bytes(&buffers)?))
                    .flatten()
            }
            // Through a loop's arguments or results: every view of the one
            // buffer starts at its start where every value aliasing the
            // allocation is the allocation, an index of it, or passes
            // through control flow (no subslice, no reinterpretation).
            p if p.is_none_or(|p| p.name.starts_with("scf."))
                && one_buffer
                && aliases
                    .iter()
                    .filter(|(_, allocs)| allocs.contains(alloc))
                    .all(|(v, _)| {
                        v == alloc_result
                            || f.producer(v)
                                .is_none_or(|p| p.name.starts_with("scf.") || indexes_alloc(p))
                    }) =>
            {
                Some(0)
            }
            _ => None,
        }
    }

    /// Where the memdesc `value` starts when it is a buffer of the one
    /// unpadded allocation at `base` that a `ttg.memdesc_index` picks by
    /// a value the analysis does not fold (a pipelined loop's stage).
    fn indexed_place(
        &self,
        f: &Function,
        aliases: &HashMap<String, Vec<OpId>>,
        value: &str,
        base: u64,
    ) -> Option<Place> {
        let [alloc] = aliases.get(value)?.as_slice() else {
            return None;
        };
        let alloc_op = &f.ops[*alloc];
        let view = f.producer(value)?;
        if view.name != "ttg.memdesc_index" || view.operands.first() != alloc_op.results.first() {
            return None;
        }
        let buffers = scratch::parse_type(alloc_op.result_types())?;
        if matches!(self.encoding(&buffers), Some(Encoding::PaddedShared(_))) {
            return None;
        }
        Some(Place::Indexed {
            base,
            index: view.operands.get(1)?.clone(),
            stride: buffer_bytes(&buffers)?,
        })
    }
}

/// The bytes of one buffer of an allocation of `buffers` (its shape past
/// the first dim, the buffers').
fn buffer_bytes(buffers: &scratch::TypeText) -> Option<u64> {
    let bits = u64::from(scratch::element_bits(&buffers.element)?);
    let elements = buffers
        .shape
        .get(1..)?
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(u64::from(d)))?;
    Some(elements.checked_mul(bits)? / 8)
}

/// Pairs each of `candidates` (in program order) with the first later one
/// of the same view and instruction that nothing between them keeps apart:
/// the pair is named on the first, the second marked as accessed with it.
fn pair_candidates(
    f: &Function,
    ops: &mut [SharedOp],
    candidates: &[Candidate],
    direction: Direction,
) {
    let mut taken = vec![false; candidates.len()];
    for i in 0..candidates.len() {
        if taken[i] {
            continue;
        }
        let first = &candidates[i];
        let count = ops[first.entry].instructions[0].count;
        let Some((j, paired)) = (i + 1..candidates.len())
            // Past an op that is not quiet, no later access pairs.
            .take_while(|&j| quiet_between(f, first.op, candidates[j].op, direction))
            .find_map(|j| {
                let second = &candidates[j];
                let partner = !taken[j]
                    && second.access == first.access
                    && ops[second.entry].instructions[0].count == count
                    && same_view(f, first.op, second.op);
                partner
                    .then(|| pairing(first.access, first.place.distance(&second.place)?))
                    .flatten()
                    .map(|paired| (j, paired))
            })
        else {
            continue;
        };
        taken[i] = true;
        taken[j] = true;
        let second = &candidates[j];
        let moved = std::mem::take(&mut ops[second.entry].instructions);
        ops[second.entry].paired_with = Some(PairedWith {
            op: ops[first.entry].span,
            direction,
        });
        let access = &mut ops[first.entry].instructions[0];
        access.mnemonic = paired.to_string();
        access.wavefronts += moved[0].wavefronts;
        access.conflicts = access.conflicts.max(moved[0].conflicts);
    }
}

/// The paired form of `read` for two of its requests `bytes` apart:
/// offsets in units of 64 widths (`st64`) up to 255 of them, or in widths
/// up to 255. `None` where they do not pair (or are the same address,
/// which LLVM reads once).
fn pairing(read: Mnemonic, bytes: u64) -> Option<Mnemonic> {
    let Instruction::LdSt { bits } = read.instruction else {
        return None;
    };
    let width = u64::from(bits / 8);
    let st64 = if bytes == 0 {
        return None;
    } else if bytes.is_multiple_of(64 * width) && bytes / (64 * width) <= 255 {
        true
    } else if bytes.is_multiple_of(width) && bytes / width <= 255 {
        false
    } else {
        return None;
    };
    Some(read.as_instruction(Instruction::Paired { bits, st64 }))
}

/// Whether the loads `a` and `b` read the same view (memdesc type) into
/// the same tensor type, or the stores `a` and `b` write the same tensor
/// type into the same view: each lane's addresses are then the same up to
/// where the views start ([`Context::constant_place`] admits no view that
/// starts inside a buffer).
fn same_view(f: &Function, a: OpId, b: OpId) -> bool {
    f.ops[a].types == f.ops[b].types
}

/// Whether `b` follows `a` in one block with nothing between them that
/// writes shared memory, waits, or branches (only arithmetic, pointer and
/// global-memory ops, dots, views, and between two loads other local
/// loads; between two stores a read of shared memory keeps them apart).
fn quiet_between(f: &Function, a: OpId, b: OpId, direction: Direction) -> bool {
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
    from < to
        && ops[from + 1..to].iter().all(|&o| {
            let op = &f.ops[o];
            let quiet_read = direction == Direction::Load && op.name == "ttg.local_load";
            op.regions.is_empty()
                && (quiet_read
                    || op.name.starts_with("arith.")
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
                            | "ttg.memdesc_index"
                            | "ttg.memdesc_trans"
                            | "ttg.memdesc_reshape"
                            | "amdg.buffer_load"
                    ))
        })
}

/// Whether `op` may lower to LLVM blocks of its own: control flow, and
/// global loads, stores and atomics (a mask branches around them).
fn branches(op: &super::mlir::Op) -> bool {
    (!op.regions.is_empty() && op.name.starts_with("scf."))
        || ["tt.load", "tt.store"].contains(&op.name.as_str())
        || op.name.starts_with("tt.atomic")
}
