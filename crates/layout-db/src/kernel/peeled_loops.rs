//! LLVM peels the first trip of a small AMD loop whose single shared-memory
//! stage does not start at offset 0, and the peeled trip is a second static
//! copy of the body's shared-memory instructions.
//!
//! With `num_stages = 2`, Triton's AMD stream pipeliner keeps one buffer
//! per operand (`!ttg.memdesc<1x...>`) and carries its view through the
//! loop as an `iter_args` value. Lowered, a buffer at a nonzero offset
//! enters the loop as `getelementptr (@global_smem, i64 N)` and comes back
//! from the body as `getelementptr (@global_smem, i32 N)`: two constants
//! LLVM does not fold into one, so the loop keeps a phi that is invariant
//! from its second trip (a buffer at 0 is `@global_smem` both ways, and the
//! phi folds). LLVM's loop peeling (`computePeelCount`: phis that become
//! invariant) then peels one trip where the loop is small enough: twice its
//! size within AMDGPU's unroll threshold of 300, which its shared-memory
//! accesses do not raise when their addresses do not vary.

use layout_algebra::bank::{Direction, Instruction, Mnemonic};
use layout_algebra::triton::AmdMfma;

use super::mlir::{Function, Op, OpId};
use super::{InstructionCount, scratch};

/// AMDGPU's loop-unroll threshold (`amdgpu-unroll-threshold`): a loop is
/// peeled only where twice its size fits.
pub(super) const UNROLL_THRESHOLD: u64 = 300;

/// Per op, whether it sits in a loop LLVM peels. `placed_at` gives the
/// offset of a `ttg.local_alloc` (by op), `body_size` the size LLVM
/// counts for a loop's body (by the `scf.for`), `None` where it cannot be
/// told.
pub(super) fn peeled_ops(
    f: &Function,
    placed_at: impl Fn(OpId) -> Option<u64>,
    body_size: impl Fn(OpId) -> Option<u64>,
) -> Vec<bool> {
    let phi_kept = |id: OpId| {
        carried_single_buffers(f, id)
            .iter()
            .any(|&alloc| placed_at(alloc).is_some_and(|o| o > 0))
    };
    ops_of_peeled_loops(f, phi_kept, body_size)
}

/// Per op, whether it sits in an innermost loop that keeps a phi invariant
/// from its second trip (`phi_kept`) and whose body is small enough that
/// twice its size fits the unroll threshold: the loops LLVM peels.
fn ops_of_peeled_loops(
    f: &Function,
    phi_kept: impl Fn(OpId) -> bool,
    body_size: impl Fn(OpId) -> Option<u64>,
) -> Vec<bool> {
    let mut peeled = vec![false; f.ops.len()];
    for (id, op) in f.ops.iter().enumerate() {
        if op.name != "scf.for" || !innermost(f, id) || !phi_kept(id) {
            continue;
        }
        if body_size(id).is_none_or(|size| 2 * size > UNROLL_THRESHOLD) {
            continue;
        }
        for (other, flag) in peeled.iter_mut().enumerate() {
            if f.enclosing(other, "scf.for") == Some(id) {
                *flag = true;
            }
        }
    }
    peeled
}

/// The size LLVM's loop passes count for the body of loop `id`, as far as
/// the TTGIR tells it: an access per vector an op moves to or from shared
/// memory (a paired instruction is two; one narrow element also costs its
/// shuffle into or out of a vector), a global load per 16 bytes a thread
/// reads, an MFMA per instruction tile, an op per element of arithmetic on
/// floats or narrow integers (address and mask arithmetic LLVM shares), a
/// reduction or scan per element, and the loop's own bookkeeping. `lanes`
/// is the program's threads, `accesses` an op's shared-memory
/// instructions, `mfma` the MFMA encoding an encoding name stands for.
/// `None` where it cannot be told: a dot of other than f16, bf16 or i8
/// operands (f32 is canonicalised, 8-bit floats converted element by
/// element), a 3-D dot, an upcast, a loop of several dots (an attention
/// step and its softmax) or of constant trips (unrolled whole instead).
pub(super) fn body_size(
    f: &Function,
    id: OpId,
    lanes: u64,
    accesses: impl Fn(&Op) -> Vec<InstructionCount>,
    mfma: impl Fn(&str) -> Option<AmdMfma>,
) -> Option<u64> {
    // Barriers, fences, priorities, the induction variable and branch.
    const BOOKKEEPING: u64 = 12;
    let bound = f.ops[id].operands.get(1)?;
    if f.producer(bound)
        .is_some_and(|p| p.name == "arith.constant")
    {
        return None;
    }
    let per_thread = |t: &scratch::TypeText| t.elements().div_ceil(lanes);
    let mut size = BOOKKEEPING;
    let mut dots = 0;
    for (other, op) in f.ops.iter().enumerate() {
        if f.enclosing(other, "scf.for") != Some(id) {
            continue;
        }
        let name = op.name.as_str();
        match name {
            "ttg.local_load" | "ttg.local_store" => {
                for i in accesses(op) {
                    size += (i.count * access_halves(&i.mnemonic)).div_ceil(2);
                }
            }
            "tt.load" | "amdg.buffer_load" => {
                let t = scratch::parse_type(op.result_types())?;
                let bits = u64::from(scratch::element_bits(&t.element).unwrap_or(32));
                size += (per_thread(&t) * bits).div_ceil(128).max(1);
            }
            "tt.dot" => {
                dots += 1;
                size += mfma_count(op, &mfma)?;
            }
            "tt.fp_to_fp" | "tt.dot_scaled" => return None,
            _ if name.contains("upcast") => return None,
            "tt.reduce" | "tt.scan" => {
                size += per_thread(&scratch::parse_type(op.operand_types())?)
            }
            _ if name.starts_with("arith.") || name.starts_with("math.") => {
                if let Some(t) = scratch::parse_type(op.result_types()).filter(|t| {
                    t.element.starts_with(['f', 'b']) || matches!(t.element.as_str(), "i8" | "i16")
                }) {
                    size += per_thread(&t);
                }
            }
            _ => {}
        }
    }
    (dots == 1).then_some(size)
}

/// What one instruction of `mnemonic` counts, in halves: a paired access
/// two vectors, a narrow element read one and a half more for its shuffle
/// into a vector, one written one more for its extraction.
fn access_halves(mnemonic: &str) -> u64 {
    let Ok(m) = mnemonic.parse::<Mnemonic>() else {
        return 2;
    };
    match m.instruction {
        Instruction::Paired { .. } => 4,
        Instruction::LdSt { bits } if bits < 32 => match m.direction {
            Direction::Load => 5,
            Direction::Store => 4,
        },
        _ => 2,
    }
}

/// The MFMA instructions a thread issues for a 2-D `tt.dot` of 16-bit or
/// byte operands: its warp's tiles along M and N, times the tile's steps
/// along K.
fn mfma_count(op: &Op, mfma: &impl Fn(&str) -> Option<AmdMfma>) -> Option<u64> {
    let types = scratch::parse_types(&op.types);
    let (a, result) = (types.first()?, types.last()?);
    if !matches!(a.element.as_str(), "f16" | "bf16" | "i8") || result.shape.len() != 2 {
        return None;
    }
    let encoding = mfma(result.encoding.as_deref()?)?;
    let tiles = (0..2)
        .map(|d| {
            let instr = u64::from(*encoding.instr_shape.get(d)?);
            let warps = u64::from(*encoding.warps_per_cta.get(d)?);
            Some(u64::from(result.shape[d]).div_ceil(instr * warps).max(1))
        })
        .product::<Option<u64>>()?;
    let k = u64::from(*a.shape.last()?);
    Some(tiles * k.div_ceil(u64::from(*encoding.instr_shape.get(2)?).max(1)))
}

/// Per op, whether it sits in a loop whose first trip LLVM peels on NVIDIA:
/// an innermost loop that carries a value entering as one constant and
/// yielded as another (a Blackwell MMA's `use_acc` flag, false on the
/// first trip and true after) keeps a phi that is invariant from its
/// second trip, and LLVM peels one trip where twice the loop's size fits
/// its unroll threshold (`flag_loop_size`, the same 300 as AMDGPU's).
pub(super) fn peeled_flag_loops(
    f: &Function,
    text: &str,
    body_size: impl Fn(OpId) -> Option<u64>,
) -> Vec<bool> {
    ops_of_peeled_loops(f, |id| carries_flag(f, text, id), body_size)
}

/// The size LLVM counts for the body of NVIDIA loop `id`, as far as the
/// TTGIR tells it: an instruction per op, five per vector a thread moves
/// (a global load of 16 bytes, a shared-memory instruction: its address
/// arithmetic, the access, the element moves), six per MMA instruction
/// (its descriptors), and nothing for the constant trip's loop, which LLVM
/// unrolls whole. `shared_instructions` is the body's shared-memory
/// instructions, `lanes` the program's threads. Fitted to the peeling of
/// 100 compiled Blackwell matmul loops (a 64x32x128 f16 tile of 8 MMAs
/// peeled, 128x64x64 bf16 of 12 vectors not).
pub(super) fn flag_loop_size(
    f: &Function,
    id: OpId,
    lanes: u64,
    shared_instructions: u64,
) -> Option<u64> {
    const PER_VECTOR: u64 = 5;
    const PER_MMA: u64 = 6;
    let bound = f.ops[id].operands.get(1)?;
    if f.producer(bound)
        .is_some_and(|p| p.name == "arith.constant")
    {
        return None;
    }
    let mut size = PER_VECTOR * shared_instructions;
    for (other, op) in f.ops.iter().enumerate() {
        if f.enclosing(other, "scf.for") != Some(id) {
            continue;
        }
        size += 1;
        match op.name.as_str() {
            "tt.load" => {
                // The type written is the pointers' (`!tt.ptr<bf16>`).
                let t = scratch::parse_type(op.result_types())?;
                let pointee = t
                    .element
                    .strip_prefix("!tt.ptr<")
                    .and_then(|e| e.strip_suffix('>'))
                    .unwrap_or(&t.element);
                let bits = u64::from(scratch::element_bits(pointee).unwrap_or(32));
                size += PER_VECTOR * (t.elements().div_ceil(lanes) * bits).div_ceil(128).max(1);
            }
            "ttng.tc_gen5_mma" | "ttng.tc_gen5_mma_scaled" => {
                size += PER_MMA * tcgen05_instructions(op)?;
            }
            _ => {}
        }
    }
    Some(size)
}

/// The `tcgen05.mma` instructions of one `ttng.tc_gen5_mma`: 128 rows of
/// A, 256 columns of B and 32 bytes of K each.
fn tcgen05_instructions(op: &Op) -> Option<u64> {
    let types = scratch::parse_types(&op.types);
    let (a, b) = (types.first()?, types.get(1)?);
    let (&m, &k) = (a.shape.first()?, a.shape.last()?);
    let &n = b.shape.last()?;
    let bits = u64::from(scratch::element_bits(&a.element)?);
    let steps = (u64::from(k) * bits).div_ceil(256).max(1);
    Some(u64::from(m).div_ceil(128) * u64::from(n).div_ceil(256) * steps)
}

/// Whether loop `id` carries a value that enters as a constant and is
/// yielded as another constant.
fn carries_flag(f: &Function, text: &str, id: OpId) -> bool {
    let op = &f.ops[id];
    let Some(yielded) = op.regions.first().and_then(|r| f.region_yield(r)) else {
        return false;
    };
    // `%true = arith.constant true`: the value and its type.
    let constant = |value: &str| {
        let p = f.producer(value).filter(|p| p.name == "arith.constant")?;
        let line = text.get(p.span.start..p.span.end)?;
        let (_, value) = line.split_once("arith.constant ")?;
        Some(
            value
                .split(" loc(")
                .next()
                .unwrap_or(value)
                .trim()
                .to_string(),
        )
    };
    op.operands
        .iter()
        .skip(3)
        .zip(&yielded.operands)
        .any(|(init, next)| {
            let (Some(a), Some(b)) = (constant(init), constant(next)) else {
                return false;
            };
            a != b
        })
}

/// Whether loop `id` holds no other loop.
fn innermost(f: &Function, id: OpId) -> bool {
    !f.ops.iter().enumerate().any(|(other, op)| {
        matches!(op.name.as_str(), "scf.for" | "scf.while") && nested_in(f, other, id)
    })
}

/// Whether op `inner` sits in a region of op `outer`, however deep.
fn nested_in(f: &Function, mut inner: OpId, outer: OpId) -> bool {
    while let Some(b) = f.ops[inner].block {
        inner = f.blocks[b].owner;
        if inner == outer {
            return true;
        }
    }
    false
}

/// The `ttg.local_alloc`s of one stage (`!ttg.memdesc<1x...>`) whose view
/// loop `id` carries: it enters as `ttg.memdesc_index` of the buffer, and
/// the body yields another index of the same buffer.
fn carried_single_buffers(f: &Function, id: OpId) -> Vec<OpId> {
    let op = &f.ops[id];
    let Some(yielded) = op.regions.first().and_then(|r| f.region_yield(r)) else {
        return Vec::new();
    };
    let buffer_of = |value: &str| -> Option<OpId> {
        let index = f
            .producer(value)
            .filter(|p| p.name == "ttg.memdesc_index")?;
        let alloc = index.operands.first()?;
        f.ops.iter().position(|o| {
            o.name == "ttg.local_alloc"
                && o.results.first() == Some(alloc)
                && o.types.contains("!ttg.memdesc<1x")
        })
    };
    // Operands: `%lb, %ub, %step, %init...`; the yield's are the inits' next values.
    op.operands
        .iter()
        .skip(3)
        .zip(&yielded.operands)
        .filter_map(|(init, next)| {
            let buffer = buffer_of(init)?;
            (buffer_of(next) == Some(buffer)).then_some(buffer)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::mlir;

    /// A K loop as Triton 3.9's AMD pipeliner leaves it with one stage:
    /// `%b`'s view enters as index 0 and the body yields the next one.
    const ONE_STAGE: &str = r#"module {
  tt.func @k(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<1x64x64xbf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %a0 = ttg.memdesc_index %a[%c0_i32] : !ttg.memdesc<1x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %b0 = ttg.memdesc_index %b[%c0_i32] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %r:3 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%x = %c0_i32, %av = %a0, %bv = %b0) -> (i32, !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>, !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>)  : i32 {
      %a1 = ttg.memdesc_index %a[%x] : !ttg.memdesc<1x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
      %b1 = ttg.memdesc_index %b[%x] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
      scf.yield %x, %a1, %b1 : i32, !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>, !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    }
    tt.return
  }
}
"#;

    /// A Blackwell K loop with one stage: `use_acc` enters false and the
    /// body yields true; a counter the body advances is no such flag.
    const FLAG_LOOP: &str = r#"module {
  tt.func @k(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%use = %false) -> (i1)  : i32 {
      %x = arith.addi %i, %c1_i32 : i32
      scf.yield %true : i1
    }
    %s = scf.for %j = %c0_i32 to %n step %c1_i32 iter_args(%c = %c0_i32) -> (i32)  : i32 {
      %y = arith.addi %c, %c1_i32 : i32
      scf.yield %y : i32
    }
    tt.return
  }
}
"#;

    #[test]
    fn a_flag_that_becomes_invariant_peels_a_loop_that_fits() {
        let f = &mlir::functions(FLAG_LOOP)[0];
        let (flagged, counted) = (op_named(f, "%x"), op_named(f, "%y"));
        assert!(peeled_flag_loops(f, FLAG_LOOP, |_| Some(150))[flagged]);
        assert!(!peeled_flag_loops(f, FLAG_LOOP, |_| Some(151))[flagged]);
        assert!(!peeled_flag_loops(f, FLAG_LOOP, |_| None)[flagged]);
        assert!(!peeled_flag_loops(f, FLAG_LOOP, |_| Some(10))[counted]);
    }

    fn op_named(f: &Function, result: &str) -> OpId {
        f.ops
            .iter()
            .position(|o| o.results.first().is_some_and(|r| r == result))
            .unwrap()
    }

    /// The LLVM IR of a gfx942 loop before peeling (Triton 3.9,
    /// `LLVM_IR_ENABLE_DUMP`): a `ds_read2st64_b64` is two loads of
    /// `<4 x i16>`, a `ds_read_u16` a load and a shuffle into its vector.
    #[test]
    fn accesses_count_as_the_ir_s_loads_stores_and_shuffles() {
        assert_eq!(access_halves("ds_read2st64_b64"), 4);
        assert_eq!(access_halves("ds_write2_b32"), 4);
        assert_eq!(access_halves("ds_read_u16"), 5);
        assert_eq!(access_halves("ds_write_b16_d16_hi"), 4);
        assert_eq!(access_halves("ds_read_b64"), 2);
        assert_eq!(access_halves("ds_write_b128"), 2);
    }

    #[test]
    fn only_a_one_stage_buffer_the_loop_carries_counts() {
        let f = &mlir::functions(ONE_STAGE)[0];
        let (a, for_op) = (op_named(f, "%a"), op_named(f, "%r#0"));
        assert!(innermost(f, for_op));
        assert_eq!(carried_single_buffers(f, for_op), vec![a]);
    }

    #[test]
    fn the_loop_is_peeled_where_the_buffer_is_not_at_zero_and_the_body_fits() {
        let f = &mlir::functions(ONE_STAGE)[0];
        let (a, body) = (op_named(f, "%a"), op_named(f, "%a1"));
        let at = |offset: u64| move |alloc: OpId| (alloc == a).then_some(offset);
        assert!(peeled_ops(f, at(8192), |_| Some(150))[body]);
        assert!(!peeled_ops(f, at(8192), |_| Some(151))[body]);
        assert!(!peeled_ops(f, at(0), |_| Some(100))[body]);
        assert!(!peeled_ops(f, at(8192), |_| None)[body]);
        // Only the loop's own ops.
        assert!(!peeled_ops(f, at(8192), |_| Some(100))[a]);
    }
}
