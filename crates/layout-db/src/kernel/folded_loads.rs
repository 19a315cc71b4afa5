//! Loads LLVM folds into one: a loop-carried value read from shared memory
//! both before the loop and at the end of its body.
//!
//! Triton's pipeliner reads a dot operand for the first iteration before an
//! `scf.for` and the next iteration's at the end of the body, and passes it
//! round as an iteration argument. Where a lane's loads move one element
//! each (`ld.shared.b8` for an 8-bit B operand on sm80, `ds_read_u16`),
//! the loop header's phi takes a load on either edge, and instcombine makes
//! the two one load, of the phi'd address, in the header
//! (`foldPHIArgLoadIntoPHI`): the compiled kernel has the body's loads once
//! and none before the loop. Vector loads (`ldmatrix`, `.v4`) reach the phi
//! through extracts and stay apart, and a write to memory between a load
//! and the end of its block keeps it where it is.

use super::mlir::{Function, Op, OpId};

/// The loop-carried `ttg.local_load` that `f`'s op `id` (a `local_load`
/// before an `scf.for`, whose only use is that loop's initial value) is
/// folded with, if the two may fold: the body's load of the value the
/// loop yields in its place, with nothing that writes memory after either
/// load in its block. Whether each moves one element per instruction is
/// the caller's to check.
pub fn loop_load_folded_with(f: &Function, id: OpId) -> Option<OpId> {
    let init_load = &f.ops[id];
    if init_load.name != "ttg.local_load" {
        return None;
    }
    let [value] = init_load.results.as_slice() else {
        return None;
    };
    // The first op after the load, in its block, that uses the value: the
    // loop, with nothing between them that writes memory.
    let ops = &f.blocks[init_load.block?].ops;
    let from = ops.iter().position(|&o| o == id)? + 1;
    let to = from
        + ops[from..]
            .iter()
            .position(|&o| f.ops[o].operands.contains(value))?;
    if !ops[from..to].iter().all(|&o| writes_nothing(&f.ops[o])) {
        return None;
    }
    // The value's only use: one initial value of that `scf.for` (whose
    // operands are `%lb, %ub, %s, %x, ...`).
    let lp = &f.ops[ops[to]];
    if lp.name != "scf.for"
        || f.uses(value).count() != 1
        || lp.operands.iter().filter(|v| *v == value).count() != 1
    {
        return None;
    }
    let carried = lp.operands.iter().skip(3).position(|v| v == value)?;
    let body = &f.blocks[*lp.regions.first()?.last()?].ops;
    let (&last, inside) = body.split_last()?;
    let yielded = f.ops[last]
        .operands
        .get(carried)
        .filter(|_| f.ops[last].name == "scf.yield")?;
    let at = inside
        .iter()
        .position(|&o| f.ops[o].results.iter().any(|r| r == yielded))?;
    let body_load = &f.ops[inside[at]];
    let used_once = f.uses(yielded).count() == 1;
    let same_type = body_load.result_types() == init_load.result_types();
    (body_load.name == "ttg.local_load"
        && used_once
        && same_type
        && inside[at + 1..].iter().all(|&o| writes_nothing(&f.ops[o])))
    .then_some(inside[at])
}

/// Whether LLVM sees `op`'s lowering write no memory (nor wait on a
/// barrier, which it treats as a write): index and pointer arithmetic,
/// views of a buffer and loads.
fn writes_nothing(op: &Op) -> bool {
    op.regions.is_empty()
        && (op.name.starts_with("arith.")
            || op.name.starts_with("math.")
            || matches!(
                op.name.as_str(),
                "tt.splat"
                    | "tt.broadcast"
                    | "tt.expand_dims"
                    | "tt.make_range"
                    | "tt.addptr"
                    | "tt.reshape"
                    | "tt.trans"
                    | "ttg.local_load"
                    | "ttg.memdesc_index"
                    | "ttg.memdesc_subslice"
                    | "ttg.memdesc_trans"
                    | "ttg.memdesc_reshape"
            ))
}
