//! The JSON that `show`, `solve` and `check` print (CONTRACT §3–§5), as
//! types. Fields serialize in declaration order, which is the order of the
//! contract's examples; an optional field is left out when it is absent,
//! never written as `null`, unless the contract says `null`.

use indexmap::IndexMap;
use serde::Serialize;

/// Where a value or diagnostic is: bytes, and its 1-based line and column
/// in characters.
#[derive(Default, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub column: usize,
}

#[derive(Serialize)]
pub struct Diagnostic {
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Label>,
}

#[derive(Serialize)]
pub struct Label {
    pub message: String,
    pub span: Span,
}

/// A linear layout: its input dims with their bases, its output dims.
#[derive(Serialize)]
pub struct Linear {
    pub ins: Vec<InDim>,
    pub outs: Vec<OutDim>,
}

#[derive(Serialize)]
pub struct InDim {
    pub name: String,
    pub size: u64,
    pub bases: Vec<Vec<u32>>,
}

#[derive(Serialize)]
pub struct OutDim {
    pub name: String,
    pub size: u64,
}

/// `layoutc show --format json`.
#[derive(Serialize)]
pub struct ShowOutput {
    pub file: String,
    pub values: Vec<NamedValue>,
    pub diagnostics: Vec<Diagnostic>,
    /// Only for a file with kernels (a dump).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernels: Option<Vec<Kernel>>,
}

/// One declared value: its name, where, its kind, its linear layout when
/// it has one, and the part that says what it is (one of the optional
/// fields; a tensor over a padded layout has `padded` too).
#[derive(Default, Serialize)]
pub struct NamedValue {
    pub name: String,
    pub span: Span,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linear: Option<Linear>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bool: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuple: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<IndexMap<String, Coordinate>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor: Option<Tensor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padded: Option<Padded>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cute: Option<Cute>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xla: Option<Xla>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solve: Option<Solution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversion: Option<Conversion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_space: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported_encoding: Option<String>,
    /// An attribute of a dialect below Triton's (`llvm.mmra_tag`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
}

/// A coordinate of a named tuple: an integer, or the text of anything else.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Coordinate {
    Int(i64),
    Text(String),
}

#[derive(Serialize)]
pub struct Tensor {
    pub shape: Vec<u32>,
    pub element_type: String,
    pub encoding: String,
}

/// A padded shared layout: its intervals, the elements it allocates, the
/// layout without padding, and every element's offset when the tensor is
/// small enough.
#[derive(Serialize)]
pub struct Padded {
    pub intervals: Vec<(u32, u32)>,
    pub alloc_elements: u64,
    pub unpadded: Linear,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offsets: Option<Vec<u64>>,
}

/// A CuTe value: its text as CuTe prints it, its sizes and table when it
/// is a layout, its parts when it is an atom or a tiled MMA or copy.
#[derive(Serialize)]
pub struct Cute {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosize: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<CuteTable>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub parts: Option<CuteParts>,
}

/// A layout's values: indices, or coordinates as text.
#[derive(Serialize)]
#[serde(untagged)]
pub enum CuteTable {
    Indices(Vec<i64>),
    Coordinates(Vec<String>),
}

/// The parts of a CuTe atom, tiled MMA or tiled copy, each as CuTe prints it.
#[derive(Serialize)]
#[serde(untagged)]
pub enum CuteParts {
    MmaAtom {
        op: String,
        shape_mnk: [i64; 3],
        thr_id: String,
        layout_a_tv: String,
        layout_b_tv: String,
        layout_c_tv: String,
    },
    CopyAtom {
        op: String,
        value_type: String,
        thr_id: String,
        val_layout_src: String,
        val_layout_dst: String,
    },
    TiledMma {
        op: String,
        shape_mnk: String,
        thr_id: String,
        layout_a_tv: LayoutOrError,
        layout_b_tv: LayoutOrError,
        layout_c_tv: LayoutOrError,
    },
    TiledCopy {
        op: String,
        value_type: String,
        tiler_mn: String,
        layout_s_tv: LayoutOrError,
        layout_d_tv: LayoutOrError,
    },
}

/// A layout CuTe would print, or why there is none.
#[derive(Serialize)]
#[serde(untagged)]
pub enum LayoutOrError {
    Layout(String),
    Error { error: String },
}

/// An XLA array shape with its layout and what its tiles pad it to.
#[derive(Serialize)]
pub struct Xla {
    pub text: String,
    pub padded_elements: i64,
    pub padded_bytes: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offsets: Option<Vec<i64>>,
}

#[derive(Serialize)]
pub struct Target {
    pub threads_per_warp: u32,
    pub num_warps: Option<u32>,
    pub num_ctas: Option<u32>,
    pub banks: u32,
    pub bank_bytes: u32,
}

/// A layout conversion as Triton lowers it.
#[derive(Serialize)]
pub struct Conversion {
    pub kind: &'static str,
    pub scratch_bytes: u64,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    pub rounds: u64,
    pub element_bits: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed_transpositions: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<String>,
    /// The store and the load by exact opcode, as a kernel summary's op
    /// lists them (shared conversions only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<Instruction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scratch_layout: Option<Linear>,
}

/// One warp's shared-memory access as the compiler emits it.
#[derive(Serialize)]
pub struct Access {
    pub operation: &'static str,
    pub direction: &'static str,
    pub element_bits: u32,
    pub vector: u32,
    pub instruction: String,
    pub instructions: u64,
    pub wavefronts: u64,
    pub conflicts: u64,
    pub shared: Linear,
}

/// `layoutc solve --format json`.
#[derive(Serialize)]
pub struct SolveOutput {
    pub file: String,
    pub solutions: Vec<Solution>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One `solve` block's answer (CONTRACT §4); `name` only in `solve`'s
/// list, not in `show`'s value.
#[derive(Serialize)]
pub struct Solution {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub kind: &'static str,
    pub status: &'static str,
    #[serde(flatten)]
    pub answer: SolveAnswer,
    pub reason: String,
    pub solve_ms: f64,
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum SolveAnswer {
    Swizzle(Box<Swizzle>),
    Tiling(Tiling),
}

#[derive(Serialize)]
pub struct Swizzle {
    pub family: &'static str,
    pub instructions: &'static str,
    pub machine: String,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub layout: Option<SwizzleLayout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_bound: Option<WavefrontPair>,
    /// Triton's own swizzle for the same accesses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton: Option<WavefrontPair>,
}

/// The layout a swizzle search found and what it costs.
#[derive(Serialize)]
pub struct SwizzleLayout {
    pub linear: Linear,
    pub notations: IndexMap<String, String>,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    pub read_wavefronts: u64,
    pub write_wavefronts: u64,
    pub scratch_bytes: u64,
    pub accesses: Vec<AccessCost>,
}

#[derive(Serialize)]
pub struct AccessCost {
    pub access: String,
    pub instruction: String,
    pub instructions: u64,
    pub wavefronts: u64,
    pub ideal_wavefronts: u64,
    pub conflicts: u64,
    /// A paired access the compiler pairs only in part: requests by kind.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub mix: IndexMap<String, u64>,
}

#[derive(Serialize)]
pub struct WavefrontPair {
    pub read_wavefronts: u64,
    pub write_wavefronts: u64,
}

#[derive(Serialize)]
pub struct Tiling {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xla: Option<Xla>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_bound: Option<PaddedBytes>,
    pub candidates: usize,
}

#[derive(Serialize)]
pub struct PaddedBytes {
    pub padded_bytes: i64,
}

/// A kernel's shared memory (CONTRACT §3's `kernels`).
#[derive(Serialize)]
pub struct Kernel {
    pub name: String,
    pub line: usize,
    /// `null` when the dump names no target.
    pub target: Option<String>,
    pub num_warps: Option<u32>,
    pub shared_bytes: u64,
    pub ops: Vec<KernelOp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton_shared_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_limit: Option<u64>,
    /// Written only when some operation could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_memory_columns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_memory: Option<Vec<TensorMemory>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<Vec<Unmeasured>>,
}

#[derive(Serialize)]
pub struct KernelOp {
    pub line: usize,
    pub op: String,
    pub kind: &'static str,
    pub shared_bytes: u64,
    pub offset: u64,
    pub instructions: Vec<Instruction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton_size: Option<u64>,
    /// A partitioned tensor: each piece's offset, one per physical
    /// partition of shared memory (`offset` is the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_offsets: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton_partition_offsets: Option<Vec<u64>>,
    /// The line of the op whose paired instructions also read this op's
    /// data (which then issues none of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_with: Option<usize>,
    /// The line of the op whose paired instructions also write this op's
    /// data (which then issues none of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_with: Option<usize>,
}

#[derive(Serialize)]
pub struct Instruction {
    pub mnemonic: String,
    pub count: u64,
    pub wavefronts: u64,
    pub conflicts: u64,
    /// Written only when one thread of the program moves data: every warp
    /// issues the instruction, and `wavefronts` are that thread's warp's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub one_thread: bool,
    /// Written only when fewer warps move data than issue it: the warps
    /// that own the elements of a tensor its layout repeats across warps;
    /// `wavefronts` are one such warp's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owning_warps: Option<u32>,
    /// Written only when the warps that issue it are not the kernel's: a
    /// warp-specialised partition's, or the worker warps reading their state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warps: Option<u32>,
}

#[derive(Serialize)]
pub struct TensorMemory {
    pub line: usize,
    /// 32-bit columns it takes.
    pub columns: u64,
    /// Lanes it takes: 128, or 64 for 64-row blocks.
    pub lanes: u64,
    /// Where Triton's allocator puts it: the first column, and the first
    /// lane (Triton's `tensor_memory_row_offset`, 0 or 16).
    pub column: u64,
    pub row: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triton_column: Option<u64>,
}

#[derive(Serialize)]
pub struct Unmeasured {
    pub line: usize,
    pub op: String,
    /// Why it could not be sized.
    pub reason: String,
}

/// `layoutc check --format json`.
#[derive(Serialize)]
pub struct CheckOutput {
    pub files: Vec<CheckedFile>,
    pub errors: usize,
}

#[derive(Serialize)]
pub struct CheckedFile {
    pub file: String,
    pub checks: usize,
    pub checks_passed: usize,
    pub diagnostics: Vec<Diagnostic>,
}
