//! The kernel summary of a dump (CONTRACT §4b): for each `tt.func`, every
//! operation that uses shared memory, the bytes Triton's allocator gives
//! it and where, what it costs in instructions, and the kernel's total —
//! what the compiled kernel's `metadata.shared` reports.

pub mod allocator;
mod capture;
mod contiguity;
mod descriptor;
mod folded_branches;
mod folded_loads;
mod half_words;
pub mod mlir;
mod paired_accesses;
mod peeled_loops;
pub mod scratch;
mod tensor_memory;
mod unused_registers;
pub use half_words::{
    WordSides, boolean_conversions, byte_pair_loads, constant_stores, half_word_conversions,
    half_word_stores, high_half_values, packed_narrow_values, sign_extended_loads,
};
pub use unused_registers::{DeadRegisters, unused_conversion_registers};

use std::collections::HashMap;

use layout_algebra::bank::{Direction, Instruction, Mnemonic, OffsetSplit};
use layout_algebra::machine::{
    FoldedScanStores, LdsInstructions, LdsSpelling, PackedScanPartials, Vendor, shared_memory_limit,
};
use layout_algebra::triton::Encoding;
use layout_syntax::Span;

use crate::diagnostic::{Code, Diagnostic};
use crate::round_trip::{RoundTrip, RoundTripSide, distinct_registers};
use crate::value::{ConversionReport, Value};
use crate::{DeclName, SourceFile, declared_value, file_target, item_values};
use allocator::{Buffer, Interval};
use mlir::{Function, OpId};
use scratch::{SCRATCH_ALIGNMENT, TypeText};

/// One kernel's shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelSummary {
    pub name: String,
    /// The `tt.func` line.
    pub span: Span,
    /// `ttg.target` (`cuda:90`, `hip:gfx942`).
    pub target: Option<String>,
    pub num_warps: Option<u32>,
    /// What the allocator gives the kernel: the end of its highest buffer.
    pub shared_bytes: u64,
    /// The module's `ttg.shared`, when the dump comes after Triton's allocation.
    pub recorded_shared_bytes: Option<u64>,
    /// What one CTA may allocate on the target.
    pub limit: Option<u64>,
    pub ops: Vec<SharedOp>,
    /// Operations that use shared memory but could not be sized, and why:
    /// the total is then a lower bound.
    pub unmeasured: Vec<Unmeasured>,
    /// Whether the function's body ends before the text does.
    pub complete: bool,
    /// Blackwell's tensor memory: each `ttng.tmem_alloc` with its 32-bit
    /// columns (of 128 lanes) and Triton's column offset when recorded.
    pub tensor_memory: Vec<TensorMemoryAlloc>,
    /// The module's `ttg.tensor_memory_size`, after Triton's allocation.
    pub recorded_tensor_memory_columns: Option<u64>,
}

/// One allocation in tensor memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMemoryAlloc {
    pub span: Span,
    /// 32-bit columns it takes.
    pub columns: u64,
    /// Lanes it takes: 128, or 64 for 64-row blocks.
    pub rows: u64,
    /// Where Triton's allocator puts it (`kernel::tensor_memory`): the
    /// first column and lane (0 or 16).
    pub column: u64,
    pub row: u64,
    pub recorded_column: Option<u64>,
}

impl KernelSummary {
    /// Columns of tensor memory the kernel allocates: the end of the
    /// highest allocation, rounded up to 32, 64, 128, 256 or 512
    /// (`ttg.tensor_memory_size`).
    pub fn tensor_memory_columns(&self) -> u64 {
        let end = self
            .tensor_memory
            .iter()
            .map(|t| t.column.saturating_add(t.columns))
            .max()
            .unwrap_or(0);
        [0, 32, 64, 128, 256, 512]
            .into_iter()
            .find(|&s| end <= s)
            .unwrap_or(end)
    }
}

/// One operation's shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedOp {
    /// The line that names the operation.
    pub span: Span,
    pub op: String,
    pub kind: BufferKind,
    /// The bytes the operation owns (0 for one that reads or writes another's
    /// buffer: `local_load`, `local_store`, copies).
    pub shared_bytes: u64,
    /// Where its bytes sit, or where the buffer it uses does.
    pub offset: u64,
    /// Triton's `allocation.offset` / `allocation.size`, when the dump has them.
    pub recorded: Option<(u64, Option<u64>)>,
    /// A partitioned tensor's pieces, one buffer per physical partition of
    /// shared memory: where each sits (`offset` is the first's). Empty for
    /// any other buffer.
    pub partition_offsets: Vec<u64>,
    /// Triton's offsets of those pieces, when the dump has them.
    pub recorded_partition_offsets: Vec<u64>,
    pub instructions: Vec<InstructionCount>,
    /// The op whose paired instructions also access this op's data, which
    /// then issues none of its own (AMD's LDS reads and writes LLVM pairs
    /// across two `ttg.local_load`s or two `ttg.local_store`s:
    /// `kernel::paired_accesses`).
    pub paired_with: Option<PairedWith>,
}

/// The other op whose paired instructions carry an op's accesses, and
/// which way they go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairedWith {
    pub op: Span,
    pub direction: Direction,
}

impl PairedWith {
    /// What a summary says of the op whose accesses `self.op`'s paired
    /// instructions carry, given that op's line.
    pub fn note(&self, line: usize) -> String {
        match self.direction {
            Direction::Load => format!("read by line {line}'s paired reads"),
            Direction::Store => format!("written by line {line}'s paired writes"),
        }
    }
}

/// A buffer that lives as long as its value, scratch for one operation,
/// or the shared memory of the function a `tt.call` calls (placed at the
/// call, live while it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    Explicit,
    Scratch,
    Call,
}

/// One shared-memory instruction an operation's lowering emits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct InstructionCount {
    /// As the PTX or AMDGCN spells the opcode.
    pub mnemonic: String,
    /// Static count per thread.
    pub count: u64,
    /// Wavefronts one warp needs for all of them.
    pub wavefronts: u64,
    /// Extra wavefronts per wavefront (0: conflict-free).
    pub conflicts: u64,
    /// Only one thread, or one warp, of the program moves data (a scalar
    /// atomic's result, a TMA descriptor built by the first warp): every
    /// warp issues the instruction under a predicate, but `wavefronts` are
    /// served for that warp alone, the others take none.
    pub one_thread: bool,
    /// The warps whose lanes move data, where fewer than issue it: a
    /// tensor its layout repeats across warps is stored by the warps that
    /// own its elements (Triton masks the copies' lanes off), and
    /// `wavefronts` are one such warp's; the others issue it and take none.
    pub owning_warps: Option<u32>,
    /// The warps that issue it when they are not the kernel's `num_warps`:
    /// those of the `ttg.warp_specialize` partition its op is in
    /// (`num_warps(2)`), or the worker warps reading their state.
    pub warps: Option<u32>,
}

impl InstructionCount {
    /// One side of a round trip through shared memory, by exact opcode.
    pub fn of_side(side: &RoundTripSide) -> Vec<InstructionCount> {
        side.by_opcode()
            .into_iter()
            .map(|part| InstructionCount {
                mnemonic: part.mnemonic.to_string(),
                count: part.count,
                wavefronts: part.wavefronts,
                conflicts: part.conflicts,
                one_thread: false,
                owning_warps: None,
                warps: None,
            })
            .collect()
    }

    /// `count` instructions of an access every warp of the program issues.
    fn of_access(
        mnemonic: layout_algebra::bank::Mnemonic,
        count: u64,
        wavefronts: u64,
        conflicts: u64,
    ) -> Self {
        InstructionCount {
            mnemonic: mnemonic.to_string(),
            count,
            wavefronts,
            conflicts,
            one_thread: false,
            owning_warps: None,
            warps: None,
        }
    }

    /// `count` instructions of one wavefront each that meet no conflict
    /// (one thread's access, or a warp's to words of its own).
    pub(crate) fn single_wavefront(mnemonic: String, count: u64, one_thread: bool) -> Self {
        InstructionCount {
            mnemonic,
            count,
            wavefronts: count,
            conflicts: 0,
            one_thread,
            owning_warps: None,
            warps: None,
        }
    }

    /// Warp-instructions the program issues, over `warps` warps.
    pub fn issued(&self, warps: u64) -> u64 {
        self.count * warps
    }

    /// Wavefronts the program's `warps` warps take together.
    pub fn program_wavefronts(&self, warps: u64) -> u64 {
        if self.one_thread {
            self.wavefronts
        } else if let Some(owning) = self.owning_warps {
            self.wavefronts * warps.min(u64::from(owning))
        } else {
            self.wavefronts * warps
        }
    }
}

/// An operation that uses shared memory the summary could not size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unmeasured {
    pub span: Span,
    pub op: String,
    pub reason: UnmeasuredReason,
}

/// Why an operation's shared memory could not be sized.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnmeasuredReason {
    /// A tensor dim that is not a power of two: Triton's never are (a dump
    /// edited by hand, or cut).
    NotPowerOfTwo(u64),
    /// An encoding or type layoutc cannot read.
    Unreadable,
    /// A call of a function the dump does not define.
    UnknownCallee,
}

impl std::fmt::Display for UnmeasuredReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnmeasuredReason::NotPowerOfTwo(n) => {
                write!(
                    f,
                    "a tensor dim of {n} is not a power of two, as Triton's are"
                )
            }
            UnmeasuredReason::Unreadable => write!(f, "its encoding or type is not readable"),
            UnmeasuredReason::UnknownCallee => {
                write!(f, "it calls a function the dump does not define")
            }
        }
    }
}

/// Why `op`'s types leave it unsized: a dim not a power of two, or else
/// something unreadable.
fn unsized_because(op: &mlir::Op) -> UnmeasuredReason {
    scratch::parse_types(&op.types)
        .iter()
        .flat_map(|t| t.shape.iter().copied())
        .find(|d| !d.is_power_of_two())
        .map_or(UnmeasuredReason::Unreadable, |d| {
            UnmeasuredReason::NotPowerOfTwo(u64::from(d))
        })
}

/// The `ttg.convert_layout`s of a dump whose operand was loaded from global
/// memory in vectors: each op's result and operand names and the dim along
/// which (the fastest dim of the `tt.load`'s blocked layout, the order
/// Triton's coalescing gives it from the pointers' contiguity, carried
/// through `tt.trans`, which moves dims and not registers). Their stores on
/// AMD take the `_d16_hi` form for the high half of each register
/// (`RoundTripSide::with_packed_registers`). Keyed by names, not offsets:
/// an item's evaluation knows its own text, not where it sits.
#[salsa::tracked(returns(ref))]
pub fn vector_loaded_conversions(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Vec<(String, String, usize)> {
    let mut found = Vec::new();
    for f in file_functions(db, file) {
        for op in f.ops.iter().filter(|o| o.name == "ttg.convert_layout") {
            if let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) {
                let dim = loaded_along(db, file, f, op);
                found.push(((result.clone(), operand.clone()), dim));
            }
        }
    }
    agreed(&found)
        .into_iter()
        .map(|((r, o), dim)| (r, o, dim))
        .collect()
}

/// The values a `ttg.local_store` or `ttg.local_alloc` of a dump stores
/// that were loaded from global memory in vectors, each with the dim along
/// which (as [`vector_loaded_conversions`] finds it): on AMD a store of
/// one 8- or 16-bit element at a time takes the `_d16_hi` form for the
/// high half of each register (`bank::high_half_share`). Keyed by the
/// stored value's name.
#[salsa::tracked(returns(ref))]
pub fn vector_loaded_stores(db: &dyn salsa::Database, file: SourceFile) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for f in file_functions(db, file) {
        for op in f
            .ops
            .iter()
            .filter(|o| is_ttg(o, "local_store") || is_ttg(o, "local_alloc"))
        {
            if let Some(stored) = op.operands.first() {
                found.push((stored.clone(), loaded_along(db, file, f, op)));
            }
        }
    }
    agreed(&found)
}

/// `#blocked`, or an inline `#ttg.slice<{dim = 1, parent = #blocked}>`.
fn encoding_named(db: &dyn salsa::Database, file: SourceFile, name: &str) -> Option<Encoding> {
    let name = name.trim();
    if !name.starts_with('#') {
        return None;
    }
    if let Some(inner) = name
        .strip_prefix("#ttg.slice<{")
        .or_else(|| name.strip_prefix("#triton_gpu.slice<{"))
    {
        let dim_at = inner.find("dim = ")? + 6;
        let dim: usize = inner[dim_at..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .ok()?;
        let parent_at = inner.find("parent = ")? + 9;
        let parent = inner[parent_at..].strip_suffix("}>")?;
        let parent = encoding_named(db, file, parent)?;
        return Some(Encoding::Slice(Box::new(layout_algebra::triton::Slice {
            dim,
            parent,
        })));
    }
    let key = DeclName::new(db, file, name.to_string());
    match declared_value(db, key) {
        Some(Some(Value::Encoding(e))) => Some((**e).clone()),
        _ => None,
    }
}

/// How a conversion's 32-bit operand came to live in 64-bit pairs on a
/// machine with paired f32 arithmetic (`Machine::paired_f32`): paired
/// arithmetic made it, or a reduction's conversion loaded it as pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairedF32 {
    /// A sum, difference or product of tensors (`arith.addf`, `arith.subf`,
    /// `arith.mulf`; `sub.f32x2` pairs too): LLVM
    /// keeps every pair, and stores 64 bits of them as `st.shared.b64`.
    Elementwise,
    /// A reduction's sum or product: 128-bit stores go as pairs.
    Reduced,
    /// A reduction's 32-bit result that its own conversion to the result's
    /// layout read 128 bits at a time and nothing changed since
    /// ([`only_converted`]): LLVM keeps the loaded pairs in 64-bit
    /// registers and stores 128 bits of them as pairs.
    Moved,
}

/// The `ttg.convert_layout`s (result, operand, how) of a dump whose
/// 32-bit operand lives in 64-bit pairs: f32 paired arithmetic made (a sum
/// or product of tensors, or the result of a sum or product reduction that
/// combined anything), or a reduction's result its own conversion loaded
/// as pairs (`PairedF32::Moved`). LLVM stores such values as pairs
/// (`st.shared.v2.b64`).
#[salsa::tracked(returns(ref))]
pub fn f32_pair_conversions(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Vec<(String, String, PairedF32)> {
    let analysed = file.analysed_text(db);
    let mut found: Vec<(String, String, Option<PairedF32>)> = Vec::new();
    for f in file_functions(db, file) {
        for op in f.ops.iter().filter(|o| is_ttg(o, "convert_layout")) {
            let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) else {
                continue;
            };
            let how = f
                .ops
                .iter()
                .position(|o| o.results.contains(operand))
                .and_then(|producer| made_in_f32_pairs(db, file, f, producer, operand, &analysed));
            found.push((result.clone(), operand.clone(), how));
        }
    }
    let found: Vec<((String, String), Option<PairedF32>)> =
        found.into_iter().map(|(r, o, how)| ((r, o), how)).collect();
    agreed(&found)
        .into_iter()
        .map(|((r, o), how)| (r, o, how))
        .collect()
}

/// The `ttg.convert_layout`s of f32 (their results' names) whose result,
/// through broadcasts and new dims, only paired arithmetic takes
/// (`arith.addf`, `arith.mulf`: a bias added to an accumulator) whose
/// result is narrowed to halves ([`narrowed_to_halves`]). LLVM
/// keeps the pairs in 64-bit registers from the load on, and reads 128
/// bits of them as `ld.shared.v2.b64` on a machine with paired f32
/// arithmetic (`Machine::paired_f32`).
#[salsa::tracked(returns(ref))]
pub fn f32_pair_loads(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    conversion_results_where(db, file, |f, op, result| {
        scratch::parse_type(op.result_types()).is_some_and(|t| t.element == "f32")
            && only_paired_arithmetic_takes(f, result, &mut 64)
    })
}

/// The `ttg.convert_layout`s of 64-bit integers (their results' names)
/// whose result only serves as a `tt.gather`'s indices: the gather uses
/// their low 32 bits, so LLVM narrows each element's load to them
/// (`ld.shared.b32` for `ld.shared.b64`).
#[salsa::tracked(returns(ref))]
pub fn gather_index_conversions(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    conversion_results_where(db, file, |f, op, result| {
        let mut uses = f.uses(result).peekable();
        scratch::parse_type(op.result_types()).is_some_and(|t| t.element == "i64")
            && uses.peek().is_some()
            && uses.all(|u| {
                u.name == "tt.gather"
                    && u.operands.get(1).is_some_and(|i| i == result)
                    && u.operands.first().is_none_or(|s| s != result)
            })
    })
}

/// The `ttg.convert_layout`s of 64-bit elements whose result only serves
/// as the source of `tt.gather`s within warps (their results' names):
/// Triton shuffles each element as two 32-bit halves (`shfl.sync` moves 32
/// bits), so LLVM reads the elements as 32-bit words (`ld.shared.v4.b32`
/// for `.v2.b64`).
#[salsa::tracked(returns(ref))]
pub fn gather_source_conversions(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    conversion_results_where(db, file, |f, op, result| {
        let mut uses = f.uses(result).peekable();
        scratch::parse_type(op.result_types())
            .is_some_and(|t| scratch::element_bits(&t.element) == Some(64))
            && uses.peek().is_some()
            && uses.all(|u| {
                half_words::gathers_within_warps(u)
                    && u.operands.first().is_some_and(|s| s == result)
                    && u.operands[1..].iter().all(|i| i != result)
            })
    })
}

/// The `ttg.convert_layout`s (their results' names) of 64-bit elements a
/// `tt.gather` within warps made (through `tt.trans`): each comes from two
/// 32-bit shuffles, and LLVM stores the halves as 32-bit words
/// (`st.shared.v2.b32` for `.b64`).
#[salsa::tracked(returns(ref))]
pub fn gathered_wide_conversions(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    conversion_results_where(db, file, |f, op, _| {
        op.operands.first().is_some_and(|operand| {
            scratch::parse_type(op.operand_types())
                .is_some_and(|t| scratch::element_bits(&t.element) == Some(64))
                && half_words::beyond_transposes(f, operand)
                    .is_some_and(|(p, _)| half_words::gathers_within_warps(p))
        })
    })
}

/// The results' names of a file's `ttg.convert_layout`s for which `holds`
/// (given the function, the op and its result), where every namesake
/// agrees ([`agreed`]).
fn conversion_results_where(
    db: &dyn salsa::Database,
    file: SourceFile,
    mut holds: impl FnMut(&Function, &mlir::Op, &str) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for f in file_functions(db, file) {
        for op in f.ops.iter().filter(|o| is_ttg(o, "convert_layout")) {
            if let Some(result) = op.results.first() {
                let yes = holds(f, op, result);
                found.push((result.clone(), yes.then_some(())));
            }
        }
    }
    agreed(&found).into_iter().map(|(r, ())| r).collect()
}

/// Whether `value` is used, and only by `arith.addf`/`arith.mulf`, through
/// `tt.broadcast`/`tt.expand_dims`.
fn only_paired_arithmetic_takes(f: &Function, value: &str, visits: &mut u32) -> bool {
    if !half_words::spend(visits) {
        return false;
    }
    let mut any = false;
    for user in f.uses(value) {
        any = true;
        let fine = match user.name.as_str() {
            "arith.addf" | "arith.mulf" => user
                .results
                .first()
                .is_some_and(|r| narrowed_to_halves(f, r, &mut 64)),
            "tt.broadcast" | "tt.expand_dims" => user
                .results
                .first()
                .is_some_and(|r| only_paired_arithmetic_takes(f, r, visits)),
            _ => false,
        };
        if !fine {
            return false;
        }
    }
    any
}

/// Whether `value`, through the elementwise arithmetic after it, is made
/// into 16-bit floats (`arith.truncf`, `arith.sitofp`). LLVM's vectoriser
/// pairs the f32 arithmetic from where the halves are packed two to a
/// register; a result kept as f32 (stored in vectors of four) or as
/// 32-bit integers is combined in the stores' groups instead, and its
/// operands read as `.v4.b32`.
fn narrowed_to_halves(f: &Function, value: &str, visits: &mut u32) -> bool {
    if !half_words::spend(visits) {
        return false;
    }
    f.uses(value).any(|user| {
        let elementwise = user.name.starts_with("arith.") || user.name.starts_with("math.");
        let halves = scratch::parse_types(&user.types)
            .last()
            .is_some_and(|t| matches!(t.element.as_str(), "f16" | "bf16"));
        elementwise
            && (halves
                || user
                    .results
                    .first()
                    .is_some_and(|r| narrowed_to_halves(f, r, visits)))
    })
}

/// Facts found per value name in each function of a file, keeping a name
/// only where every finding has the fact and agrees on it: each function
/// numbers its values afresh, so two functions may share a name.
pub(super) fn agreed<K: Written + PartialEq, V: PartialEq + Clone>(
    found: &[(K, Option<V>)],
) -> Vec<(K, V)> {
    // Keyed as the dump writes the names (an item's evaluation knows its
    // own text): values of sibling regions that share a written name must
    // agree too.
    let found: Vec<(K, &Option<V>)> = found.iter().map(|(k, v)| (k.written(), v)).collect();
    let mut out: Vec<(K, V)> = Vec::new();
    for (k, v) in &found {
        let Some(v) = v else { continue };
        let all_agree = found
            .iter()
            .filter(|(k2, _)| k2 == k)
            .all(|(_, v2)| v2.as_ref() == Some(v));
        if all_agree && !out.iter().any(|(k2, _)| k2 == k) {
            out.push((k.written(), v.clone()));
        }
    }
    out
}

/// A key of value names as the dump writes them (the reader's own
/// suffix for a sibling region's value removed, `mlir::written_name`).
pub(super) trait Written {
    fn written(&self) -> Self;
}

impl Written for String {
    fn written(&self) -> String {
        mlir::written_name(self).to_string()
    }
}

impl Written for (String, String) {
    fn written(&self) -> (String, String) {
        (self.0.written(), self.1.written())
    }
}

/// Whether `op` is the TritonGPU operation `name` (`convert_layout`),
/// under either prefix the dialect has had (`ttg.`, `triton_gpu.`).
pub(super) fn is_ttg(op: &mlir::Op, name: &str) -> bool {
    op.name
        .strip_prefix("ttg.")
        .or_else(|| op.name.strip_prefix("triton_gpu."))
        == Some(name)
}

/// How the f32 result of op `id` was made, where paired arithmetic made it.
fn made_in_f32_pairs(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    id: OpId,
    value: &str,
    text: &str,
) -> Option<PairedF32> {
    let op = &f.ops[id];
    let f32_result = scratch::parse_type(op.result_types()).is_some_and(|t| t.element == "f32");
    match op.name.as_str() {
        "arith.addf" | "arith.subf" | "arith.mulf"
            if f32_result && !broadcast_and_stored(f, op, value) =>
        {
            Some(PairedF32::Elementwise)
        }
        "tt.reduce" => {
            let line = &text[op.span.start..op.span.end];
            let (Some(input), Some(axis)) = (
                scratch::parse_types(op.operand_types()).into_iter().next(),
                scratch::axis(line),
            ) else {
                return None;
            };
            let e = encoding_named(db, file, input.encoding.as_deref()?)?;
            let layout = e.to_linear_layout(&input.shape).ok()?;
            let result = op.results.iter().position(|r| r == value)?;
            let input = scratch::parse_types(op.operand_types())
                .into_iter()
                .nth(result)
                .unwrap_or(input);
            let pairable = pairable_operands(f, id)
                .get(result)
                .copied()
                .unwrap_or(false);
            if input.element == "f32" && pairable && sums_anything(&layout, axis) {
                return Some(PairedF32::Reduced);
            }
            let machine = crate::file_target(db, file).machine();
            if !machine.paired_f32 || !only_converted(f, value) {
                return None;
            }
            let result_type = scratch::parse_types(op.result_types())
                .into_iter()
                .nth(result)?;
            let result_layout = encoding_named(db, file, result_type.encoding.as_deref()?)?
                .to_linear_layout(&result_type.shape)
                .ok()?;
            (scratch::element_bits(&input.element) == Some(32)
                && reduced_load_bits(&layout, &result_layout, axis, &machine) == Some(128))
            .then_some(PairedF32::Moved)
        }
        _ => None,
    }
}

/// Whether `op` combines a broadcast of what a conversion read from
/// shared memory in vectors of four (a bias along rows or columns) and its
/// f32 result `value` only goes, through `ttg.convert_layout`s, to
/// `tt.store`s: the loads' and the stores' vectors of four seed LLVM's
/// vectoriser, which combines the arithmetic four at a time and leaves it
/// scalar on a machine that pairs f32 (no `add.f32x2`), so nothing moves
/// in pairs. (A bias loaded from global memory in its final layout pairs.)
fn broadcast_and_stored(f: &Function, op: &mlir::Op, value: &str) -> bool {
    // Through the broadcast and its new dims, to a conversion.
    let converted = |value: &str| {
        let mut v = value;
        for _ in 0..8 {
            match f.producer(v) {
                Some(p) if matches!(p.name.as_str(), "tt.broadcast" | "tt.expand_dims") => {
                    match p.operands.first() {
                        Some(o) => v = o,
                        None => return false,
                    }
                }
                Some(p) => return is_ttg(p, "convert_layout"),
                None => return false,
            }
        }
        false
    };
    let broadcast = op.operands.iter().any(|o| {
        f.producer(o)
            .is_some_and(|p| p.name == "tt.broadcast" && converted(o))
    });
    let mut uses = f.uses(value).peekable();
    broadcast
        && uses.peek().is_some()
        && uses.all(|u| {
            is_ttg(u, "convert_layout")
                && u.results.first().is_some_and(|r| {
                    let mut stores = f.uses(r).peekable();
                    stores.peek().is_some()
                        && stores.all(|s| {
                            s.name == "tt.store" && s.operands.get(1).is_some_and(|v| v == r)
                        })
                })
        })
}

/// Whether `value` sits in registers as a global load read it in vectors
/// (see [`value_loaded_along`]).
pub(super) fn loaded_in_vectors(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    value: &str,
) -> bool {
    value_loaded_along(db, file, f, value, &mut 64).is_some()
}

/// The dim along which `op`'s first operand was loaded in vectors.
fn loaded_along(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    op: &mlir::Op,
) -> Option<usize> {
    value_loaded_along(db, file, f, op.operands.first()?, &mut 64)
}

/// The dim along which `value`'s registers hold what a `tt.load` read in
/// vectors, two 16-bit or four 8-bit elements to a 32-bit register: the
/// load's own result, or a `tt.trans` of one (it moves dims, not
/// registers). Arithmetic on them is scalar to LLVM, which puts each
/// result in a register of its own, except bytes on a machine with
/// `Preset::packed_byte_arithmetic`: there an elementwise op of bytes to
/// bytes (no widening or narrowing) loaded along one dim (with constants,
/// or a select's condition) keeps them packed. `visits` bounds the walk.
fn value_loaded_along(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    value: &str,
    visits: &mut u32,
) -> Option<usize> {
    if *visits == 0 {
        return None;
    }
    *visits -= 1;
    let producer = f.producer(value)?;
    match producer.name.as_str() {
        "tt.load" => {
            let b = result_blocked(db, file, producer)?;
            let fastest = *b.order.first()?;
            let text = file.analysed_text(db);
            if pointers_aligned(&text, f, producer) {
                return Some(fastest);
            }
            // Element by element to Triton; merged into vectors where the
            // machine's global loads need no alignment and the pointers
            // step one element at a time along the registers' dim.
            let merged = file_target(db, file)
                .machine()
                .merges_unaligned_global_loads()
                && b.size_per_thread.get(fastest).is_some_and(|&n| n >= 2)
                && producer
                    .operands
                    .first()
                    .and_then(|p| contiguity::unit_step_dim(&text, f, p))
                    == Some(fastest);
            merged.then_some(fastest)
        }
        "amdg.buffer_load" => {
            // AMD's buffer load reads the vector its `contiguity` says
            // along its layout's fastest dim: registers packed where a
            // vector fills a 32-bit register at least.
            let t = scratch::parse_type(producer.result_types())?;
            let bits = u64::from(scratch::element_bits(&t.element)?);
            let vector = Function::int_attribute(producer, "contiguity")?;
            let b = result_blocked(db, file, producer)?;
            (vector * bits >= 32).then(|| b.order.first().copied())?
        }
        "tt.trans" => {
            // Result dim `i` is the operand's dim `order[i]`.
            let dim = value_loaded_along(db, file, f, producer.operands.first()?, visits)?;
            let order = producer.attributes.split_once("array<i32:")?.1;
            let order: Vec<usize> = order
                .split('>')
                .next()?
                .split(',')
                .map(|d| d.trim().parse().ok())
                .collect::<Option<_>>()?;
            order.iter().position(|&d| d == dim)
        }
        name if name.starts_with("arith.")
            && name != "arith.constant"
            && file_target(db, file).machine().packed_byte_arithmetic
            && scratch::parse_types(&producer.types)
                .iter()
                .all(|t| t.element == "i1" || scratch::element_bits(&t.element) == Some(8)) =>
        {
            // A select's condition is the booleans', not the bytes'.
            let values = match producer.name.as_str() {
                "arith.select" => producer.operands.get(1..)?,
                _ => &producer.operands[..],
            };
            let mut dim = None;
            for v in values {
                if f.producer(v)?.name == "arith.constant" {
                    continue;
                }
                let here = value_loaded_along(db, file, f, v, visits)?;
                if dim.is_some_and(|d| d != here) {
                    return None;
                }
                dim = Some(here);
            }
            dim
        }
        _ => None,
    }
}

/// The blocked encoding of `op`'s result, where it has one.
fn result_blocked(
    db: &dyn salsa::Database,
    file: SourceFile,
    op: &mlir::Op,
) -> Option<layout_algebra::triton::Blocked> {
    let t = scratch::parse_type(op.result_types())?;
    let key = DeclName::new(db, file, t.encoding?.trim().to_string());
    match declared_value(db, key) {
        Some(Some(Value::Encoding(e))) => match &**e {
            Encoding::Blocked(b) => Some(b.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a `tt.load` may read vectors: its pointers do not come from a
/// function argument without `tt.divisibility`. Triton takes such an
/// argument to be aligned to one element only, and loads element by element
/// (on NVIDIA each 8- or 16-bit value in the low half of its own register;
/// `Machine::merges_unaligned_global_loads` for AMD).
fn pointers_aligned(text: &str, f: &Function, load: &mlir::Op) -> bool {
    // Two 16-bit or four 8-bit elements per 32-bit register need 4 bytes.
    pointer_alignment(text, f, load).is_none_or(|bytes| bytes >= 4)
}

/// The bytes a global access's pointers are aligned to, as their
/// function argument's `tt.divisibility` says (1 without it); `None` where
/// they do not come from an argument.
fn pointer_alignment(text: &str, f: &Function, load: &mlir::Op) -> Option<u64> {
    let mut value = load.operands.first().cloned()?;
    // Through the ops that offset or spread a pointer, to its base.
    for _ in 0..f.ops.len() {
        let producer = f.ops.iter().skip(1).find(|o| o.results.contains(&value));
        match producer {
            Some(p) if matches!(p.name.as_str(), "tt.addptr" | "tt.splat" | "tt.broadcast") => {
                value = p.operands.first()?.clone();
            }
            Some(_) => return None,
            None => break,
        }
    }
    // A function argument: its declaration on the `tt.func` line.
    match argument_divisibility(text, f, &value) {
        ArgumentAlignment::NotAnArgument => None,
        ArgumentAlignment::Divisible(bytes) => Some(bytes),
    }
}

/// What the `tt.func` line says of a value's alignment.
enum ArgumentAlignment {
    /// Not one of the function's arguments.
    NotAnArgument,
    /// An argument, aligned to this many bytes (`tt.divisibility`; 1 when
    /// the attribute is absent).
    Divisible(u64),
}

fn argument_divisibility(text: &str, f: &Function, value: &str) -> ArgumentAlignment {
    let header = text.get(f.span.start..f.span.end).unwrap_or("");
    // The argument list: from the `(` after the function's name to its match.
    let Some(open) = header.find(&format!("@{}(", f.name)) else {
        return ArgumentAlignment::NotAnArgument;
    };
    let list = &header[open + f.name.len() + 2..];
    let bytes = list.as_bytes();
    let mut depth = 0i32;
    let end = list
        .char_indices()
        .find(|&(i, c)| {
            match c {
                '(' | '<' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                // Not the arrow of a function type.
                '>' if i == 0 || bytes[i - 1] != b'-' => depth -= 1,
                _ => {}
            }
            depth < 0
        })
        .map_or(list.len(), |(i, _)| i);
    for argument in mlir::split_top_level(&list[..end], ',') {
        let argument = argument.trim();
        let Some(rest) = argument.strip_prefix(value) else {
            continue;
        };
        if !rest.starts_with(':') {
            continue;
        }
        let rest = rest.split(" loc(").next().unwrap_or(rest);
        let divisibility = rest
            .split_once("tt.divisibility = ")
            .and_then(|(_, v)| {
                v.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .ok()
            })
            .unwrap_or(1);
        return ArgumentAlignment::Divisible(divisibility);
    }
    ArgumentAlignment::NotAnArgument
}

/// The `tt.func`s of a file's analysed dump, read once per edit for every
/// query that walks them.
#[salsa::tracked(returns(ref))]
pub(crate) fn file_functions(db: &dyn salsa::Database, file: SourceFile) -> Vec<Function> {
    mlir::functions(&file.analysed_text(db))
}

/// The summary of every `tt.func` of a dump (empty for a `.lay` file).
#[salsa::tracked(returns(ref))]
pub fn kernel_summaries(db: &dyn salsa::Database, file: SourceFile) -> Vec<KernelSummary> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let functions = file_functions(db, file);
    if functions.is_empty() {
        return Vec::new();
    }
    let module = ModuleFacts::read(text);
    let facts = file_target(db, file);
    let threads = module.threads_per_warp.unwrap_or(facts.threads_per_warp());
    // The module's own target decides; an AMD target layoutc has no
    // preset for is still AMD (its `hip:` backend).
    let vendor = match module.target.as_deref() {
        Some(t) => layout_algebra::machine::preset_for_triton_target(t)
            .map(|p| p.vendor)
            .unwrap_or(if t.starts_with("hip:") {
                Vendor::Amd
            } else {
                facts.machine().vendor
            }),
        None => facts.machine().vendor,
    };
    let values: Vec<(Span, Option<Value>)> = item_values(db, file);
    let cx = Context {
        db,
        file,
        text,
        threads,
        num_warps: module.num_warps.unwrap_or(4),
        vendor,
        machine: facts.machine(),
        partition_bytes: module
            .target
            .as_deref()
            .map_or(0, layout_algebra::machine::shared_memory_partition_bytes),
        vectorises: module
            .target
            .as_deref()
            .is_some_and(layout_algebra::machine::vectorises),
        padded_partition_warps: functions
            .iter()
            .map(partition_warps)
            .max()
            .unwrap_or(0)
            .div_ceil(4)
            * 4,
        values: &values,
    };
    // A call holds its callee's shared memory for the call's duration, so
    // callees are placed first (Triton's allocator walks the call graph
    // the same way).
    let calls: Vec<Vec<usize>> = functions
        .iter()
        .map(|f| {
            f.ops
                .iter()
                .filter_map(|op| callee(text, op))
                .filter_map(|name| functions.iter().position(|g| g.name == name))
                .collect()
        })
        .collect();
    let mut summaries: Vec<Option<KernelSummary>> = vec![None; functions.len()];
    let mut callee_bytes: HashMap<String, u64> = HashMap::new();
    for at in callees_first(&calls) {
        let called = calls.iter().any(|c| c.contains(&at));
        let summary = cx.summarise(&functions[at], &module, &callee_bytes, !called);
        callee_bytes.insert(summary.name.clone(), summary.shared_bytes);
        summaries[at] = Some(summary);
    }
    summaries.into_iter().flatten().collect()
}

/// The function a `tt.call` names (`tt.call @helper(%x) : ...`).
fn callee<'t>(text: &'t str, op: &mlir::Op) -> Option<&'t str> {
    if op.name != "tt.call" {
        return None;
    }
    let line = &text[op.span.start..op.span.end];
    let at = line.find('@')? + 1;
    let end = line[at..]
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '.')))
        .map_or(line.len(), |e| at + e);
    Some(&line[at..end])
}

/// Every function once, each after the functions it calls (a cycle, which
/// Triton rejects, is broken where it closes).
fn callees_first(calls: &[Vec<usize>]) -> Vec<usize> {
    fn visit(f: usize, calls: &[Vec<usize>], state: &mut [u8], out: &mut Vec<usize>) {
        if state[f] != 0 {
            return;
        }
        state[f] = 1;
        for &g in &calls[f] {
            visit(g, calls, state, out);
        }
        state[f] = 2;
        out.push(f);
    }
    let mut state = vec![0u8; calls.len()];
    let mut out = Vec::with_capacity(calls.len());
    for f in 0..calls.len() {
        visit(f, calls, &mut state, &mut out);
    }
    out
}

/// The module line's attributes the summary reports.
#[derive(Default)]
struct ModuleFacts {
    target: Option<String>,
    num_warps: Option<u32>,
    threads_per_warp: Option<u32>,
    shared: Option<u64>,
    tensor_memory: Option<u64>,
}

impl ModuleFacts {
    fn read(text: &str) -> ModuleFacts {
        // The first line that starts with `module` (a substring search:
        // a file of several dumps is mostly blanked-out lines).
        let line = text.match_indices("module").find_map(|(at, _)| {
            let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
            text[start..at].trim().is_empty().then(|| &text[start..end])
        });
        let Some(line) = line else {
            return ModuleFacts::default();
        };
        let int = |key: &str| -> Option<u64> {
            let at = line.find(key)? + key.len();
            let rest = line[at..].trim_start().strip_prefix('=')?.trim_start();
            rest.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .ok()
        };
        let target = line.find("ttg.target = \"").and_then(|at| {
            let rest = &line[at + 14..];
            rest.find('"').map(|end| rest[..end].to_string())
        });
        ModuleFacts {
            target,
            num_warps: int("\"ttg.num-warps\"").map(|n| n as u32),
            threads_per_warp: int("\"ttg.threads-per-warp\"").map(|n| n as u32),
            shared: int("ttg.shared"),
            tensor_memory: int("ttg.tensor_memory_size"),
        }
    }
}

struct Context<'a> {
    db: &'a dyn salsa::Database,
    file: SourceFile,
    text: &'a str,
    threads: u32,
    num_warps: u32,
    vendor: Vendor,
    machine: layout_algebra::machine::Machine,
    /// The bytes of one physical partition of the target's shared memory
    /// (0: not partitioned).
    partition_bytes: u64,
    /// Whether LLVM's SLP vectoriser works on the dump's target
    /// (`machine::vectorises`).
    vectorises: bool,
    /// The partition warps of every `ttg.warp_specialize` once Triton has
    /// padded them: the module's most, rounded up to whole warp groups.
    padded_partition_warps: u64,
    values: &'a [(Span, Option<Value>)],
}

/// A buffer before placement: whose it is and how big.
struct Pending {
    op: OpId,
    kind: BufferKind,
    size: u64,
    alignment: u64,
}

/// Scratch that lives as long as the function: warp specialisation keeps
/// a byte of state per partition warp there.
const WHOLE_FUNCTION: Interval = Interval::EVERYTHING;

impl Context<'_> {
    fn summarise(
        &self,
        f: &Function,
        module: &ModuleFacts,
        callees: &HashMap<String, u64>,
        root: bool,
    ) -> KernelSummary {
        let ids = allocator::numbering(f);
        // Ops LLVM removes (a branch or loop whose condition folds) keep
        // their buffers and issue nothing.
        let removed = folded_branches::removed_ops(f, self.text);
        // Ops in a loop whose first trip LLVM peels (known once the
        // buffers are placed): each issues a second static copy.
        let peeled: std::cell::OnceCell<Vec<bool>> = std::cell::OnceCell::new();
        let issued_once = |id: OpId, instructions: Vec<InstructionCount>| {
            let op = &f.ops[id];
            if removed[id] {
                return Vec::new();
            }
            // A CDNA copy into shared memory under a mask that folds to
            // false: Triton branches around its `global_load_lds`, and LLVM
            // removes it (GFX12's asynchronous copies are kept).
            let copy = op.name == "ttg.async_copy_global_to_local"
                || op.name.ends_with(".buffer_load_to_local");
            if copy
                && self.vendor == Vendor::Amd
                && self.machine.lds.spelling == LdsSpelling::Gcn
                && self.text[op.span.start..op.span.end]
                    .split_once(" mask ")
                    .and_then(|(_, rest)| rest.split([' ', ',']).next())
                    .is_some_and(|mask| folded_branches::masked_off(f, self.text, mask))
            {
                return Vec::new();
            }
            // A conversion whose result only removed code uses: its stores
            // and barrier stay, its loads go.
            let unused = is_ttg(op, "convert_layout")
                && op.results.first().is_some_and(|r| {
                    folded_branches::used_only_by_removed(f, self.text, &removed, r)
                });
            match self.conversion(op).and_then(|c| c.round_trip.as_ref()) {
                Some([store, _]) if unused => store
                    .by_opcode()
                    .iter()
                    .flat_map(InstructionCount::of_side)
                    .collect(),
                _ => instructions,
            }
        };
        let issued = |id: OpId, instructions: Vec<InstructionCount>| {
            let mut instructions = issued_once(id, instructions);
            if peeled.get().is_some_and(|p| p[id]) {
                for i in &mut instructions {
                    i.count *= 2;
                    i.wavefronts *= 2;
                }
            }
            instructions
        };
        let mut users: HashMap<&str, Vec<OpId>> = HashMap::new();
        for (id, op) in f.ops.iter().enumerate() {
            for v in &op.operands {
                users.entry(v.as_str()).or_default().push(id);
            }
        }
        let mut pending = Vec::new();
        let mut unmeasured = Vec::new();
        // Explicit buffers, then scratch, each in the order the walk meets
        // them: the allocator's order before it sorts by size. A
        // partitioned tensor is one buffer per partition.
        for (id, op) in f.ops.iter().enumerate() {
            if op.name.ends_with("local_alloc") {
                match self.explicit(op) {
                    Some(Some((size, alignment, pieces))) => {
                        pending.extend((0..pieces).map(|_| Pending {
                            op: id,
                            kind: BufferKind::Explicit,
                            size: size / pieces,
                            alignment,
                        }))
                    }
                    Some(None) => {}
                    None => unmeasured.push(Unmeasured {
                        span: op.span,
                        op: op.name.clone(),
                        reason: unsized_because(op),
                    }),
                }
            }
        }
        // Calls come last: Triton keeps their buffers in a list of its own.
        let mut calls = Vec::new();
        for (id, op) in f.ops.iter().enumerate() {
            let (size, alignment, kind) = match op.name.as_str() {
                // Warp specialisation keeps a byte of state per partition
                // warp for the whole function.
                "tt.func" if partition_warps(f) > 0 => {
                    (self.padded_partition_warps, 4, BufferKind::Scratch)
                }
                "tt.call" => match callee(self.text, op).and_then(|c| callees.get(c)) {
                    Some(&bytes) => {
                        if bytes > 0 {
                            calls.push(Pending {
                                op: id,
                                kind: BufferKind::Call,
                                size: bytes,
                                alignment: SCRATCH_ALIGNMENT,
                            });
                        }
                        continue;
                    }
                    None => {
                        unmeasured.push(Unmeasured {
                            span: op.span,
                            op: op.name.clone(),
                            reason: UnmeasuredReason::UnknownCallee,
                        });
                        continue;
                    }
                },
                "ttg.warp_specialize" => match capture::capture_bytes(op.operand_types()) {
                    Some(bytes) => (bytes, 8, BufferKind::Scratch),
                    None => {
                        unmeasured.push(Unmeasured {
                            span: op.span,
                            op: op.name.clone(),
                            reason: unsized_because(op),
                        });
                        continue;
                    }
                },
                _ => match self.scratch(f, id, &users) {
                    Some(bytes) => (bytes, SCRATCH_ALIGNMENT, BufferKind::Scratch),
                    None => {
                        unmeasured.push(Unmeasured {
                            span: op.span,
                            op: op.name.clone(),
                            reason: unsized_because(op),
                        });
                        continue;
                    }
                },
            };
            if size > 0 {
                pending.push(Pending {
                    op: id,
                    kind,
                    size,
                    alignment,
                });
            }
        }
        pending.append(&mut calls);
        let aliases = memdesc_aliases(f);
        let buffers: Vec<Buffer> = pending
            .iter()
            .enumerate()
            .map(|(i, p)| Buffer {
                size: p.size,
                alignment: p.alignment,
                live: match p.kind {
                    BufferKind::Scratch if p.op == 0 => WHOLE_FUNCTION,
                    BufferKind::Scratch | BufferKind::Call => Interval {
                        start: ids[p.op],
                        end: ids[p.op] + 1,
                    },
                    BufferKind::Explicit => explicit_liveness(f, &ids, &users, &aliases, p.op),
                },
                neighbours: (0..pending.len())
                    .filter(|&j| {
                        j != i && pending[j].op == p.op && pending[j].kind == BufferKind::Explicit
                    })
                    .collect(),
                concurrent: f
                    .enclosing(p.op, "ttg.warp_specialize")
                    .zip(f.region_of(p.op)),
            })
            .collect();
        let (offsets, shared_bytes) = allocator::place(&buffers, self.partition_bytes);
        if self.vendor == Vendor::Amd {
            let placed_at =
                |alloc: OpId| Some(offsets[pending.iter().position(|p| p.op == alloc)?]);
            let sized = |l: OpId| self.loop_body_size(f, l);
            let _ = peeled.set(peeled_loops::peeled_ops(f, placed_at, sized));
        }
        let mut ops: Vec<SharedOp> = Vec::new();
        // The op each entry of `ops` lists.
        let mut op_ids: Vec<OpId> = Vec::new();
        for (i, p) in pending.iter().enumerate() {
            if i > 0 && pending[i - 1].op == p.op {
                // Another piece of the partitioned tensor just listed.
                let last = ops.last_mut().expect("the first piece was listed");
                last.shared_bytes += p.size;
                last.partition_offsets.push(offsets[i]);
                continue;
            }
            let op = &f.ops[p.op];
            let pieces = pending.iter().filter(|q| q.op == p.op).count();
            let recorded_offsets = recorded_offsets(op);
            op_ids.push(p.op);
            ops.push(SharedOp {
                span: op.span,
                op: op.name.clone(),
                kind: p.kind,
                shared_bytes: p.size,
                offset: offsets[i],
                recorded: recorded(op),
                partition_offsets: if pieces > 1 {
                    vec![offsets[i]]
                } else {
                    Vec::new()
                },
                paired_with: None,
                recorded_partition_offsets: if recorded_offsets.len() > 1 {
                    recorded_offsets
                } else {
                    Vec::new()
                },
                instructions: in_partition(
                    f,
                    p.op,
                    issued(p.op, self.instructions(f, p.op, offsets[i])),
                ),
            });
        }
        // Operations that touch a buffer without owning one
        // (`ttg.local_load`, `ttg.local_store`, async copies).
        for (id, op) in f.ops.iter().enumerate() {
            if pending.iter().any(|p| p.op == id) {
                continue;
            }
            let instructions = match op.name.as_str() {
                "ttg.async_copy_global_to_local" => self.async_copy_instructions(op, false),
                name if name.ends_with(".buffer_load_to_local") => {
                    self.async_copy_instructions(op, true)
                }
                "ttng.async_tma_copy_global_to_local"
                | "ttng.async_tma_copy_local_to_global"
                | "ttng.async_tma_reduce" => {
                    let messages = scratch::parse_types(&op.types)
                        .into_iter()
                        .last()
                        .and_then(|t| match self.encoding_named(t.encoding.as_deref()?)? {
                            Encoding::NvmmaShared(n) => n.tma_messages(&t.shape).ok(),
                            _ => None,
                        })
                        .unwrap_or(1);
                    // Each warp of the issuing ones sends one message a round.
                    let warps = f.partition_warps_of(id).unwrap_or(self.num_warps).max(1);
                    let issued = messages.div_ceil(u64::from(warps));
                    tma_instructions(op, &self.text[op.span.start..op.span.end], issued)
                }
                "ttng.async_tma_gather" | "ttng.async_tma_scatter" => {
                    self.tma_gather_scatter_instructions(op)
                }
                name if name.ends_with(".async_tdm_copy_global_to_local")
                    || name.ends_with(".async_tdm_copy_local_to_global") =>
                {
                    tdm_instructions(op, &self.machine.banks)
                }
                // `tcgen05.alloc` writes the tensor-memory base address to
                // the start of shared memory, once per kernel; every thread
                // reads it back.
                "ttng.tmem_alloc"
                    if f.ops.iter().position(|o| o.name == "ttng.tmem_alloc") == Some(id) =>
                {
                    vec![InstructionCount {
                        mnemonic: "ld.shared.b32".into(),
                        count: 1,
                        wavefronts: 1,
                        conflicts: 0,
                        one_thread: false,
                        owning_warps: None,
                        warps: None,
                    }]
                }
                // Its loads are the loop's own, once LLVM folds the two.
                "ttg.local_load" if self.folded_into_loop_load(f, id) => Vec::new(),
                "ttg.local_load"
                    if self.machine.lds.restaged_reads_unpaired && refilled_after(f, id) =>
                {
                    self.unpaired_access_instructions(op)
                }
                "ttg.local_load"
                    if self.machine.lds.phi_offsets_pair_by_register
                        && self.offsets_through_phi(f, &aliases, id) =>
                {
                    self.access_instructions_split(op, OffsetSplit::WholeRegisters)
                }
                _ => self.access_instructions(op),
            };
            if !instructions.is_empty() {
                // Where the buffer it reads or writes sits (it owns no bytes).
                let offset = op
                    .operands
                    .iter()
                    .filter_map(|v| aliases.get(v)?.first())
                    .find_map(|alloc| {
                        let k = pending.iter().position(|p| p.op == *alloc)?;
                        Some(offsets[k])
                    })
                    .unwrap_or(0);
                op_ids.push(id);
                ops.push(SharedOp {
                    span: op.span,
                    op: op.name.clone(),
                    kind: BufferKind::Explicit,
                    shared_bytes: 0,
                    offset,
                    recorded: None,
                    partition_offsets: Vec::new(),
                    recorded_partition_offsets: Vec::new(),
                    paired_with: None,
                    instructions: in_partition(f, id, issued(id, instructions)),
                });
            }
        }
        if self.vendor == Vendor::Nvidia {
            self.double_peeled_flag_loops(f, &mut ops, &op_ids);
        } else {
            self.pair_accesses_across_ops(f, &aliases, &mut ops, &op_ids);
        }
        ops.sort_by_key(|o| o.span.start);
        KernelSummary {
            name: f.name.clone(),
            span: f.span,
            target: module.target.clone(),
            num_warps: module.num_warps,
            shared_bytes,
            // The module's total is its kernels'; a function that is only
            // called has no figure of its own.
            recorded_shared_bytes: if root { module.shared } else { None },
            limit: module.target.as_deref().and_then(shared_memory_limit),
            ops,
            unmeasured,
            complete: f.complete,
            tensor_memory: self.tensor_memory(f, &ids, &users),
            recorded_tensor_memory_columns: module.tensor_memory,
        }
    }

    /// On NVIDIA, a second static copy of the instructions of each loop
    /// whose first trip LLVM peels (`peeled_loops::peeled_flag_loops`),
    /// sized from the instructions `ops` (listing ops `op_ids`) name.
    fn double_peeled_flag_loops(&self, f: &Function, ops: &mut [SharedOp], op_ids: &[OpId]) {
        let lanes = u64::from(self.threads) * u64::from(self.num_warps);
        let shared_in = |l: OpId| -> u64 {
            ops.iter()
                .zip(op_ids)
                .filter(|&(_, &id)| f.enclosing(id, "scf.for") == Some(l))
                .flat_map(|(o, _)| &o.instructions)
                .map(|i| i.count)
                .sum()
        };
        let peeled = peeled_loops::peeled_flag_loops(f, self.text, |l| {
            peeled_loops::flag_loop_size(f, l, lanes, shared_in(l))
        });
        for (op, &id) in ops.iter_mut().zip(op_ids) {
            if peeled[id] {
                for i in &mut op.instructions {
                    i.count *= 2;
                    i.wavefronts *= 2;
                }
            }
        }
    }

    /// Every `ttng.tmem_alloc`, sized and placed as Triton's tensor-memory
    /// allocator does (`kernel::tensor_memory`).
    fn tensor_memory(
        &self,
        f: &Function,
        ids: &[usize],
        users: &HashMap<&str, Vec<OpId>>,
    ) -> Vec<TensorMemoryAlloc> {
        let aliases = memdesc_aliases(f);
        let mut allocs: Vec<(OpId, tensor_memory::TensorMemorySize)> = f
            .ops
            .iter()
            .enumerate()
            .filter(|(_, op)| op.name == "ttng.tmem_alloc")
            .filter_map(|(id, op)| {
                let t = scratch::parse_type(op.result_types())?;
                let encoding = self.alias_text(t.encoding.as_deref()?)?;
                let bits = scratch::element_bits(&t.element)?;
                Some((
                    id,
                    tensor_memory::size(&t.allocation_shape(), bits, &encoding)?,
                ))
            })
            .collect();
        allocs.sort_by_key(|&(id, _)| ids[id]);
        // An MMA with its A operand in tensor memory in 64-row blocks needs
        // it in the accumulator's half of the lanes.
        let alloc_of = |value: &str| aliases.get(value).and_then(|a| a.first().copied());
        let mut group: HashMap<OpId, usize> = HashMap::new();
        for op in f.ops.iter().filter(|o| o.name == "ttng.tc_gen5_mma") {
            let a_in_tmem = scratch::parse_types(&op.types)
                .first()
                .is_some_and(|t| t.in_tensor_memory());
            let (Some(a), Some(acc)) = (
                op.operands.first().and_then(|v| alloc_of(v)),
                op.operands.get(2).and_then(|v| alloc_of(v)),
            ) else {
                continue;
            };
            let a_rows = allocs.iter().find(|(id, _)| *id == a).map(|(_, s)| s.rows);
            if a_in_tmem && a_rows == Some(64) {
                let g = group
                    .get(&a)
                    .or_else(|| group.get(&acc))
                    .copied()
                    .unwrap_or(a);
                group.insert(a, g);
                group.insert(acc, g);
            }
        }
        let requests: Vec<tensor_memory::Request> = allocs
            .iter()
            .map(|&(id, size)| tensor_memory::Request {
                size,
                live: explicit_liveness(f, ids, users, &aliases, id),
                group: group.get(&id).copied(),
            })
            .collect();
        let (placed, _) = tensor_memory::place(&requests);
        allocs
            .iter()
            .zip(placed)
            .map(|(&(id, size), (column, row))| TensorMemoryAlloc {
                span: f.ops[id].span,
                columns: size.columns,
                rows: size.rows,
                column,
                row,
                recorded_column: Function::int_attribute(&f.ops[id], "tensor_memory_col_offset"),
            })
            .collect()
    }

    /// The attribute an alias names (`#tmem` -> `#ttng.tensor_memory_encoding<...>`),
    /// or the attribute itself when written inline.
    fn alias_text(&self, name: &str) -> Option<String> {
        let name = name.trim();
        if name.contains('<') {
            return Some(name.to_string());
        }
        self.text.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.trim_start().strip_prefix('=')?;
            Some(
                rest.split(" loc(")
                    .next()
                    .unwrap_or(rest)
                    .trim()
                    .to_string(),
            )
        })
    }

    /// The encoding a type names (`#blocked`), from the dump's aliases.
    fn encoding(&self, t: &TypeText) -> Option<Encoding> {
        self.encoding_named(t.encoding.as_deref()?)
    }

    /// `#blocked`, or an inline `#ttg.slice<{dim = 1, parent = #blocked}>`.
    fn encoding_named(&self, name: &str) -> Option<Encoding> {
        encoding_named(self.db, self.file, name)
    }

    fn layout(&self, t: &TypeText) -> Option<(Encoding, layout_algebra::LinearLayout)> {
        let e = self.encoding(t)?;
        let l = e.to_linear_layout(&t.shape).ok()?;
        Some((e, l))
    }

    /// A `local_alloc`'s buffer: `Some(None)` when it is not in shared
    /// memory, `None` when it cannot be sized.
    /// A `local_alloc`'s bytes, alignment and pieces (one per partition
    /// of a `#ttg.partitioned_shared` tensor); `Some(None)` for tensor
    /// memory, `None` when it cannot be sized.
    fn explicit(&self, op: &mlir::Op) -> Option<Option<(u64, u64, u64)>> {
        let result = op.result_types();
        let memdesc = scratch::parse_type(result)?;
        if memdesc.in_tensor_memory() {
            return Some(None);
        }
        let encoding = self.encoding(&memdesc);
        let pieces = match &encoding {
            Some(Encoding::PartitionedShared(p)) => p.num_partitions as u64,
            _ => 1,
        };
        let (bytes, alignment) = scratch::local_alloc(&memdesc, encoding.as_ref())?;
        Some(Some((bytes, alignment, pieces)))
    }

    /// Scratch bytes of an operation (0 when it needs none), `None` when it
    /// needs some that cannot be sized.
    fn scratch(&self, f: &Function, id: OpId, users: &HashMap<&str, Vec<OpId>>) -> Option<u64> {
        let op = &f.ops[id];
        let line = &self.text[op.span.start..op.span.end];
        let types = scratch::parse_types(&op.types);
        let inputs = || scratch::parse_types(op.operand_types());
        match op.name.as_str() {
            "ttg.convert_layout" | "triton_gpu.convert_layout" => self.conversion(op).map(|c| {
                if c.kind.name() == "shared" {
                    c.scratch_bytes
                } else {
                    0
                }
            }),
            "tt.reduce" => {
                let ins = inputs();
                let (_, layout) = self.layout(ins.first()?)?;
                scratch::reduce(
                    &ins,
                    &layout,
                    scratch::axis(line)?,
                    self.machine.banks.banks,
                )
            }
            "tt.scan" => {
                let ins = inputs();
                let (encoding, layout) = self.layout(ins.first()?)?;
                scratch::scan(&ins, &encoding, &layout, scratch::axis(line)?)
            }
            "tt.histogram" => scratch::histogram(types.last()?, self.threads),
            "tt.atomic_rmw"
            | "tt.atomic_cas"
            | "amdg.buffer_atomic_rmw"
            | "amdg.buffer_atomic_cas" => {
                let used = op
                    .results
                    .first()
                    .is_some_and(|r| users.get(r.as_str()).is_some_and(|u| !u.is_empty()));
                if !used {
                    return Some(0);
                }
                let result_type = op.result_types();
                match scratch::parse_type(result_type) {
                    Some(t) => {
                        let (_, layout) = self.layout(&t)?;
                        scratch::atomic(Some((&t, &layout)), None)
                    }
                    None => {
                        // `tt.atomic_rmw add, acq_rel, gpu, %p, %v : (!tt.ptr<i32>, i32) -> i32`
                        let scalar = result_type.trim();
                        scratch::atomic(None, Some(scalar))
                    }
                }
            }
            "tt.gather" => {
                let src = types.first()?;
                let (_, layout) = self.layout(src)?;
                let axis = scratch::axis(line)?;
                if scratch::warps_along(&layout, axis) == 1 {
                    Some(0)
                } else {
                    Some(src.elements() * scratch::element_bits(&src.element)? as u64 / 8)
                }
            }
            "ttng.tensormap_create" => Some(128),
            _ => Some(0),
        }
    }

    /// The analysis of the conversion on `op`'s line.
    /// Whether the conversion `op` stores at least `elements` elements per
    /// instruction (a vector the vectoriser may fill from as many scalars).
    fn stores_at_least(&self, op: &mlir::Op, elements: u32) -> bool {
        self.conversion(op)
            .and_then(|c| {
                let [store, _] = c.round_trip.as_ref()?;
                Some(store.mnemonic.instruction.bits_per_lane() / c.element_bits.max(1))
            })
            .is_some_and(|stored| stored >= elements)
    }

    fn conversion(&self, op: &mlir::Op) -> Option<&ConversionReport> {
        match self.value_on(op.span)? {
            Value::Conversion(c) => Some(c),
            _ => None,
        }
    }

    fn value_on(&self, line: Span) -> Option<&Value> {
        self.values
            .iter()
            .find(|(span, _)| line.start <= span.start && span.start <= line.end)
            .and_then(|(_, v)| v.as_ref())
    }

    /// The instructions of `f`'s op `id`, whose own bytes (if any) start at
    /// `offset`.
    fn instructions(&self, f: &Function, id: OpId, offset: u64) -> Vec<InstructionCount> {
        let op = &f.ops[id];
        if let Some(c) = self.conversion(op) {
            return self.conversion_instructions(c);
        }
        match op.name.as_str() {
            "tt.func" => {
                warp_state_instructions(self.padded_partition_warps, &self.machine, self.threads)
            }
            "ttg.warp_specialize" => self.capture_instructions(f, id, offset),
            "tt.reduce" => self.reduce_instructions(f, id),
            "tt.scan" => self.scan_instructions(f, id),
            "ttng.tensormap_create" if self.vendor == Vendor::Nvidia => {
                descriptor::instructions(op, &self.text[op.span.start..op.span.end])
            }
            "tt.histogram"
            | "tt.atomic_rmw"
            | "tt.atomic_cas"
            | "amdg.buffer_atomic_rmw"
            | "amdg.buffer_atomic_cas" => self.exchange_instructions(f, op),
            "ttg.async_copy_global_to_local" => self.async_copy_instructions(op, false),
            name if name.ends_with(".buffer_load_to_local") => {
                self.async_copy_instructions(op, true)
            }
            _ => self.access_instructions(op),
        }
    }

    /// The captures a `ttg.warp_specialize` passes through its buffer at
    /// `offset`: the default warps store them, every lane the same
    /// address, and each partition's warps load those they use.
    fn capture_instructions(&self, f: &Function, id: OpId, offset: u64) -> Vec<InstructionCount> {
        let backend = capture::Backend::of(self.vendor);
        let Some(traffic) = capture::traffic(f, id, offset, backend) else {
            return Vec::new();
        };
        let mut out: Vec<InstructionCount> = Vec::new();
        let sides = std::iter::once((true, None, &traffic.stores))
            .chain(traffic.loads.iter().map(|(warps, l)| (false, *warps, l)));
        for (store, warps, accesses) in sides {
            for access in accesses {
                let direction = if store {
                    Direction::Store
                } else {
                    Direction::Load
                };
                let wavefronts = access.addresses()
                    * broadcast_wavefronts(
                        &self.machine.banks,
                        access.bits() as u32,
                        direction,
                        self.threads,
                    );
                let mnemonic = access.mnemonic(store, &self.machine);
                match out
                    .iter_mut()
                    .find(|i| i.mnemonic == mnemonic && i.warps == warps)
                {
                    Some(i) => {
                        i.count += 1;
                        i.wavefronts += wavefronts;
                    }
                    None => out.push(InstructionCount {
                        mnemonic,
                        count: 1,
                        wavefronts,
                        conflicts: 0,
                        one_thread: false,
                        owning_warps: None,
                        warps,
                    }),
                }
            }
        }
        out
    }

    /// Whether `f`'s `local_load` `id`, before a loop, is folded with the
    /// loop body's load of the same iteration argument
    /// ([`folded_loads`]): each moves one element per instruction.
    fn folded_into_loop_load(&self, f: &Function, id: OpId) -> bool {
        let one_element = |op: &mlir::Op| {
            matches!(
                self.value_on(op.span),
                Some(Value::Access(a)) if a.vector == 1
                    && a.pairs.is_none()
                    && matches!(a.counted.instruction, Instruction::LdSt { .. })
            )
        };
        folded_loads::loop_load_folded_with(f, id)
            .is_some_and(|body| one_element(&f.ops[id]) && one_element(&f.ops[body]))
    }

    /// A `local_alloc` with a value, `local_store`, `local_load`: the
    /// access the checker analysed on that line.
    /// The size LLVM's loop passes count for the body of loop `id`
    /// (`peeled_loops::body_size`, from each access's instructions and each
    /// dot's MFMA encoding).
    fn loop_body_size(&self, f: &Function, id: OpId) -> Option<u64> {
        peeled_loops::body_size(
            f,
            id,
            u64::from(self.threads) * u64::from(self.num_warps),
            |op| self.access_instructions(op),
            |name| match encoding_named(self.db, self.file, name) {
                Some(Encoding::AmdMfma(mfma)) => Some(mfma),
                _ => None,
            },
        )
    }

    fn access_instructions(&self, op: &mlir::Op) -> Vec<InstructionCount> {
        match self.value_on(op.span) {
            Some(Value::Access(a)) => {
                if let (Some(pairs), Instruction::Paired { bits, .. }) =
                    (a.pairs, a.counted.instruction)
                {
                    return self.paired_instructions(a, pairs, bits);
                }
                // The `_d16_hi` stores apart, each with its share of the
                // wavefronts (their addresses are the others' moved by
                // one element, which leaves the banks' load as it is).
                let high = a.high_half.min(a.instructions);
                let high_wavefronts = a.wavefronts * high / a.instructions.max(1);
                [
                    (
                        a.instruction,
                        a.instructions - high,
                        a.wavefronts - high_wavefronts,
                    ),
                    (a.instruction.on_high_half(), high, high_wavefronts),
                ]
                .into_iter()
                .filter(|&(_, count, _)| count > 0)
                .map(|(mnemonic, count, wavefronts)| {
                    InstructionCount::of_access(mnemonic, count, wavefronts, a.conflicts)
                })
                .collect()
            }
            _ => Vec::new(),
        }
    }

    /// `access_instructions` of a paired access whose request constants
    /// LLVM splits as `split` says.
    fn access_instructions_split(
        &self,
        op: &mlir::Op,
        split: OffsetSplit,
    ) -> Vec<InstructionCount> {
        let Some(Value::Access(a)) = self.value_on(op.span) else {
            return Vec::new();
        };
        let (Some(_), Instruction::Paired { bits, .. }) = (a.pairs, a.counted.instruction) else {
            return self.access_instructions(op);
        };
        let access = layout_algebra::bank::Access {
            distributed: &a.counted.distributed,
            shared: &a.counted.shared,
            element_bits: a.element_bits,
            instruction: a.counted.instruction,
            direction: a.direction,
        };
        match layout_algebra::bank::pair_counts_split(&access, &[], split) {
            Ok(Some(pairs)) => self.paired_instructions(a, pairs, bits),
            _ => self.access_instructions(op),
        }
    }

    /// A paired access whose pairs LLVM issues as single requests
    /// (`LdsInstructions::restaged_reads_unpaired`), by exact opcode.
    fn unpaired_access_instructions(&self, op: &mlir::Op) -> Vec<InstructionCount> {
        match self.value_on(op.span) {
            Some(Value::Access(a)) => match (a.pairs, a.counted.instruction) {
                (Some(pairs), Instruction::Paired { bits, .. }) => {
                    let single = layout_algebra::bank::PairCounts {
                        st64: 0,
                        plain: 0,
                        single: pairs.single + 2 * (pairs.st64 + pairs.plain),
                    };
                    self.paired_instructions(a, single, bits)
                }
                _ => self.access_instructions(op),
            },
            _ => Vec::new(),
        }
    }

    /// A paired access by exact opcode: its pairs in each encoding and the
    /// requests left single, each with its share of the wavefronts (a pair
    /// serves two requests).
    fn paired_instructions(
        &self,
        a: &crate::value::AccessReport,
        pairs: layout_algebra::bank::PairCounts,
        bits: u32,
    ) -> Vec<InstructionCount> {
        pairs
            .split(bits, a.wavefronts)
            .into_iter()
            .map(|(instruction, count, wavefronts)| {
                let mnemonic = self
                    .machine
                    .mnemonic(instruction, a.direction, a.element_bits)
                    .spelled(self.machine.lds.spelling);
                InstructionCount::of_access(mnemonic, count, wavefronts, a.conflicts)
            })
            .collect()
    }

    /// The store of the source and the load of the destination of a
    /// conversion through shared memory, by exact opcode: what the
    /// conversion's analysis counted.
    fn conversion_instructions(&self, c: &ConversionReport) -> Vec<InstructionCount> {
        c.round_trip
            .iter()
            .flatten()
            .flat_map(InstructionCount::of_side)
            .collect()
    }

    /// `ttng.async_tma_gather` / `ttng.async_tma_scatter` (Blackwell's
    /// `desc.gather`, `desc.scatter`): each warp moves four rows at a time
    /// of the row offsets its lanes all hold (`tile::gather4`,
    /// `tile::scatter4`), each row in messages of at most 128 bytes, so a
    /// thread issues one instruction per four distinct offset registers and
    /// message (Triton's `iterateGatherScatterIndices`; warps and
    /// registers that repeat offsets issue nothing more).
    fn tma_gather_scatter_instructions(&self, op: &mlir::Op) -> Vec<InstructionCount> {
        let types = scratch::parse_types(&op.types);
        let (Some(offsets), Some(buffer)) = (
            types.iter().find(|t| !t.is_memdesc() && t.shape.len() == 1),
            types
                .iter()
                .rev()
                .find(|t| t.is_memdesc() && t.shape.len() == 2),
        ) else {
            return Vec::new();
        };
        let (Some((_, layout)), Some(bits)) =
            (self.layout(offsets), scratch::element_bits(&buffer.element))
        else {
            return Vec::new();
        };
        let registers = layout.in_dim_size("register");
        let repeated = layout
            .free_variable_masks()
            .into_iter()
            .find(|(d, _)| d.as_str() == "register")
            .map_or(0, |(_, m)| m);
        let groups = (0..registers)
            .step_by(4)
            .filter(|r| r & repeated == 0)
            .count() as u64;
        let row_bytes = u64::from(buffer.shape[1]) * u64::from(bits).div_ceil(8);
        let messages = row_bytes.div_ceil(128);
        let mnemonic = if op.name.ends_with("gather") {
            "cp.async.bulk.tensor.2d.tile::gather4.shared::cta.global.mbarrier::complete_tx::bytes"
        } else {
            "cp.async.bulk.tensor.2d.tile::scatter4.global.shared::cta.bulk_group"
        };
        let count = groups * messages;
        // Each message moves four rows' share of one 128-byte segment.
        let message_bytes = 4 * row_bytes / messages.max(1);
        vec![InstructionCount {
            mnemonic: mnemonic.to_string(),
            count,
            wavefronts: count * message_bytes.div_ceil(128),
            conflicts: 0,
            one_thread: false,
            owning_warps: None,
            warps: None,
        }]
    }

    /// `ttg.async_copy_global_to_local`: each thread copies vectors of its
    /// share of the tensor from global memory straight into the buffer
    /// (NVIDIA's `cp.async`, 16 bytes as `.cg`, 4 or 8 as `.ca`; AMD's
    /// direct-to-LDS `global_load_lds_dword*`). The vector is the widest the
    /// pointers' contiguity, the buffer's layout and 16 bytes allow; its
    /// writes into shared memory meet bank conflicts like any store, and
    /// `.cg`'s cost per 128-byte line as well
    /// ([`layout_algebra::bank::cp_async_cg_wavefronts`]). `buffer`: AMD's
    /// `buffer_load_to_local`, the same copy through a buffer resource
    /// (`buffer_load_dword* ... lds`); its source is a base pointer and a
    /// tensor of offsets in the distributed layout.
    fn async_copy_instructions(&self, op: &mlir::Op, buffer: bool) -> Vec<InstructionCount> {
        let Some((from, to)) = op.types.split_once("->") else {
            return Vec::new();
        };
        let (Some(src), Some(dst)) = (
            scratch::parse_type(from),
            // The result prints as `<128x64xi8, #shared, #smem, mutable>`.
            scratch::parse_type(&format!(
                "memdesc{}",
                to.trim().trim_start_matches("!ttg.memdesc")
            )),
        ) else {
            return Vec::new();
        };
        let (Some(bits), Some((_, distributed)), Some((_, shared))) = (
            scratch::element_bits(&dst.element),
            self.layout(&src),
            self.layout(&dst),
        ) else {
            return Vec::new();
        };
        // Without the pipeliner's `contiguity`, the pointers' own analysis
        // decides; the layouts bound it.
        let contiguity = Function::int_attribute(op, "contiguity")
            .unwrap_or(u64::MAX)
            .max(1);
        let Ok((widest, _)) =
            layout_algebra::bank::largest_vectorisation(&distributed, &shared, bits)
        else {
            return Vec::new();
        };
        let vector = widest.min(contiguity).min(128 / bits as u64).max(1) as u32;
        let access = layout_algebra::bank::Access {
            distributed: &distributed,
            shared: &shared,
            element_bits: bits,
            instruction: Instruction::LdSt {
                bits: vector * bits,
            },
            direction: Direction::Store,
        };
        let Ok(mut w) = layout_algebra::bank::wavefronts_by_rank(&access, &self.machine.banks)
        else {
            return Vec::new();
        };
        let bytes = vector * bits / 8;
        // `cp.async.cg` writes a 128-byte line at a time: a phase takes at
        // least as many wavefronts as the lines its lanes write.
        if self.vendor == Vendor::Nvidia && bytes == 16 {
            let Ok(trace) = layout_algebra::bank::trace(&access, &self.machine.banks, &[]) else {
                return Vec::new();
            };
            w.wavefronts = trace
                .phases
                .iter()
                .map(|p| {
                    layout_algebra::bank::cp_async_cg_wavefronts(
                        p.wavefronts(trace.banks),
                        p.requests.iter().map(|r| r.offset * bits as u64 / 8),
                    )
                })
                .sum();
        }
        // AMD: a global load with an LDS destination, or a buffer load
        // (`buffer_load_dwordx4 ... offen lds`) from `buffer_load_to_local`.
        let amd = if buffer {
            "buffer_load_"
        } else {
            "global_load_lds_"
        };
        let mnemonic = match (self.vendor, bytes) {
            (Vendor::Nvidia, 16) => "cp.async.cg.shared.global".to_string(),
            (Vendor::Nvidia, _) => "cp.async.ca.shared.global".to_string(),
            // GFX12's asynchronous copy (gfx1250), by bits.
            (Vendor::Amd, _) if self.machine.lds.spelling == LdsSpelling::Gfx12 && !buffer => {
                format!("global_load_async_to_lds_b{}", bytes * 8)
            }
            (Vendor::Amd, 16) => format!("{amd}dwordx4"),
            (Vendor::Amd, 12) => format!("{amd}dwordx3"),
            (Vendor::Amd, 8) => format!("{amd}dwordx2"),
            (Vendor::Amd, _) => format!("{amd}dword"),
        };
        let copies = InstructionCount {
            mnemonic,
            count: w.instructions,
            wavefronts: w.wavefronts,
            conflicts: (w.wavefronts / w.ideal.max(1)).saturating_sub(1),
            one_thread: false,
            owning_warps: None,
            warps: None,
        };
        // AMD writes a masked copy's `other` itself: beside each load into
        // LDS, a plain store of the fill value for the lanes the mask
        // turns off (the same vector, the same banks).
        let line = &self.text[op.span.start..op.span.end];
        if self.vendor == Vendor::Amd && line.contains(" other ") {
            let bits = bytes * 8;
            let fill = InstructionCount {
                mnemonic: self
                    .machine
                    .mnemonic(Instruction::LdSt { bits }, Direction::Store, bits)
                    .to_string(),
                ..copies.clone()
            };
            return vec![copies, fill];
        }
        vec![copies]
    }

    /// A scan across warps: every thread stores one partial per chunk (on
    /// NVIDIA Triton's `storeShared`, `st.shared::cta`), then reads the
    /// partials of the warps along the axis — all of them to carry into the
    /// next block, all but the last in the last block (LLVM drops the load
    /// nothing uses) — as LLVM merges them: NVIDIA chunk by chunk
    /// ([`Self::nvidia_scan_loads`]), AMD over the whole scratch
    /// ([`merged_lds_accesses`], as its compiled kernels show).
    fn scan_instructions(&self, f: &Function, id: OpId) -> Vec<InstructionCount> {
        let op = &f.ops[id];
        let line = &self.text[op.span.start..op.span.end];
        let needed = f.scan_partial_needs(id);
        let inputs = scratch::parse_types(op.operand_types());
        let (Some(first), Some(axis)) = (inputs.first(), scratch::axis(line)) else {
            return Vec::new();
        };
        let Some((encoding, layout)) = self.layout(first) else {
            return Vec::new();
        };
        let Some(walk) = scratch::scan_walk(&first.shape, &encoding, &layout, axis) else {
            return Vec::new();
        };
        let chunks = walk.chunks_per_block * walk.axis_blocks;
        let mut out = Vec::new();
        // AMD: each width's partials (`LdsPartials`).
        let mut lds: Vec<LdsPartials> = Vec::new();
        // The reads whose address LLVM folds to one of its own (see
        // `LdsInstructions::work_item_id_bits`) go alone.
        let own_address = self.scan_reads_folded_off_base(&layout, axis, walk.parallel_lanes);
        // Likewise the stores of the chunks whose index LLVM folds onto the
        // warp id (`scan_stores_folded_off_base`).
        let store_folded =
            self.scan_stores_folded_off_base(&layout, walk.parallel_lanes, walk.axis_warps);
        let mut region_start_bytes = 0;
        // AMD: reads the SLP vectoriser made vectors of
        // (`packed_f32_scan_reads`).
        let mut vectorised: Vec<InstructionCount> = Vec::new();
        // A malformed shape must not make a list of millions of offsets.
        if chunks.saturating_mul(walk.axis_warps) > 1 << 20 {
            return Vec::new();
        }
        for (operand, t) in inputs.iter().enumerate() {
            // Without an operand's width the later regions' starts are
            // unknown.
            let Some(bits) = scratch::element_bits(&t.element) else {
                break;
            };
            let bits = bits.clamp(8, 64);
            let bytes = u64::from(bits / 8);
            let aligned = region_start_bytes % bytes == 0;
            let base = region_start_bytes / bytes;
            region_start_bytes += walk.scratch_elements * bytes;
            // On AMD LLVM drops the reads of partials no used result needs;
            // NVIDIA's keep them (each is selected into the prefix under
            // the warp's predicate). The stores stay.
            let reads = match self.vendor {
                Vendor::Amd => needed.get(operand).copied().unwrap_or((true, true)),
                Vendor::Nvidia => (true, true),
            };
            let loads = scan_read_offsets(&walk, reads);
            if self.vendor == Vendor::Amd {
                let per_chunk = walk.parallel_lanes.max(1) * walk.axis_warps;
                let apart = matches!(
                    (bits, self.machine.lds.folded_scan_stores),
                    (64, Some(_)) | (32, Some(FoldedScanStores::Apart))
                );
                let (folded, stores): (Vec<u64>, Vec<u64>) = (0..chunks)
                    .map(|c| base + c * per_chunk)
                    .partition(|&k| apart && store_folded(k - base));
                // The folded stores share a base of their own: 32-bit ones
                // pair among themselves, 64-bit ones go alone.
                let (folded_stores, alone_stores) = match bits {
                    32 => (folded, 0),
                    _ => (Vec::new(), folded.len() as u64),
                };
                let (alone, loads): (Vec<u64>, Vec<u64>) = loads
                    .concat()
                    .into_iter()
                    .map(|o| base + o)
                    .partition(|&o| own_address(o));
                let alone = alone.len() as u64;
                // An f32 sum's or product's partials, one run from an
                // aligned start: LLVM's SLP vectoriser loads them as
                // vectors of growing width (`packed_f32_scan_reads`).
                let loads = match vectorised_scan_reads(&loads, walk.axis_warps) {
                    // One thread's run of a 1-D scan (a row scan's reads
                    // are not one run per thread in `loads`).
                    Some(vectors)
                        if self.machine.lds.packed_f32_scan_reads
                            && walk.parallel_lanes <= 1
                            && inputs.len() == 1
                            && t.element == "f32"
                            && sums_or_multiplies(f, op) =>
                    {
                        vectorised.extend(self.vector_read_instructions(&vectors));
                        Vec::new()
                    }
                    _ => loads,
                };
                // Partials two to a register (`packed_scan_partials`).
                let steps = shuffle_steps_along(&layout, axis);
                let packed = match self.machine.lds.packed_scan_partials {
                    Some(PackedScanPartials::HalfRegisters { min_shuffle_steps }) => {
                        steps >= min_shuffle_steps as usize
                    }
                    Some(PackedScanPartials::PairedBf16Chunks { min_shuffle_steps }) => {
                        steps >= min_shuffle_steps as usize
                            && t.element == "bf16"
                            && walk.chunks_per_block % 2 == 0
                    }
                    None => false,
                };
                // A region that does not start at a multiple of its width
                // pairs with no other.
                match lds
                    .iter_mut()
                    .find(|p| aligned && p.aligned && p.bits == bits)
                {
                    Some(p) => {
                        p.stores.extend(stores);
                        p.folded_stores.extend(folded_stores);
                        p.loads.extend(loads);
                        p.alone += alone;
                        p.alone_stores += alone_stores;
                        p.packed &= packed;
                    }
                    None => lds.push(LdsPartials {
                        bits,
                        aligned,
                        stores,
                        folded_stores,
                        loads,
                        alone,
                        alone_stores,
                        packed,
                    }),
                }
                continue;
            }
            let lanes = self.scan_partial_lanes(&layout, axis, bits);
            out.push(InstructionCount {
                mnemonic: format!("st.shared::cta.b{bits}"),
                count: chunks,
                wavefronts: chunks * lanes.map_or(1, |(stored, _)| stored),
                conflicts: 0,
                one_thread: false,
                owning_warps: None,
                warps: None,
            });
            out.extend(self.nvidia_scan_loads(
                &loads,
                bits,
                walk.parallel_lanes <= 1,
                lanes.map(|(_, loaded)| loaded),
            ));
        }
        for LdsPartials {
            bits,
            stores,
            folded_stores,
            loads,
            alone,
            alone_stores,
            packed,
            ..
        } in lds
        {
            for (direction, groups, alone) in [
                (Direction::Store, vec![stores, folded_stores], alone_stores),
                (Direction::Load, vec![loads], alone),
            ] {
                for offsets in groups.iter().filter(|g| !g.is_empty()) {
                    for count in
                        merged_lds_accesses(offsets, bits, direction, &self.machine.lds, packed)
                    {
                        match out.iter_mut().find(|i| i.mnemonic == count.mnemonic) {
                            Some(i) => {
                                i.count += count.count;
                                i.wavefronts += count.wavefronts;
                            }
                            None => out.push(count),
                        }
                    }
                }
                if alone == 0 {
                    continue;
                }
                let single = Instruction::LdSt { bits }
                    .mnemonic(direction, Vendor::Amd, bits)
                    .spelled(self.machine.lds.spelling)
                    .to_string();
                match out.iter_mut().find(|i| i.mnemonic == single) {
                    Some(i) => {
                        i.count += alone;
                        i.wavefronts += alone;
                    }
                    None => out.push(InstructionCount {
                        mnemonic: single,
                        count: alone,
                        wavefronts: alone,
                        conflicts: 0,
                        one_thread: false,
                        owning_warps: None,
                        warps: None,
                    }),
                }
            }
        }
        for count in vectorised {
            match out.iter_mut().find(|i| i.mnemonic == count.mnemonic) {
                Some(i) => {
                    i.count += count.count;
                    i.wavefronts += count.wavefronts;
                }
                None => out.push(count),
            }
        }
        out
    }

    /// The LDS reads of f32 scan partials the SLP vectoriser loads as
    /// `vectors` (first element, elements; the first at a 16-byte
    /// boundary). LLVM's load vectoriser then merges neighbouring loads
    /// up to 128 bits from a 16-byte boundary (two floats and one after
    /// them as `ds_read_b96`); the LDS reads a load at a 16-byte boundary
    /// in 128-bit pieces, one 8 bytes past it in 64-bit pieces, two of
    /// them a `ds_read2_b64`, and a float alone with `ds_read_b32`.
    fn vector_read_instructions(&self, vectors: &[(u64, u64)]) -> Vec<InstructionCount> {
        let mut loads: Vec<(u64, u64)> = Vec::new();
        for &(start, n) in vectors {
            match loads.last_mut() {
                Some((first, len))
                    if *first % 4 == 0 && *first + *len == start && *len + n <= 4 =>
                {
                    *len += n;
                }
                _ => loads.push((start, n)),
            }
        }
        let mut pieces: Vec<(Instruction, u64)> = Vec::new();
        let mut add = |i: Instruction, n: u64| match pieces.iter_mut().find(|(j, _)| *j == i) {
            Some((_, c)) => *c += n,
            None => pieces.push((i, n)),
        };
        for (start, n) in loads {
            let (words, floats) = if start % 4 == 0 {
                add(Instruction::LdSt { bits: 128 }, n / 4);
                (0, n % 4)
            } else if start % 2 == 0 {
                (n / 2, n % 2)
            } else {
                (0, n)
            };
            let paired = Instruction::Paired {
                bits: 64,
                st64: false,
            };
            add(paired, words / 2);
            add(Instruction::LdSt { bits: 64 }, words % 2);
            match floats {
                0 => {}
                // The floats left after 128-bit pieces are one load.
                f if start % 4 == 0 => add(
                    Instruction::LdSt {
                        bits: 32 * f as u32,
                    },
                    1,
                ),
                f => add(Instruction::LdSt { bits: 32 }, f),
            }
        }
        let spelling = self.machine.lds.spelling;
        lds_instruction_counts(pieces.into_iter().map(|(i, count)| {
            let m = i
                .mnemonic(Direction::Load, Vendor::Amd, 32)
                .spelled(spelling);
            (m, count)
        }))
    }

    /// Which of a scan's reads of its partials, at element offset `o` of
    /// the scratch, have an address LLVM folds off the common base. A
    /// thread reads its partials at `(tid & (P - 1)) + o` when its index
    /// among the `P` threads off the axis is the low bits of its thread id
    /// (lanes, then warps: the first `log2 P` of them all off the axis);
    /// InstCombine rewrites `(tid & (P - 1)) | o` as `tid | o` where `o`
    /// sets every bit of the work-item id's range above them
    /// (`LdsInstructions::work_item_id_bits`), and that read pairs with
    /// none. gfx942's AMDGCN of a 64-bit cumulative sum over 8 warps
    /// (`P` = 128) reads every eighth partial alone.
    fn scan_reads_folded_off_base(
        &self,
        layout: &layout_algebra::LinearLayout,
        axis: usize,
        parallel_threads: u64,
    ) -> impl Fn(u64) -> bool + use<> {
        let id_bits = self.machine.lds.work_item_id_bits;
        let index_bits = parallel_threads.max(1).trailing_zeros();
        let lane_bits = layout.in_dim_size_log2("lane");
        let off_axis = |dim: &str, i: u32| {
            layout
                .basis(dim, i as usize)
                .is_ok_and(|b| b.get(axis).is_some_and(|&c| c == 0) && b.iter().any(|&c| c != 0))
        };
        let low_bits = parallel_threads.is_power_of_two()
            && index_bits < id_bits
            && (0..index_bits).all(|t| {
                if t < lane_bits {
                    off_axis("lane", t)
                } else {
                    off_axis("warp", t - lane_bits)
                }
            });
        let range = (1u64 << id_bits) - 1;
        let index_mask = parallel_threads.max(1) - 1;
        move |o: u64| low_bits && (o | index_mask) & range == range
    }

    /// Which of a scan's partial stores, at element offset `k` (the chunk's
    /// `chunk * W`) of its region, have an address LLVM folds off the
    /// common base. With no thread off the axis a warp stores its chunk's
    /// partial at `(wave & (W - 1)) + k`, `wave` the thread id over the
    /// lanes (`W` the warps, all along the axis); InstCombine rewrites
    /// `(wave & (W - 1)) | k` as `wave | k` where `k` sets every bit of
    /// `wave`'s range above them (the work-item id's bits less the lanes'),
    /// and that store keeps a base of its own where the machine says
    /// (`LdsInstructions::folded_scan_stores`). gfx942's AMDGCN of
    /// 1-D cumulative sums stores the last of four chunks over 4 warps, and
    /// of two over 8, apart from the others; of scans along rows that one
    /// thread holds several of, every chunk whose offset has bit 3 over 8
    /// warps.
    fn scan_stores_folded_off_base(
        &self,
        layout: &layout_algebra::LinearLayout,
        parallel_threads: u64,
        axis_warps: u64,
    ) -> impl Fn(u64) -> bool + use<> {
        let lane_bits = layout.in_dim_size_log2("lane");
        let range_bits = self.machine.lds.work_item_id_bits.saturating_sub(lane_bits);
        let range = (1u64 << range_bits) - 1;
        let warp_bits = layout.in_dim_size_log2("warp");
        let applies = self.machine.lds.folded_scan_stores.is_some()
            && parallel_threads <= 1
            && axis_warps >= 2
            && axis_warps.is_power_of_two()
            && warp_bits == axis_warps.trailing_zeros()
            && axis_warps - 1 < range;
        let mask = axis_warps.saturating_sub(1);
        move |k: u64| applies && k > 0 && (k | mask) & range == range
    }

    /// Wavefronts of one warp's store and one warp's load of a scan's
    /// partials of `bits`, from the lanes of the scanned `layout`: lanes
    /// along the other dims (parallel) hold partials of their own, side by
    /// side in lane order; the lanes along `axis` share one, which the last
    /// of them stores (the others are masked off: a phase of only those
    /// takes no wavefront) and all of them read. Where 32 lanes' partials
    /// span more than a phase's 128 bytes (64-bit partials, several
    /// parallel lanes) this is more than one (an H200 counted 2 for the
    /// 64-bit scans of a 2-D tile along its rows).
    fn scan_partial_lanes(
        &self,
        layout: &layout_algebra::LinearLayout,
        axis: usize,
        bits: u32,
    ) -> Option<(u64, u64)> {
        use layout_algebra::LinearLayout;
        let lane_bits = layout.in_dim_size_log2("lane");
        let mut parallel = 0u32;
        let mut parallel_lanes = Vec::new();
        let lane_bases: Vec<Vec<i64>> = (0..lane_bits)
            .map(|i| {
                let basis = layout.basis("lane", i as usize).ok()?;
                let off_axis = basis.iter().enumerate().any(|(d, &c)| d != axis && c != 0);
                Some(if off_axis {
                    parallel_lanes.push(1u64 << i);
                    parallel += 1;
                    vec![1i64 << (parallel - 1)]
                } else {
                    vec![0]
                })
            })
            .collect::<Option<_>>()?;
        let warp_bases = vec![vec![0i64]; layout.in_dim_size_log2("warp") as usize];
        let partials = LinearLayout::from_bases_inferring_sizes(
            vec![
                ("register", Vec::new()),
                ("lane", lane_bases),
                ("warp", warp_bases),
                ("block", Vec::new()),
            ],
            vec!["dim0"],
            false,
        )
        .ok()?;
        let buffer = LinearLayout::identity_1d(1 << parallel, "offset", "dim0")
            .ok()?
            .product(&LinearLayout::identity_1d(1, "block", "dim0").ok()?)
            .ok()?;
        let banks = &self.machine.banks;
        let cost = |direction| {
            scalar_wavefronts(banks, &partials, &buffer, bits, direction).map(|w| w.wavefronts)
        };
        // The storing lanes, the last along the axis, are a coset of the
        // parallel lanes' span.
        let stored = active_phases_only(
            banks,
            bits,
            Direction::Store,
            lane_bits,
            &parallel_lanes,
            cost(Direction::Store)?,
        );
        Some((stored.max(1), cost(Direction::Load)?.max(1)))
    }

    /// NVIDIA's reads of a scan's partials at element `offsets` of the
    /// scratch, chunk by chunk (NVIDIA's LoadStoreVectorizer does not
    /// merge across chunks; AMD's merging is [`merged_lds_accesses`]).
    /// Where each chunk's partials sit side by side, LLVM's
    /// LoadStoreVectorizer merges neighbours into vectors of up to 128
    /// bits; a run that is not a power of two (three, five to seven) it
    /// widens to the next one, reading partials nothing needs, and types the widened
    /// vector of narrow partials as 32-bit words (`ld.shared.v2.b32` for
    /// three halves); one left alone is a scalar load, which costs
    /// `lanes_cost` where the lanes read partials of their own
    /// ([`Self::scan_partial_lanes`]). Otherwise every lane reads the same
    /// partials: a broadcast, which a wide load serves in as few phases as
    /// its quads allow.
    fn nvidia_scan_loads(
        &self,
        chunks: &[Vec<u64>],
        bits: u32,
        side_by_side: bool,
        lanes_cost: Option<u64>,
    ) -> Vec<InstructionCount> {
        let widest = (128 / bits).max(1) as usize;
        // The chunks' reads lie apart in the code: LLVM merges within one.
        let pieces: Vec<usize> = chunks
            .iter()
            .flat_map(|offsets| {
                if side_by_side {
                    vector_pieces(offsets, widest)
                } else {
                    vec![1; offsets.len()]
                }
            })
            .collect();
        let mut out: Vec<InstructionCount> = Vec::new();
        for n in pieces {
            let widened = n.next_power_of_two();
            let (vector_bits, element_bits) = if widened != n && bits < 32 {
                (widened as u32 * bits, 32)
            } else {
                (widened as u32 * bits, bits)
            };
            let mnemonic = self
                .machine
                .mnemonic(
                    Instruction::LdSt { bits: vector_bits },
                    Direction::Load,
                    element_bits,
                )
                .to_string();
            let phases = match lanes_cost {
                Some(w) if vector_bits == bits => w,
                _ => broadcast_wavefronts(
                    &self.machine.banks,
                    vector_bits,
                    Direction::Load,
                    self.threads,
                ),
            };
            match out.iter_mut().find(|i| i.mnemonic == mnemonic) {
                Some(i) => {
                    i.count += 1;
                    i.wavefronts += phases;
                }
                None => out.push(InstructionCount {
                    mnemonic,
                    count: 1,
                    wavefronts: phases,
                    conflicts: 0,
                    one_thread: false,
                    owning_warps: None,
                    warps: None,
                }),
            }
        }
        out
    }

    /// A histogram's bins and an atomic's broadcast result go through
    /// shared memory one element per access: each thread stores (zeroes
    /// the bins, or writes what its atomic returned) and then loads its
    /// share of the result.
    fn exchange_instructions(&self, f: &Function, op: &mlir::Op) -> Vec<InstructionCount> {
        let result_type = op.result_types();
        let (bits, registers) = match scratch::parse_type(result_type) {
            Some(t) => {
                let Some(bits) = scratch::element_bits(&t.element) else {
                    return Vec::new();
                };
                let Some((_, layout)) = self.layout(&t) else {
                    return Vec::new();
                };
                (bits, distinct_registers(&layout))
            }
            None => match scratch::element_bits(result_type) {
                Some(bits) => (bits, 1),
                None => return Vec::new(),
            },
        };
        let bits = bits.clamp(8, 64);
        let scalar = scratch::parse_type(result_type).is_none();
        let store = match self.vendor {
            // An atomic's result, scalar or tensor, goes through Triton's
            // `storeShared` (predicated inline assembly), which PTX spells
            // with the `::cta` state space.
            Vendor::Nvidia if op.name != "tt.histogram" => format!("st.shared::cta.b{bits}"),
            Vendor::Nvidia => format!("st.shared.b{bits}"),
            Vendor::Amd => self
                .machine
                .mnemonic(Instruction::LdSt { bits }, Direction::Store, bits)
                .to_string(),
        };
        let load = match self.vendor {
            Vendor::Nvidia => format!("ld.shared.b{bits}"),
            Vendor::Amd => self
                .machine
                .mnemonic(Instruction::LdSt { bits }, Direction::Load, bits)
                .to_string(),
        };
        if op.name != "tt.histogram"
            && let Some(t) = scratch::parse_type(result_type)
            && let Some(exchange) = self.tensor_exchange(f, op, &t, bits, &store, &load)
        {
            return exchange;
        }
        let stores = if op.name == "tt.histogram" {
            // Every thread zeroes its share of the bins.
            let bins = scratch::parse_type(result_type).map_or(1, |t| t.elements());
            let threads = self.threads as u64 * self.num_warps.max(1) as u64;
            bins.max(self.threads as u64).div_ceil(threads)
        } else {
            registers
        };
        // A scalar result is stored by the one thread that did the atomic.
        let mut out: Vec<InstructionCount> = [(store, stores, scalar), (load, registers, false)]
            .into_iter()
            .map(|(mnemonic, count, one_thread)| {
                InstructionCount::single_wavefront(mnemonic, count, one_thread)
            })
            .collect();
        if op.name == "tt.histogram" {
            if let Some(bins) = self.histogram_exchange(op) {
                out = bins;
            }
            out.extend(self.histogram_adds(op));
        }
        out
    }

    /// A tensor atomic's results through its scratch (`scratch::atomic`):
    /// each at its element's row-major index, stored by the lanes that own
    /// it — Triton masks the layout's copies off, so only the warps that own
    /// elements move data (`owning_warps`) — and read back by every thread,
    /// one register at a time (as the compiled PTX does, and an H200
    /// counted: `atomic_repeated_*`, `atomic_tile_*`). Where only global
    /// stores take the result, whose copies Triton masks off too, ptxas
    /// ends the copies' threads before the read: on NVIDIA it is issued by
    /// the owning warps alone (`warps`) and served to the owners' lanes.
    fn tensor_exchange(
        &self,
        f: &Function,
        op: &mlir::Op,
        result: &TypeText,
        bits: u32,
        store: &str,
        load: &str,
    ) -> Option<Vec<InstructionCount>> {
        use layout_algebra::LinearLayout;
        let (_, layout) = self.layout(result)?;
        let row_major: Vec<usize> = (0..result.shape.len()).rev().collect();
        let buffer = LinearLayout::identity_standard_nd("offset", &result.shape, &row_major)
            .ok()?
            .product(&LinearLayout::identity_1d(1, "block", "dim0").ok()?)
            .ok()?;
        let registers = distinct_registers(&layout);
        let masks = layout.free_variable_masks();
        let copies = |dim: &str| {
            masks
                .iter()
                .find(|(d, _)| d.as_str() == dim)
                .map_or(0, |(_, m)| *m)
        };
        let copied_lanes = copies("lane");
        let lane_bits = layout.in_dim_size_log2("lane");
        let owner_lanes: Vec<u64> = (0..lane_bits)
            .filter(|b| copied_lanes >> b & 1 == 0)
            .map(|b| 1u64 << b)
            .collect();
        // The copies' lanes move nothing: only the phases that meet the
        // owners' lanes take wavefronts.
        let side = |mnemonic: &str, direction: Direction, owners_only: bool| {
            let w = scalar_wavefronts(&self.machine.banks, &layout, &buffer, bits, direction)?;
            let wavefronts = if owners_only {
                active_phases_only(
                    &self.machine.banks,
                    bits,
                    direction,
                    lane_bits,
                    &owner_lanes,
                    w.wavefronts,
                )
            } else {
                w.wavefronts
            };
            Some(InstructionCount {
                mnemonic: mnemonic.to_string(),
                count: registers,
                wavefronts,
                conflicts: (w.wavefronts / w.ideal.max(1)).saturating_sub(1),
                one_thread: false,
                owning_warps: None,
                warps: None,
            })
        };
        let copied_warp_bits = copies("warp").count_ones();
        let owning = (copied_warp_bits > 0).then(|| {
            1u32 << layout
                .in_dim_size_log2("warp")
                .saturating_sub(copied_warp_bits)
        });
        let mut stored = side(store, Direction::Store, true)?;
        stored.owning_warps = owning;
        let only_stored = op
            .results
            .first()
            .is_some_and(|r| f.uses(r).next().is_some() && f.uses(r).all(|u| u.name == "tt.store"));
        let read_by_owners = self.vendor == Vendor::Nvidia && only_stored;
        let mut loaded = side(load, Direction::Load, read_by_owners)?;
        if read_by_owners {
            loaded.warps = owning;
        }
        Some(vec![stored, loaded])
    }

    /// A histogram's bins as Triton 3.9 zeroes and reads them, and LLVM
    /// merges the accesses: each thread zeroes word `thread + i * threads`
    /// (AMD pairs two of them into `ds_write2st64_b32` where the offsets
    /// allow), then reads the bins its result layout holds, consecutive
    /// ones as one vector (`ld.shared.v4.b32`, `ds_read_b64`).
    fn histogram_exchange(&self, op: &mlir::Op) -> Option<Vec<InstructionCount>> {
        use layout_algebra::LinearLayout;
        let result = scratch::parse_type(op.result_types())?;
        let (_, read) = self.layout(&result)?;
        let bins = result.elements();
        let lanes = self.threads.max(1) as u64;
        let threads = lanes * self.num_warps.max(1) as u64;
        let words = bins.max(lanes);
        // Enumerating the warp's requests is for tensors a kernel holds.
        if words > 1 << 16 {
            return None;
        }
        let stores = words.div_ceil(threads);
        // Thread `t`'s `i`-th zero goes to word `t + i * threads`.
        let strided = |count: u64, stride: u64| -> Vec<Vec<i64>> {
            (0..count.ilog2())
                .map(|i| vec![(stride << i) as i64])
                .collect()
        };
        let zeroes = LinearLayout::from_bases_inferring_sizes(
            vec![
                ("register", strided(stores.next_power_of_two(), threads)),
                ("lane", strided(lanes, 1)),
                ("warp", strided(self.num_warps.max(1) as u64, lanes)),
                ("block", Vec::new()),
            ],
            vec!["dim0"],
            false,
        )
        .ok()?;
        let buffer = LinearLayout::identity_1d(
            zeroes.out_dim_size("dim0").max(read.out_dim_size("dim0")) as u32,
            "offset",
            "dim0",
        )
        .ok()?
        .product(&LinearLayout::identity_1d(1, "block", "dim0").ok()?)
        .ok()?;
        let store = self.plain_access(&zeroes, &buffer, Direction::Store, stores)?;
        let load = self.plain_access(&read, &buffer, Direction::Load, distinct_registers(&read))?;
        Some(vec![store, load])
    }

    /// `elements` 32-bit words per thread of `layout` moved to or from a
    /// buffer of words, vectorised as far as its registers run along the
    /// buffer and, on AMD, paired into `ds_read2`/`ds_write2` where the
    /// offsets allow, as LLVM forms them.
    fn plain_access(
        &self,
        layout: &layout_algebra::LinearLayout,
        buffer: &layout_algebra::LinearLayout,
        direction: Direction,
        elements: u64,
    ) -> Option<InstructionCount> {
        use layout_algebra::bank::{self, Access};
        let vector = bank::compiled_vectorisation(layout, buffer, 32)
            .unwrap_or(1)
            .clamp(1, 4);
        let mut access = Access {
            distributed: layout,
            shared: buffer,
            element_bits: 32,
            instruction: Instruction::LdSt {
                bits: vector as u32 * 32,
            },
            direction,
        };
        if self.vendor == Vendor::Amd
            && self.machine.lds.paired
            && let Ok(Some(paired)) = bank::paired_instruction(&access, &[])
        {
            access.instruction = paired;
        }
        let w = bank::wavefronts_by_enumeration(&access, &self.machine.banks).ok()?;
        let count = match access.instruction {
            Instruction::Paired { .. } => w.instructions.max(1),
            i => (elements * 32).div_ceil(i.bits_per_lane() as u64).max(1),
        };
        Some(InstructionCount {
            mnemonic: self
                .machine
                .mnemonic(access.instruction, direction, 32)
                .to_string(),
            count,
            wavefronts: w.wavefronts,
            conflicts: (w.wavefronts / w.ideal.max(1)).saturating_sub(1),
            one_thread: false,
            owning_warps: None,
            warps: None,
        })
    }

    /// The atomic adds into a histogram's bins, as Triton 3.9 lowers them
    /// (measured on its compiled kernels). NVIDIA: one
    /// `atom.shared.add` per element of the thread's share of the input,
    /// to the bin its value names (so where they land is the data's: the
    /// count is the conflict-free case). AMD: a histogram per warp from
    /// ballots first (`computeWarpLevelHistogram`), each lane owning
    /// `bins / 64` consecutive bins, then one `ds_add_u32` per owned bin,
    /// lane `l`'s `i`-th at word `l * bins / 64 + i`.
    fn histogram_adds(&self, op: &mlir::Op) -> Option<InstructionCount> {
        let input = scratch::parse_types(op.operand_types())
            .into_iter()
            .next()?;
        match self.vendor {
            Vendor::Nvidia => {
                let (_, layout) = self.layout(&input)?;
                let count = distinct_registers(&layout);
                Some(InstructionCount {
                    mnemonic: "atom.relaxed.sys.shared.add.u32".into(),
                    count,
                    wavefronts: count,
                    conflicts: 0,
                    one_thread: false,
                    owning_warps: None,
                    warps: None,
                })
            }
            Vendor::Amd => {
                let bins = scratch::parse_type(op.result_types())?.elements();
                let lanes = self.threads.max(1) as u64;
                let owned = bins.max(lanes) / lanes;
                // A stride of `owned` words across the lanes: that many
                // lanes share a bank (up to all of a bank's).
                let banks = self.machine.banks.banks.max(1) as u64;
                let ways = owned.min(banks);
                Some(InstructionCount {
                    mnemonic: "ds_add_u32".into(),
                    count: owned,
                    wavefronts: owned * ways,
                    conflicts: ways - 1,
                    one_thread: false,
                    owning_warps: None,
                    warps: None,
                })
            }
        }
    }

    /// A reduction across warps: the conversions that bring each warp's
    /// partial results together, analysed as conversions are.
    fn reduce_instructions(&self, f: &Function, id: OpId) -> Vec<InstructionCount> {
        let op = &f.ops[id];
        let line = &self.text[op.span.start..op.span.end];
        let inputs = scratch::parse_types(op.operand_types());
        let (Some(first), Some(axis)) = (inputs.first(), scratch::axis(line)) else {
            return Vec::new();
        };
        let Some((encoding, layout)) = self.layout(first) else {
            return Vec::new();
        };
        let Ok(mut steps) = layout_algebra::triton::reduce::reduce_conversions(&layout, axis)
        else {
            return Vec::new();
        };
        let warp_rounds = steps.len();
        // Of a sum or a product of f32 on a machine with paired f32
        // arithmetic, LLVM keeps the pairs its vectoriser combines in 64-bit
        // registers (`f32_pairs`): the partials a combine made are stored
        // in pairs, and loaded in pairs where the one shuffle step left
        // after the load combines them as they come (with more, the first
        // step's sums are not paired). Its vectoriser pairs only some of
        // them in a thread with many outputs: the model names the pairs.
        let pairable = pairable_operands(f, id);
        let pairs = |operand: usize| {
            self.machine.paired_f32 && pairable.get(operand).copied().unwrap_or(false)
        };
        let combined_first = combines_in_warp(&layout, axis);
        let compares_with_indices = inputs.len() > 1
            && op
                .regions
                .iter()
                .flatten()
                .flat_map(|&b| &f.blocks[b].ops)
                .any(|&o| f.ops[o].name == "arith.cmpf");
        let combined = sums_anything(&layout, axis);
        // The reduced values go to the result's layout last, when they are
        // not there already (a conversion of its own).
        let results = scratch::parse_types(op.result_types());
        if let Some((_, result)) = results.first().and_then(|t| self.layout(t))
            && let Ok(reduced) =
                layout_algebra::triton::reduce::reduced_layout(&layout, axis, result.out_dims())
            && reduced != result
        {
            steps.push((reduced, result));
        }
        let needed = f.needed_operands(id);
        let last_step = steps.len().saturating_sub(1);
        // Results LLVM sees nothing use: unused, or used only in code it
        // removes (`folded_branches`).
        let removed = folded_branches::removed_ops(f, self.text);
        let unused_result = |r: &String| {
            !f.is_used(r) || folded_branches::used_only_by_removed(f, self.text, &removed, r)
        };
        let mut out: Vec<InstructionCount> = Vec::new();
        for (k, (from, to)) in steps.into_iter().enumerate() {
            // The reduced values' own conversion to the result's layout.
            let to_result = k >= warp_rounds;
            for (operand, t) in inputs.iter().enumerate() {
                // The last step's loads of what nothing uses are dead code
                // to LLVM (an earlier step's feed the next step's stores,
                // which stay): that conversion's loads of a result nothing
                // uses (an argmin's values), and on AMD the last round's
                // loads of an operand no used result needs (NVIDIA's rounds
                // load with predicated inline assembly, which LLVM keeps).
                let unused = op.results.get(operand).is_some_and(unused_result);
                let unneeded = !needed.get(operand).copied().unwrap_or(true);
                let dead_load = k == last_step
                    && if to_result {
                        unused
                    } else {
                        self.vendor == Vendor::Amd && unneeded
                    };
                let Some(bits) = scratch::element_bits(&t.element) else {
                    continue;
                };
                let bits = bits.clamp(8, 64);
                let Ok(c) = layout_algebra::triton::convert_layout::analyse_conversion(
                    &from,
                    &to,
                    bits,
                    &self.machine.banks,
                    self.machine.matrix,
                ) else {
                    continue;
                };
                let Some(trip) = c.shared else { continue };
                let trip = RoundTrip {
                    sides: [&from, &to],
                    element_bits: bits,
                    swizzle: &trip.layout,
                    kinds: [trip.store, trip.load],
                    remote_load: trip.remote_load,
                    conflicts: [trip.write_conflicts, trip.read_conflicts],
                };
                let mut sides = trip.sides(&self.machine, self.vendor, self.threads);
                if pairs(operand)
                    && t.element == "f32"
                    && let Some([store, load]) = &mut sides
                {
                    if (to_result && combined) || k > 0 || combined_first {
                        store.mnemonic = f32_pairs(store.mnemonic, PairedF32::Reduced);
                    }
                    // A result only `tt.store`s write, one element at a
                    // time, gives the vectoriser nothing to pair the last
                    // combine for: its loads read four f32.
                    let stored_alone = op.results.get(operand).is_some_and(|r| {
                        let mut uses = f.uses(r).peekable();
                        uses.peek().is_some() && uses.all(|u| u.name == "tt.store")
                    });
                    if (to_result && combined)
                        || (shuffle_steps_along(&to, axis) == 1 && !stored_alone)
                    {
                        load.mnemonic = f32_pairs(load.mnemonic, PairedF32::Reduced);
                    }
                }
                // A 32-bit result only conversions take, on a machine with
                // paired f32: the conversion to the result's layout loads
                // it as pairs, which reach those conversions' stores
                // untouched (`PairedF32::Moved`).
                let reduced_in_pairs = pairs(operand) && t.element == "f32" && combined;
                if self.machine.paired_f32
                    && to_result
                    && !reduced_in_pairs
                    && bits == 32
                    && op
                        .results
                        .get(operand)
                        .is_some_and(|r| only_converted(f, r))
                    && let Some([_, load]) = &mut sides
                {
                    load.mnemonic = f32_pairs(load.mnemonic, PairedF32::Moved);
                }
                // From sm86 on, where no f32 pairs live in 64-bit
                // registers, the vectoriser still pairs the combine of an
                // NVIDIA mma accumulator's f32 reduced along its rows (a
                // row maximum or sum across warps) that the one shuffle
                // step left after a round's load takes, as wide as the
                // conversion of the result then stores it: where that
                // stores pairs, LLVM reads each vector of four as two
                // pairs; where it stores fours, the loads stay whole (as
                // they do reduced along its columns, or from a blocked
                // layout).
                let result_stored_in_fours = op.results.get(operand).is_some_and(|r| {
                    let mut conversions = f
                        .uses(r)
                        .filter(|u| u.name == "ttg.convert_layout")
                        .peekable();
                    conversions.peek().is_some() && conversions.all(|c| self.stores_at_least(c, 4))
                });
                if self.vectorises
                    && !self.machine.paired_f32
                    && matches!(encoding, Encoding::NvidiaMma(_))
                    && axis + 1 == t.shape.len()
                    && t.element == "f32"
                    && !to_result
                    && shuffle_steps_along(&to, axis) == 1
                    && !result_stored_in_fours
                    && let Some([_, load]) = &mut sides
                {
                    *load = load.clone().split_in_halves();
                }
                // A sum or product of halves from sm86 on: the vectoriser
                // pairs the combine, and LLVM stores the pairs as 32-bit
                // words (`st.shared.v2.b32` for four halves), as it does
                // where a conversion stores such a result
                // (`half_words`); the loads keep halves.
                if self.vectorises
                    && pairable.get(operand).copied().unwrap_or(false)
                    && matches!(t.element.as_str(), "f16" | "bf16")
                    && let Some([store, _]) = &mut sides
                {
                    store.mnemonic = store.mnemonic.in_words();
                }
                // Halves a combine compares beside their indices (an
                // argmax): from sm86 on the vectoriser pairs the compares
                // and selects, and takes a warp round's four loaded halves
                // two to a word (`ld.shared.v2.b32`). Two loaded halves
                // are two outputs' partials: where the one shuffle step
                // left combines them as they come, it pairs their compares
                // too (`setp.gt.bf16x2`) and reads them as one word
                // (`ld.shared.b32`); with more steps they stay halves.
                if self.vectorises
                    && !to_result
                    && compares_with_indices
                    && matches!(t.element.as_str(), "f16" | "bf16")
                    && let Some([_, load]) = &mut sides
                    && (load.mnemonic.instruction == (Instruction::LdSt { bits: 64 })
                        || (load.mnemonic.instruction == (Instruction::LdSt { bits: 32 })
                            && shuffle_steps_along(&to, axis) == 1))
                {
                    load.mnemonic = load.mnemonic.in_words();
                }
                // Booleans the combine takes as `i1` (a warp round's
                // partials), or a result only used as a condition, a mask
                // or a number: NVIDIA reads their vectors' bytes apart, as
                // a conversion's — but where the vectoriser takes the
                // result's selects whole into a conversion's store, it
                // reads them as the word they sit in.
                let result = op.results.get(operand);
                let selected_whole = self.vectorises
                    && sides.as_ref().is_some_and(|[_, load]| {
                        result
                            .and_then(|r| half_words::selected_into_conversions(f, r))
                            .is_some_and(|conversions| {
                                conversions.iter().all(|c| {
                                    self.stores_at_least(
                                        c,
                                        load.mnemonic.instruction.bits_per_lane() / 8,
                                    )
                                })
                            })
                    });
                // A 32-bit result only integer truncations take (a maximum
                // of bytes widened to i32, narrowed back): LLVM reads each
                // vector of four the conversion to the result's layout
                // loads as two 64-bit words (`ld.shared.b64`), taking the
                // kept bits out of them, as NVIDIA's compiled column
                // reductions of bytes and 16-bit integers show.
                if self.vendor == Vendor::Nvidia
                    && to_result
                    && t.element == "i32"
                    && result.is_some_and(|r| {
                        let mut uses = f.uses(r).peekable();
                        uses.peek().is_some() && uses.all(|u| u.name == "arith.trunci")
                    })
                    && let Some([_, load]) = &mut sides
                    && load.mnemonic.instruction == (Instruction::LdSt { bits: 128 })
                {
                    let mut halves = load.clone().split_in_halves();
                    halves.mnemonic = halves.mnemonic.in_pairs();
                    *load = halves;
                }
                if self.vendor == Vendor::Nvidia
                    && t.element == "i1"
                    && (!to_result
                        || (result.is_some_and(|r| half_words::kept_as_bits(f, r))
                            && !selected_whole))
                    && let Some([_, load]) = &mut sides
                {
                    *load = load
                        .clone()
                        .booleans_apart(self.machine.booleans_in_64_bit_words);
                }
                let kept = sides
                    .iter()
                    .flatten()
                    .enumerate()
                    .filter(|&(side, _)| !(dead_load && side == 1))
                    .flat_map(|(_, side)| InstructionCount::of_side(side));
                for i in kept {
                    match out.iter_mut().find(|o| o.mnemonic == i.mnemonic) {
                        Some(o) => {
                            o.count += i.count;
                            o.wavefronts += i.wavefronts;
                            o.conflicts = o.conflicts.max(i.conflicts);
                        }
                        None => out.push(i),
                    }
                }
            }
        }
        out
    }
}

/// f32 as LLVM moves them when they live in 64-bit pairs: a 128-bit
/// `ld/st.shared.v4.b32` becomes `.v2.b64`; a 64-bit `.v2.b32` becomes
/// `.b64` only for a sum or product of tensors (a reduction's 64-bit
/// vectors stay `.v2.b32` in the compiled kernels).
pub(crate) fn f32_pairs(
    m: layout_algebra::bank::Mnemonic,
    how: PairedF32,
) -> layout_algebra::bank::Mnemonic {
    match (m.instruction, how) {
        (Instruction::LdSt { bits: 128 }, _)
        | (Instruction::LdSt { bits: 64 }, PairedF32::Elementwise) => m.in_pairs(),
        _ => m,
    }
}

/// Whether a reduction's result `value` is used, and only by
/// `ttg.convert_layout`s:
/// what its conversion to the result's layout loaded reaches their stores
/// untouched.
fn only_converted(f: &Function, value: &str) -> bool {
    let mut uses = f.uses(value).peekable();
    uses.peek().is_some() && uses.all(|u| is_ttg(u, "convert_layout"))
}

/// The bits per lane of the load of a reduction's conversion of its 32-bit
/// reduced values (from `layout` reduced along `axis`) to the result's
/// layout, where it has one.
fn reduced_load_bits(
    layout: &layout_algebra::LinearLayout,
    result: &layout_algebra::LinearLayout,
    axis: usize,
    machine: &layout_algebra::machine::Machine,
) -> Option<u32> {
    let reduced =
        layout_algebra::triton::reduce::reduced_layout(layout, axis, result.out_dims()).ok()?;
    if &reduced == result {
        return None;
    }
    let c = layout_algebra::triton::convert_layout::analyse_conversion(
        &reduced,
        result,
        32,
        &machine.banks,
        machine.matrix,
    )
    .ok()?;
    Some(c.shared?.load.bits_per_lane())
}

/// Which operands of the reduction `id` its combine sums or multiplies
/// (the value it returns for the operand is an `arith.addf` or
/// `arith.mulf`), which paired f32 arithmetic does two at a time; the
/// others (a maximum, a selection) stay single.
fn pairable_operands(f: &Function, id: OpId) -> Vec<bool> {
    let returned = f.ops[id]
        .regions
        .iter()
        .flatten()
        .flat_map(|&b| &f.blocks[b].ops)
        .map(|&o| &f.ops[o])
        .find(|o| o.name == "tt.reduce.return");
    (0..f.ops[id].results.len())
        .map(|i| {
            returned
                .and_then(|r| r.operands.get(i))
                .and_then(|v| f.producer(v))
                .is_some_and(|p| matches!(p.name.as_str(), "arith.addf" | "arith.mulf"))
        })
        .collect()
}

/// Bases of `in_dim` of `layout` that move along `axis`.
fn bases_along(layout: &layout_algebra::LinearLayout, in_dim: &str, axis: usize) -> usize {
    (0..layout.in_dim_size_log2(in_dim) as usize)
        .filter(|&i| {
            layout
                .basis(in_dim, i)
                .is_ok_and(|b| b.get(axis).is_some_and(|&c| c != 0))
        })
        .count()
}

/// The shuffle steps a reduction's round takes after loading: its lane
/// bases along the axis.
fn shuffle_steps_along(layout: &layout_algebra::LinearLayout, axis: usize) -> usize {
    bases_along(layout, "lane", axis)
}

/// Whether each warp combines values before a reduction's first round
/// (the axis runs along its registers or lanes), so what it stores came
/// out of the combine rather than from the input.
fn combines_in_warp(layout: &layout_algebra::LinearLayout, axis: usize) -> bool {
    bases_along(layout, "register", axis) + bases_along(layout, "lane", axis) > 0
}

/// Whether a reduction over `axis` of a tensor in `layout` combines
/// anything: the axis runs along its registers, lanes or warps (an axis of
/// one element does not).
fn sums_anything(layout: &layout_algebra::LinearLayout, axis: usize) -> bool {
    combines_in_warp(layout, axis) || bases_along(layout, "warp", axis) > 0
}

/// A scan's partials of one width on AMD, as element offsets of that width
/// from the scratch's start (the operands' regions follow one another):
/// LLVM pairs the accesses of one width across operands.
struct LdsPartials {
    bits: u32,
    /// The region starts at a multiple of the width (else it pairs with no
    /// other).
    aligned: bool,
    stores: Vec<u64>,
    /// The reads off the common base.
    loads: Vec<u64>,
    /// The reads at an address of their own, each alone
    /// (`Context::scan_reads_folded_off_base`).
    alone: u64,
    /// The 32-bit stores at an address LLVM folds off the common base
    /// (`Context::scan_stores_folded_off_base`): they pair among
    /// themselves.
    folded_stores: Vec<u64>,
    /// The 64-bit such stores, each alone.
    alone_stores: u64,
    /// Its 16-bit partials live two to a register, every second stored
    /// from the high half (`LdsInstructions::packed_scan_partials`).
    packed: bool,
}

/// The vectors (first element, elements) in which LLVM's SLP vectoriser
/// loads a scan's partials at element offsets `loads` over `warps` warps
/// along the axis, where they are one run of consecutive f32 from a
/// 16-byte boundary: widths doubling from the larger of two and half the
/// warps up to twice the warps, while the rest holds them, then four at a
/// time, then one by one (as the compiled 1-D sums and products of 2 to
/// 8 warps and 1 to 31 partials read them). `None` for any other reads.
fn vectorised_scan_reads(loads: &[u64], warps: u64) -> Option<Vec<(u64, u64)>> {
    let (&first, &last) = (loads.first()?, loads.last()?);
    let run = loads.windows(2).all(|w| w[1] == w[0] + 1);
    if !run || first % 4 != 0 || warps < 2 {
        return None;
    }
    let mut vectors = Vec::new();
    let (mut at, end) = (first, last + 1);
    let mut width = (warps / 2).max(2);
    while width <= 2 * warps && at + width <= end {
        vectors.push((at, width));
        at += width;
        width *= 2;
    }
    while at + 4 <= end {
        vectors.push((at, 4));
        at += 4;
    }
    vectors.extend((at..end).map(|o| (o, 1)));
    Some(vectors)
}

/// Whether the scan or reduction `op` combines by adding or multiplying
/// floats.
fn sums_or_multiplies(f: &Function, op: &mlir::Op) -> bool {
    op.regions
        .first()
        .and_then(|r| r.first())
        .is_some_and(|&b| {
            f.blocks[b]
                .ops
                .iter()
                .any(|&o| matches!(f.ops[o].name.as_str(), "arith.addf" | "arith.mulf"))
        })
}

/// The elements of a scan's scratch a thread reads. Triton's lowering
/// (`storeWarpAccumulator`, `AddPartialReduce`) stores one partial per
/// chunk at element `lane + warp * P + chunk * P * W` (`P` the threads off
/// the axis, `W` the warps along it) and reads, for each chunk, the `W`
/// partials at `lane + P * (w + chunk * W)`; the last warp's partial of an
/// accumulator's last chunk feeds nothing, and LLVM drops its read, as it
/// drops those of partials no used result needs
/// (`Function::scan_partial_needs`: `first_read` for the partial that
/// starts the prefix, `later_read` for those combined into it). Chunk by
/// chunk.
fn scan_read_offsets(
    walk: &scratch::ScanWalk,
    (first_read, later_read): (bool, bool),
) -> Vec<Vec<u64>> {
    let (p, w) = (walk.parallel_lanes.max(1), walk.axis_warps);
    let chunks = walk.chunks_per_block * walk.axis_blocks;
    (0..chunks)
        .map(|c| {
            // Chunks go axis block by axis block: the last block's chunks
            // are each accumulator's last.
            let block = c / walk.chunks_per_block.max(1);
            let last = block + 1 == walk.axis_blocks;
            (0..w)
                .filter(move |&i| !(last && i + 1 == w))
                .filter(move |&i| {
                    if i == 0 && block == 0 {
                        first_read
                    } else {
                        later_read
                    }
                })
                .map(move |i| p * (i + c * w))
                .collect()
        })
        .collect()
}

/// The lengths of the vectors LLVM's LoadStoreVectorizer makes of accesses
/// at element `offsets` (sorted here): runs of neighbours cut into pieces
/// of at most `widest`.
fn vector_pieces(offsets: &[u64], widest: usize) -> Vec<usize> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut run = 1;
        while run < widest && i + run < sorted.len() && sorted[i + run] == sorted[i] + run as u64 {
            run += 1;
        }
        pieces.push(run);
        i += run;
    }
    pieces
}

/// One thread's LDS accesses of `bits` each at element `offsets` (from one
/// base) as LLVM merges them: runs of neighbours into vectors of up to 128
/// bits, the rest in pairs where `ds_read2`/`ds_write2` can encode the
/// offsets (32- and 64-bit accesses), the rest alone; 16-bit stores of
/// values `packed_pairs` (two to a register), every second from the high
/// half.
fn merged_lds_accesses(
    offsets: &[u64],
    bits: u32,
    direction: Direction,
    lds: &LdsInstructions,
    packed_pairs: bool,
) -> Vec<InstructionCount> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut counts: Vec<(Mnemonic, u64)> = Vec::new();
    let mut add_mnemonic = |m: Mnemonic, n: u64| match counts.iter_mut().find(|(j, _)| *j == m) {
        Some((_, c)) => *c += n,
        None => counts.push((m, n)),
    };
    let mnemonic = |i: Instruction| {
        i.mnemonic(direction, Vendor::Amd, bits)
            .spelled(lds.spelling)
    };
    let mut add = |i: Instruction, n: u64| add_mnemonic(mnemonic(i), n);
    let neighbours = sorted.windows(2).any(|w| w[1] == w[0] + 1);
    if neighbours {
        for run in vector_pieces(&sorted, (128 / bits).max(1) as usize) {
            // The LDS moves whole dwords (`ds_read_b96` for three) and a
            // narrow element left over on its own (`ds_read_u16`).
            let run_bits = bits * run as u32;
            if run_bits >= 32 {
                add(
                    Instruction::LdSt {
                        bits: run_bits / 32 * 32,
                    },
                    1,
                );
            }
            let mut rest = run_bits % 32;
            for piece in [16, 8] {
                if rest >= piece {
                    add(Instruction::LdSt { bits: piece }, 1);
                    rest -= piece;
                }
            }
        }
    } else if bits == 32 || bits == 64 {
        let mut i = 0;
        while i < sorted.len() {
            let paired = (i + 1 < sorted.len())
                .then(|| layout_algebra::bank::pair_encoding(sorted[i], sorted[i + 1]))
                .flatten();
            match paired {
                Some(st64) => {
                    add(Instruction::Paired { bits, st64 }, 1);
                    i += 2;
                }
                None => {
                    add(Instruction::LdSt { bits }, 1);
                    i += 1;
                }
            }
        }
    } else if bits == 16 && direction == Direction::Store && packed_pairs {
        // Partials in half registers, two to a register: the high ones go
        // with `_d16_hi`.
        let n = sorted.len() as u64;
        let scalar = mnemonic(Instruction::LdSt { bits });
        add_mnemonic(scalar, n - n / 2);
        add_mnemonic(scalar.on_high_half(), n / 2);
    } else {
        add(Instruction::LdSt { bits }, sorted.len() as u64);
    }
    lds_instruction_counts(counts)
}

/// LDS instructions of one thread by exact opcode, each served once per
/// instruction (a pair as two accesses of its width); none counted zero
/// times.
fn lds_instruction_counts(
    counts: impl IntoIterator<Item = (Mnemonic, u64)>,
) -> Vec<InstructionCount> {
    counts
        .into_iter()
        .filter(|&(_, count)| count > 0)
        .map(|(m, count)| {
            let per = if matches!(m.instruction, Instruction::Paired { .. }) {
                2
            } else {
                1
            };
            InstructionCount {
                mnemonic: m.to_string(),
                count,
                wavefronts: count * per,
                conflicts: 0,
                one_thread: false,
                owning_warps: None,
                warps: None,
            }
        })
        .collect()
}

/// Triton's own placement, on a dump after its allocation.
fn recorded(op: &mlir::Op) -> Option<(u64, Option<u64>)> {
    let offset = *recorded_offsets(op).first()?;
    Some((offset, Function::int_attribute(op, "allocation.size")))
}

/// Triton's `allocation.offset`: one offset, or one per piece of a
/// partitioned tensor (`allocation.offset = [0 : i32, 65536 : i32]`).
fn recorded_offsets(op: &mlir::Op) -> Vec<u64> {
    let key = "allocation.offset";
    let Some(at) = op.attributes.find(key) else {
        return Vec::new();
    };
    let rest = op.attributes[at + key.len()..].trim_start();
    let Some(rest) = rest.strip_prefix('=').map(str::trim_start) else {
        return Vec::new();
    };
    let list = match rest.strip_prefix('[') {
        Some(inner) => &inner[..inner.find(']').unwrap_or(inner.len())],
        None => rest.split(',').next().unwrap_or(""),
    };
    list.split(',')
        .filter_map(|item| item.split(':').next()?.trim().parse::<u64>().ok())
        .collect()
}

/// The warps the partitions of `f`'s largest `ttg.warp_specialize` run on.
fn partition_warps(f: &Function) -> u64 {
    f.ops
        .iter()
        .filter(|op| op.name == "ttg.warp_specialize")
        .map(|op| {
            op.regions
                .iter()
                .flatten()
                .filter_map(|&b| f.blocks[b].partition_warps())
                .map(u64::from)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

/// Warp specialisation's state: the default warps write every partition
/// warp's byte at the start and again at the end (the exit state), as
/// whole words, every lane to the same address; each worker warp (`bytes`
/// of them, padded to warp groups) reads its own byte.
fn warp_state_instructions(
    bytes: u64,
    machine: &layout_algebra::machine::Machine,
    warp_size: u32,
) -> Vec<InstructionCount> {
    let mut out: Vec<InstructionCount> = Vec::new();
    let mut words = bytes.div_ceil(4);
    for width in [4u32, 2, 1] {
        let n = words / width as u64;
        words %= width as u64;
        if n > 0 {
            let bits = 32 * width;
            let mnemonic = capture::Access::words(width as u64).mnemonic(true, machine);
            let phases = broadcast_wavefronts(&machine.banks, bits, Direction::Store, warp_size);
            out.push(InstructionCount {
                mnemonic,
                count: 2 * n,
                wavefronts: 2 * n * phases,
                conflicts: 0,
                one_thread: false,
                owning_warps: None,
                warps: None,
            });
        }
    }
    out.push(InstructionCount {
        mnemonic: capture::Access::scalar(1).mnemonic(false, machine),
        count: 1,
        wavefronts: 1,
        conflicts: 0,
        one_thread: false,
        owning_warps: None,
        warps: u32::try_from(bytes).ok(),
    });
    out
}

/// The wavefronts of one access of `bits` per lane where every lane of the
/// warp names the same address: a store is still served in its phases (a
/// 64-bit one in two half-warps), a wide load in fewer, as measured in
/// tests/vectors/nvidia/broadcast_wavefronts.json.
fn broadcast_wavefronts(
    banks: &layout_algebra::bank::BankTarget,
    bits: u32,
    direction: Direction,
    warp_size: u32,
) -> u64 {
    let served = banks.phases_for_quads(bits, direction, 1);
    u64::from(warp_size >> served.generators.len()).max(1)
}

/// Wavefronts one warp takes to move each of its registers of `distributed`
/// to or from `buffer` alone (`bits` a lane), by walking its requests.
fn scalar_wavefronts(
    banks: &layout_algebra::bank::BankTarget,
    distributed: &layout_algebra::LinearLayout,
    buffer: &layout_algebra::LinearLayout,
    bits: u32,
    direction: Direction,
) -> Option<layout_algebra::bank::Wavefronts> {
    let access = layout_algebra::bank::Access {
        distributed,
        shared: buffer,
        element_bits: bits,
        instruction: Instruction::LdSt { bits },
        direction,
    };
    layout_algebra::bank::wavefronts_by_enumeration(&access, banks).ok()
}

/// `wavefronts` a warp's access takes when only the lanes of a coset of
/// the span of `active` (lane ids of single bits) take part: a phase (a
/// coset of the lanes served with lane 0) that meets none of them issues
/// no request, and each that does costs as much as any phase, since the
/// addresses are linear in the lane.
fn active_phases_only(
    banks: &layout_algebra::bank::BankTarget,
    bits: u32,
    direction: Direction,
    lane_bits: u32,
    active: &[u64],
    wavefronts: u64,
) -> u64 {
    let served = banks.phases_for(bits, direction);
    let spanned = layout_algebra::f2::rank(
        active
            .iter()
            .copied()
            .chain(served.generators.iter().map(|&g| u64::from(g))),
    );
    (wavefronts << spanned) >> lane_bits
}

/// An op's instructions, issued by the warps of the partition it is in.
fn in_partition(
    f: &Function,
    op: OpId,
    mut instructions: Vec<InstructionCount>,
) -> Vec<InstructionCount> {
    if let Some(warps) = f.partition_warps_of(op) {
        for i in &mut instructions {
            i.warps.get_or_insert(warps);
        }
    }
    instructions
}

/// Whether the `ttg.local_load` `id` sits in a loop body that, after it,
/// refills the allocation it reads from registers: a `ttg.local_store` in
/// the same block into a buffer of the same `local_alloc` (the next stage
/// of a pipelined tile staged through registers). Asynchronous copies
/// into the other stages leave the reads paired.
fn refilled_after(f: &Function, id: OpId) -> bool {
    let op = &f.ops[id];
    let Some(block) = op.block else {
        return false;
    };
    if f.ops[f.blocks[block].owner].name != "scf.for" {
        return false;
    }
    let aliases = memdesc_aliases(f);
    let allocations = |value: Option<&String>| {
        value
            .and_then(|v| aliases.get(v))
            .cloned()
            .unwrap_or_default()
    };
    let read = allocations(op.operands.first());
    f.blocks[block]
        .ops
        .iter()
        .skip_while(|&&o| o != id)
        .skip(1)
        .map(|&o| &f.ops[o])
        .filter(|o| is_ttg(o, "local_store"))
        .any(|store| {
            allocations(store.operands.get(1))
                .iter()
                .any(|a| read.contains(a))
        })
}

/// For each SSA value that refers to shared memory, the `local_alloc`s it
/// may be: views (`memdesc_index`, `memdesc_trans`, ...) alias their
/// source, loop-carried values and results alias what flows into them.
fn memdesc_aliases(f: &Function) -> HashMap<String, Vec<OpId>> {
    let mut aliases: HashMap<String, Vec<OpId>> = HashMap::new();
    for (id, op) in f.ops.iter().enumerate() {
        if (op.name.ends_with("local_alloc") || op.name == "ttng.tmem_alloc")
            && let Some(r) = op.results.first()
        {
            aliases.insert(r.clone(), vec![id]);
        }
    }
    let mut changed = true;
    let join = |aliases: &mut HashMap<String, Vec<OpId>>, to: &str, from: &str| -> bool {
        let Some(src) = aliases.get(from).cloned() else {
            return false;
        };
        let dst = aliases.entry(to.to_string()).or_default();
        let mut grew = false;
        for a in src {
            if !dst.contains(&a) {
                dst.push(a);
                grew = true;
            }
        }
        grew
    };
    while changed {
        changed = false;
        for op in &f.ops {
            if op.name.ends_with("local_alloc") {
                continue;
            }
            let result_type = op.result_types();
            if !op.regions.is_empty() {
                // Loop-carried and yielded values.
                let carried_from = if op.name == "scf.for" { 3 } else { 0 };
                for region in &op.regions {
                    for &b in region {
                        let block = &f.blocks[b];
                        let skip = usize::from(op.name == "scf.for");
                        for (i, arg) in block.arguments.iter().skip(skip).enumerate() {
                            if let Some(init) = op.operands.get(carried_from + i) {
                                changed |= join(&mut aliases, arg, init);
                            }
                        }
                        if let Some(&last) = block.ops.last() {
                            let yielded = &f.ops[last];
                            if yielded.name.ends_with("yield") {
                                for (i, v) in yielded.operands.iter().enumerate() {
                                    if let Some(r) = op.results.get(i) {
                                        changed |= join(&mut aliases, r, v);
                                    }
                                    if let Some(arg) = block.arguments.get(i + skip) {
                                        changed |= join(&mut aliases, arg, v);
                                    }
                                }
                            }
                        }
                    }
                }
            } else if op.results.len() == op.operands.len() && op.results.len() > 1 {
                // A pass-through (`warp_group_dot_wait`): result i is operand i.
                for (r, v) in op.results.iter().zip(&op.operands) {
                    changed |= join(&mut aliases, r, v);
                }
            } else if result_type.contains("memdesc") {
                for r in &op.results {
                    for v in &op.operands {
                        changed |= join(&mut aliases, r, v);
                    }
                }
            }
        }
    }
    aliases
}

/// A `local_alloc`'s buffer is live while any value that may be it is.
fn explicit_liveness(
    f: &Function,
    ids: &[usize],
    users: &HashMap<&str, Vec<OpId>>,
    aliases: &HashMap<String, Vec<OpId>>,
    alloc: OpId,
) -> Interval {
    let mut range: Option<Interval> = None;
    for (value, allocs) in aliases {
        if !allocs.contains(&alloc) {
            continue;
        }
        let value_users = users.get(value.as_str()).cloned().unwrap_or_default();
        if let Some(r) = allocator::live_range(f, ids, &value_users, value) {
            range = Some(match range {
                None => r,
                Some(x) => Interval {
                    start: x.start.min(r.start),
                    end: x.end.max(r.end),
                },
            });
        }
    }
    range.unwrap_or(Interval {
        start: ids[alloc],
        end: ids[alloc] + 1,
    })
}

/// What `check` says of the kernels of a dump: over the target's shared
/// memory, or placed differently than Triton's own allocation says.
pub fn diagnostics(summaries: &[KernelSummary]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for s in summaries {
        if !s.complete {
            out.push(Diagnostic::warning(
                Code::CutDump,
                s.span,
                format!(
                    "the input ends inside `tt.func @{}`: the dump was cut, and what came after the cut is not seen",
                    s.name
                ),
            ));
        }
        if let (Some(limit), Some(target)) = (s.limit, &s.target)
            && s.shared_bytes > limit
        {
            out.push(
                Diagnostic::warning(
                    Code::SharedMemoryLimit,
                    s.span,
                    format!(
                        "`{}` allocates {} bytes of shared memory; {target} gives a CTA at most {limit}",
                        s.name, s.shared_bytes
                    ),
                )
                .with_note(format!("its buffers: {}", s.buffer_list())),
            );
        }
        if let Some(recorded) = s.recorded_shared_bytes
            && recorded != s.shared_bytes
        {
            out.push(Diagnostic::warning(
                Code::AllocationDiffers,
                s.span,
                format!(
                    "`{}`: Triton's allocation (`ttg.shared`) is {recorded} bytes, layoutc places {} bytes",
                    s.name, s.shared_bytes
                ),
            ));
        }
        for op in &s.ops {
            if op.recorded_partition_offsets.len() > 1 {
                if op.recorded_partition_offsets != op.partition_offsets {
                    out.push(Diagnostic::warning(
                        Code::AllocationDiffers,
                        op.span,
                        format!(
                            "Triton placed the pieces of this {} at {:?}; layoutc places them at {:?}",
                            op.op, op.recorded_partition_offsets, op.partition_offsets
                        ),
                    ));
                }
                continue;
            }
            if let Some((offset, size)) = op.recorded
                && op.shared_bytes > 0
                && (offset != op.offset || size.is_some_and(|n| n != op.shared_bytes))
            {
                out.push(Diagnostic::warning(
                    Code::AllocationDiffers,
                    op.span,
                    format!(
                        "Triton placed this {} at {offset}{}; layoutc places {} bytes at {}",
                        op.op,
                        size.map(|n| format!(" ({n} bytes)")).unwrap_or_default(),
                        op.shared_bytes,
                        op.offset
                    ),
                ));
            }
        }
    }
    out
}

impl KernelSummary {
    /// `ttg.local_alloc 24576 B at 0, ttg.convert_layout 8192 B at 0`.
    pub fn buffer_list(&self) -> String {
        let parts: Vec<String> = self
            .ops
            .iter()
            .filter(|o| o.shared_bytes > 0)
            .map(|o| format!("{} {} B at {}", o.op, o.shared_bytes, o.offset))
            .collect();
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

/// A TMA copy (`ttng.async_tma_copy_global_to_local` and back): one
/// `cp.async.bulk.tensor` per operation (Triton loops over the boxes of a
/// large block), moving the whole memdesc; the copy engine writes
/// swizzled 128-byte lines, so its wavefronts are the bytes over 128.
/// gfx1250's tensor data mover (`amdg.async_tdm_copy_global_to_local` and
/// back): one `tensor_load_to_lds` / `tensor_store_from_lds` per copy, the
/// block's bytes written or read in lines of the machine's banks.
fn tdm_instructions(
    op: &mlir::Op,
    banks: &layout_algebra::bank::BankTarget,
) -> Vec<InstructionCount> {
    // `%a = amdg.async_tdm_copy_global_to_local %desc into %buf : !tt.tensordesc<128x32xf16, ...> -> ...`
    let Some(block) = scratch::parse_types(&op.types)
        .into_iter()
        .find(|t| t.elements() > 0)
    else {
        return Vec::new();
    };
    let Some(bits) = scratch::element_bits(&block.element) else {
        return Vec::new();
    };
    let mnemonic = if op.name.ends_with("global_to_local") {
        "tensor_load_to_lds"
    } else {
        "tensor_store_from_lds"
    };
    let bytes = block.elements() * bits as u64 / 8;
    let line = u64::from(banks.banks * banks.bank_bytes).max(1);
    vec![InstructionCount {
        mnemonic: mnemonic.into(),
        count: 1,
        wavefronts: bytes.div_ceil(line),
        conflicts: 0,
        one_thread: false,
        owning_warps: None,
        warps: None,
    }]
}

/// A TMA copy's or reduction's instruction, `issued` times: Triton sends
/// its messages (`NvmmaShared::tma_messages`) one per issuing warp a round,
/// so a thread issues it once per round; the bytes are served by all.
fn tma_instructions(op: &mlir::Op, line: &str, messages: u64) -> Vec<InstructionCount> {
    let Some(block) = scratch::parse_types(&op.types).into_iter().last() else {
        return Vec::new();
    };
    let Some(bits) = scratch::element_bits(&block.element) else {
        return Vec::new();
    };
    let rank = block.shape.len();
    let mnemonic = if op.name.ends_with("global_to_local") {
        format!("cp.async.bulk.tensor.{rank}d.shared::cta.global.mbarrier::complete_tx::bytes")
    } else if op.name.ends_with("async_tma_reduce") {
        // `ttng.async_tma_reduce add, %desc[...] %src : ...`: the buffer
        // reduced into global memory (`desc.atomic_add`, `atomic_max`, ...).
        let Some(kind) = line
            .split_once("async_tma_reduce")
            .and_then(|(_, rest)| rest.split(',').next())
            .map(str::trim)
            .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic()))
        else {
            return Vec::new();
        };
        format!("cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{kind}.bulk_group")
    } else {
        format!("cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group")
    };
    let bytes = block.elements() * bits as u64 / 8;
    vec![InstructionCount {
        mnemonic,
        count: messages,
        wavefronts: bytes.div_ceil(128),
        conflicts: 0,
        one_thread: false,
        owning_warps: None,
        warps: None,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectors LLVM's SLP vectoriser loaded a thread's f32 scan
    /// partials in, read from the LLVM IR Triton 3.9 compiled for gfx942
    /// (1-D cumulative sums of 512 to 8192 elements over 2, 4 and 8 warps):
    /// (warps, partials) and the widths in order.
    #[test]
    fn scan_partials_load_in_the_vectors_the_compiled_ir_has() {
        for (warps, reads, widths) in [
            (2, 1, &[1][..]),
            (2, 3, &[2, 1]),
            (2, 7, &[2, 4, 1]),
            (2, 15, &[2, 4, 4, 4, 1]),
            (2, 31, &[2, 4, 4, 4, 4, 4, 4, 4, 1]),
            (4, 3, &[2, 1]),
            (4, 7, &[2, 4, 1]),
            (4, 15, &[2, 4, 8, 1]),
            (4, 31, &[2, 4, 8, 4, 4, 4, 4, 1]),
            (8, 7, &[4, 1, 1, 1]),
            (8, 15, &[4, 8, 1, 1, 1]),
            (8, 31, &[4, 8, 16, 1, 1, 1]),
        ] {
            let loads: Vec<u64> = (0..reads).collect();
            let vectors = vectorised_scan_reads(&loads, warps).unwrap();
            let got: Vec<u64> = vectors.iter().map(|&(_, n)| n).collect();
            assert_eq!(got, widths, "{warps} warps, {reads} partials");
            // One after the other, every partial once.
            let mut at = 0;
            for (start, n) in vectors {
                assert_eq!(start, at);
                at += n;
            }
            assert_eq!(at, reads);
        }
        // Not one run from a 16-byte line: left to the load vectoriser.
        assert_eq!(vectorised_scan_reads(&[0, 1, 3], 4), None);
        assert_eq!(vectorised_scan_reads(&[2, 3, 4], 4), None);
    }

    fn divisibility(header: &str, value: &str) -> Option<u64> {
        let text = format!("module {{\n  {header} {{\n    tt.return\n  }}\n}}\n");
        let f = mlir::functions(&text).into_iter().next().unwrap();
        match argument_divisibility(&text, &f, value) {
            ArgumentAlignment::NotAnArgument => None,
            ArgumentAlignment::Divisible(n) => Some(n),
        }
    }

    #[test]
    fn an_argument_s_alignment_is_its_own_divisibility() {
        // Each argument's own attribute, with or without locations; `%p`
        // is not `%p2`; an argument without the attribute is aligned to 1.
        let header = "tt.func public @k(%p: !tt.ptr<f16>, %p2: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 2 : i32})";
        assert_eq!(divisibility(header, "%p"), Some(1));
        assert_eq!(divisibility(header, "%p2"), Some(16));
        assert_eq!(divisibility(header, "%n"), Some(2));
        assert_eq!(divisibility(header, "%q"), None);
        let located = r#"tt.func public @k(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("a"(#loc)), %b: !tt.ptr<f32> loc("b"(#loc)))"#;
        assert_eq!(divisibility(located, "%a"), Some(16));
        assert_eq!(divisibility(located, "%b"), Some(1));
    }
}
