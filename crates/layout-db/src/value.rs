//! What a declaration evaluates to.

use std::fmt;

use layout_algebra::LinearLayout;
use layout_algebra::cute::atom::{CopyAtom, MmaAtom};
use layout_algebra::cute::tiled::{TiledCopy, TiledMma};
use layout_algebra::cute::{IntTuple, Layout, LayoutAfterSwizzle, Swizzle, SwizzledLayout, Tiler};
use layout_algebra::triton::Encoding;
use layout_algebra::triton::convert_layout::ConversionKind;
use layout_algebra::xla::XlaShape;

/// A Triton encoding bound to a tensor type: `tensor<64x64xf16, #blocked>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorLayout {
    pub shape: Vec<u32>,
    pub element_type: String,
    /// Bits per element, when the element type has a fixed width.
    pub element_bits: Option<u32>,
    pub encoding: Encoding,
    /// `register, lane, warp, block -> dim0..` or `offset, block -> dim0..`.
    pub layout: LinearLayout,
}

/// A `solve` block after type checking; the solver fills it in.
/// `convert(src, dst)`: how Triton lowers a `convert_layout` between two
/// tensor types and what it costs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConversionReport {
    pub src: TensorLayout,
    pub dst: TensorLayout,
    pub element_bits: u32,
    pub kind: ConversionKind,
    /// Register<->lane transpositions, when only registers and lanes move.
    pub mixed_transpositions: Option<usize>,
    /// The swizzled scratch layout (`vector`, `bank`, `segment`, `block`,
    /// `reps` -> dims), when the conversion goes through shared memory.
    pub swizzle: Option<LinearLayout>,
    pub rounds: u64,
    pub scratch_bytes: u64,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    /// The store of the source and the load of the destination, by exact
    /// opcode, with their counts and wavefronts (shared conversions only).
    pub round_trip: Option<[crate::round_trip::RoundTripSide; 2]>,
}

/// A pasted `ttg.local_alloc` / `local_store` / `local_load`: one warp's
/// store of a distributed tensor into shared memory, or load out of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccessReport {
    pub op: layout_syntax::MemoryOpKind,
    pub direction: layout_algebra::bank::Direction,
    pub distributed: TensorLayout,
    pub shared: TensorLayout,
    pub element_bits: u32,
    /// Elements per lane and instruction (the widest vector both layouts
    /// allow, at most 128 bits; 8 for ldmatrix/stmatrix rows).
    pub vector: u32,
    /// The instruction, as the PTX or AMDGCN spells it (`st.shared.v4.b32`).
    pub instruction: layout_algebra::bank::Mnemonic,
    /// How many of them one warp issues.
    pub instructions: u64,
    /// The shared-memory wavefronts one warp needs for its whole share.
    pub wavefronts: u64,
    /// Triton's measure: extra wavefronts per wavefront.
    pub conflicts: u64,
    /// How many of `instructions` move the high half of their register
    /// (AMD's `ds_write_b16_d16_hi`, where a packed conversion made the
    /// stored halves two to a register).
    pub high_half: u64,
    /// A paired access (`ds_write2_b32`): its pairs by encoding and the
    /// requests LLVM leaves single (`ds_write_b32`), which `instructions`
    /// counts together.
    pub pairs: Option<layout_algebra::bank::PairCounts>,
    /// What was counted, so a picture can walk the same requests.
    pub counted: CountedAccess,
}

/// The inputs of an access's count: the distributed layout as matched to
/// the buffer (a sub-view reaches part of it), the shared layout as counted
/// (`offset`, `block` -> elements: a partitioned tensor's buffers as one
/// address space), the instruction and the banks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CountedAccess {
    pub distributed: LinearLayout,
    pub shared: LinearLayout,
    pub instruction: layout_algebra::bank::Instruction,
    pub target: layout_algebra::bank::BankTarget,
}

impl ConversionReport {
    /// What a conversion through shared memory costs, in one line.
    pub fn shared_cost(&self) -> String {
        let instructions = match &self.round_trip {
            Some(sides) => sides
                .iter()
                .flat_map(|s| s.by_opcode())
                .map(|s| format!("{} x {} ({} wavefronts)", s.count, s.mnemonic, s.wavefronts))
                .collect::<Vec<_>>()
                .join(" / "),
            None => "-".to_string(),
        };
        format!(
            "{} scratch bytes, {} round(s), {instructions}, {} read / {} write extra per wavefront",
            self.scratch_bytes, self.rounds, self.read_conflicts, self.write_conflicts
        )
    }
}

/// A `solve` block with its answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SolveOutcome {
    pub kind: SolveKind,
    /// `optimal`, `feasible`, `infeasible` or `timeout`.
    pub status: layout_solve::Status,
    /// Why the status holds, in words.
    pub why: String,
    /// Wall time of the search.
    pub solve_time: SolveTime,
}

/// How long a search took, in microseconds. Not part of the value's
/// identity: the same answer found in another time is the same value (so
/// salsa keeps what depends on it).
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveTime(pub u64);

impl PartialEq for SolveTime {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SolveTime {}

impl std::hash::Hash for SolveTime {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SolveKind {
    Swizzle(Box<SwizzleOutcome>),
    Tiling(Box<TilingOutcome>),
}

/// The answer to `kind = swizzle`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzleOutcome {
    pub family: layout_solve::Family,
    pub instructions: layout_solve::InstructionPolicy,
    /// The machine the wavefronts are counted on.
    pub machine: String,
    /// The shared layout found, as a tensor type usable elsewhere in the
    /// file; `None` when none exists.
    pub answer: Option<TensorLayout>,
    /// Every notation that writes the answer exactly (`triton`, `cute`, ...).
    pub notations: Vec<(String, String)>,
    pub accesses: Vec<layout_solve::AccessReport>,
    pub read_wavefronts: u64,
    pub write_wavefronts: u64,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    pub scratch_bytes: u64,
    /// (write, read) wavefronts no linear layout goes below.
    pub lower_bound: Option<(u64, u64)>,
    /// (write, read) wavefronts of Triton's own swizzle for this pair.
    pub baseline: Option<(u64, u64)>,
}

/// The answer to `kind = tiling`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TilingOutcome {
    pub answer: Option<XlaShape>,
    pub candidates: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Str(String),
    /// `(a, b)`; integers-only tuples double as CuTe shapes and coordinates.
    Tuple(Vec<Value>),
    /// `(dim0 = 0, dim1 = 25)`: named coordinates.
    Named(Vec<(String, Value)>),
    List(Vec<Value>),
    /// `_` in a tiler.
    Underscore,
    /// A Triton encoding not yet bound to a tensor shape.
    Encoding(Box<Encoding>),
    Tensor(Box<TensorLayout>),
    Linear(Box<LinearLayout>),
    Cute(Box<Layout>),
    Swizzle(Swizzle),
    Swizzled(Box<SwizzledLayout>),
    /// `L o k o Sw`: the swizzle acts on the index first (C++'s inverse of a
    /// swizzled layout with an offset).
    LayoutAfterSwizzle(Box<LayoutAfterSwizzle>),
    /// One thread's partition of a tensor of element indices
    /// (`counting_iter(k) o L`), as `partition_s`/`partition_a` give it.
    CuteTensor(Box<layout_algebra::cute::partition::CountingTensor>),
    Tiler(Box<Tiler>),
    /// A CuTe MMA or copy atom, tiled MMA or tiled copy.
    CuteAtom(Box<CuteObject>),
    /// A CuTe layout with `ScaledBasis` strides (`(4,8):(1@0,1@1)`): index
    /// -> coordinate.
    CuteCoord(Box<layout_algebra::cute::coord::CoordLayout>),
    Xla(Box<XlaShape>),
    Solve(Box<SolveOutcome>),
    Conversion(Box<ConversionReport>),
    /// Module attributes or a `target` declaration.
    Target(Box<crate::target::TargetFacts>),
    /// A shared-memory access pasted from a dump, with its analysis.
    Access(Box<AccessReport>),
    /// MLIR's `loc(...)`, the value of a `#loc` alias.
    Location(Box<layout_syntax::Location>),
    /// A memory space (`#ttg.shared_memory`), the value of `#smem`.
    MemorySpace(String),
    /// A pasted MLIR operation that is not evaluated (`tt.load`, ...).
    Operation(String),
    /// An attribute of a dialect below Triton's that no layout reads
    /// (`#llvm.mmra_tag<...>` on AMD fences): its `dialect.kind`.
    Attribute(String),
    /// A real Triton encoding layoutc does not model (`tensor_memory_encoding`):
    /// its kind. A dump that only names it still checks.
    Unsupported(String),
}

impl Value {
    /// The kind of value, as messages name it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Bool(_) => "a boolean",
            Value::Str(_) => "a string",
            Value::Tuple(_) => "a tuple",
            Value::Named(_) => "named coordinates",
            Value::List(_) => "a list",
            Value::Underscore => "`_`",
            Value::Encoding(_) => "a Triton encoding (not bound to a tensor shape)",
            Value::Tensor(_) => "a Triton tensor layout",
            Value::Linear(_) => "a linear layout",
            Value::Cute(_) => "a CuTe layout",
            Value::Swizzle(_) => "a CuTe swizzle",
            Value::Swizzled(_) => "a swizzled CuTe layout",
            Value::LayoutAfterSwizzle(_) => "a CuTe layout after a swizzle (L o k o Sw)",
            Value::CuteTensor(_) => "a thread's partition of a CuTe tensor",
            Value::Tiler(_) => "a CuTe tiler",
            Value::CuteAtom(o) => o.type_name(),
            Value::CuteCoord(_) => "a CuTe coordinate layout",
            Value::Xla(_) => "an XLA shape",
            Value::Solve(_) => "a solve block and its answer",
            Value::Conversion(_) => "a layout conversion",
            Value::Target(_) => "a target",
            Value::Access(_) => "a shared-memory access",
            Value::Location(_) => "a source location",
            Value::MemorySpace(_) => "a memory space",
            Value::Operation(_) => "an MLIR operation",
            Value::Attribute(_) => "an MLIR attribute no layout reads",
            Value::Unsupported(_) => "an encoding layoutc does not model",
        }
    }

    /// The `kind` of `layoutc show --format json`.
    pub fn show_kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Bool(_) => "bool",
            Value::Str(_) => "string",
            Value::Tuple(_) => "tuple",
            Value::Named(_) => "coordinates",
            Value::List(_) => "list",
            Value::Underscore => "underscore",
            Value::Encoding(_) => "encoding",
            Value::Tensor(_)
            | Value::Linear(_)
            | Value::Cute(_)
            | Value::Swizzled(_)
            | Value::LayoutAfterSwizzle(_)
            | Value::CuteTensor(_)
            | Value::Xla(_) => "layout",
            Value::Swizzle(_) => "swizzle",
            Value::Tiler(_) => "tiler",
            Value::CuteAtom(o) => o.show_kind(),
            Value::CuteCoord(_) => "layout",
            Value::Solve(_) => "solve",
            Value::Conversion(_) => "conversion",
            Value::Target(_) => "target",
            Value::Access(_) => "access",
            Value::Location(_) => "location",
            Value::MemorySpace(_) => "memory_space",
            Value::Operation(_) => "operation",
            Value::Attribute(_) => "attribute",
            Value::Unsupported(_) => "unsupported_encoding",
        }
    }

    /// The value as an [`IntTuple`] when it is an integer or a tuple of them.
    pub fn as_int_tuple(&self) -> Option<IntTuple> {
        match self {
            Value::Int(n) => Some(IntTuple::Int(*n)),
            Value::Tuple(items) => items
                .iter()
                .map(Value::as_int_tuple)
                .collect::<Option<Vec<_>>>()
                .map(IntTuple::Tuple),
            _ => None,
        }
    }

    pub fn from_int_tuple(t: &IntTuple) -> Value {
        match t {
            IntTuple::Int(n) => Value::Int(*n),
            IntTuple::Tuple(items) => {
                Value::Tuple(items.iter().map(Value::from_int_tuple).collect())
            }
        }
    }

    /// The linear layout this value is, when it is one directly.
    pub fn as_linear(&self) -> Option<&LinearLayout> {
        match self {
            Value::Linear(l) => Some(l),
            Value::Tensor(t) => Some(&t.layout),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Tuple(items) => {
                // CuTe's printing: no spaces.
                write!(f, "(")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, ")")
            }
            Value::Named(items) => {
                write!(f, "(")?;
                for (i, (n, v)) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{n} = {v}")?;
                }
                write!(f, ")")
            }
            Value::List(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Value::Underscore => write!(f, "_"),
            Value::Encoding(e) => write!(f, "{e}"),
            Value::Tensor(t) => write!(f, "{}", linear_literal(&t.layout)),
            Value::Linear(l) => write!(f, "{}", linear_literal(l)),
            Value::Cute(l) => write!(f, "{l}"),
            Value::Swizzle(s) => write!(f, "{s}"),
            Value::Swizzled(s) => write!(f, "{s}"),
            Value::LayoutAfterSwizzle(s) => write!(f, "{s}"),
            Value::CuteTensor(t) => write!(f, "{t}"),
            Value::Tiler(t) => write!(f, "{t}"),
            Value::CuteAtom(o) => write!(f, "{o}"),
            Value::CuteCoord(l) => write!(f, "{l}"),
            Value::Xla(x) => write!(f, "{x}"),
            Value::Solve(s) => match &s.kind {
                SolveKind::Swizzle(w) => write!(
                    f,
                    "solve swizzle ({}): {} write + {} read wavefronts, {}",
                    w.family.name(),
                    w.write_wavefronts,
                    w.read_wavefronts,
                    s.status.name()
                ),
                SolveKind::Tiling(t) => match &t.answer {
                    Some(x) => write!(f, "solve tiling: {x}, {}", s.status.name()),
                    None => write!(f, "solve tiling: {}", s.status.name()),
                },
            },
            Value::Conversion(c) => {
                write!(f, "convert {} ({} bits)", c.kind.name(), c.element_bits)?;
                if c.kind == ConversionKind::Shared {
                    write!(f, ": {}", c.shared_cost())?;
                }
                Ok(())
            }
            Value::Target(t) => write!(
                f,
                "target {{ {} threads per warp, {} banks }}",
                t.threads_per_warp(),
                t.banks.unwrap_or(32)
            ),
            Value::Access(a) => write!(
                f,
                "{} ({} bits): {} x {}, {} wavefronts, {} extra per wavefront",
                a.op.mlir_name(),
                a.element_bits,
                a.instructions,
                a.instruction,
                a.wavefronts,
                a.conflicts
            ),
            Value::Location(l) => write!(f, "{}", location_text(l)),
            Value::MemorySpace(m) => write!(f, "#ttg.{m}"),
            Value::Operation(op) => write!(f, "{op}"),
            Value::Attribute(a) => write!(f, "#{a}"),
            Value::Unsupported(kind) => write!(f, "{kind} (not modelled)"),
        }
    }
}

/// A linear layout in the `.lay` literal form, on one line:
/// `linear { register: [[0, 1]], lane: [[1, 0]] } -> [dim0: 2, dim1: 2]`.
pub fn linear_literal(l: &LinearLayout) -> String {
    let ins: Vec<String> = l
        .bases()
        .into_iter()
        .map(|(name, bases)| {
            let b: Vec<String> = bases
                .iter()
                .map(|v| {
                    format!(
                        "[{}]",
                        v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            format!("{name}: [{}]", b.join(", "))
        })
        .collect();
    let outs: Vec<String> = l
        .out_dims()
        .into_iter()
        .map(|(n, s)| format!("{n}: {s}"))
        .collect();
    format!("linear {{ {} }} -> [{}]", ins.join(", "), outs.join(", "))
}

/// A location as `file:line:column` (the innermost file location), or
/// MLIR's form when there is none.
pub fn location_text(l: &layout_syntax::Location) -> String {
    use layout_syntax::Location as L;
    match l {
        L::File { file, line, column } => format!("{file}:{line}:{column}"),
        L::Alias(a) => format!("#{a}"),
        L::Named { name, child } => match child {
            Some(c) => format!("{name} at {}", location_text(c)),
            None => name.clone(),
        },
        L::CallSite { callee, caller } => {
            format!(
                "{} called from {}",
                location_text(callee),
                location_text(caller)
            )
        }
        L::Fused(ls) => ls.iter().map(location_text).collect::<Vec<_>>().join(", "),
        L::Unknown => "unknown".into(),
    }
}

/// A tensor shape as Triton writes it: `64x64`.
pub(crate) fn shape_text(shape: &[u32]) -> String {
    shape
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// CuTe's objects above single layouts (CONTRACT section 2, "CuTe atoms,
/// tiled MMAs and tiled copies").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CuteObject {
    MmaAtom(MmaAtom),
    CopyAtom(CopyAtom),
    TiledMma(TiledMma),
    TiledCopy(TiledCopy),
}

impl CuteObject {
    pub fn type_name(&self) -> &'static str {
        match self {
            CuteObject::MmaAtom(_) => "a CuTe MMA atom",
            CuteObject::CopyAtom(_) => "a CuTe copy atom",
            CuteObject::TiledMma(_) => "a CuTe tiled MMA",
            CuteObject::TiledCopy(_) => "a CuTe tiled copy",
        }
    }

    /// The `kind` of `layoutc show --format json`.
    pub fn show_kind(&self) -> &'static str {
        match self {
            CuteObject::MmaAtom(_) => "mma_atom",
            CuteObject::CopyAtom(_) => "copy_atom",
            CuteObject::TiledMma(_) => "tiled_mma",
            CuteObject::TiledCopy(_) => "tiled_copy",
        }
    }
}

impl fmt::Display for CuteObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CuteObject::MmaAtom(a) => write!(
                f,
                "MMA_Atom<{}>: {}x{}x{}, {} thread(s)",
                a.name,
                a.shape_mnk[0],
                a.shape_mnk[1],
                a.shape_mnk[2],
                a.thr_id.size()
            ),
            CuteObject::CopyAtom(a) => write!(
                f,
                "Copy_Atom<{}, {}>: {} thread(s), {} value(s) each",
                a.op,
                a.value_type,
                a.thr_id.size(),
                a.values_per_thread()
            ),
            CuteObject::TiledMma(t) => write!(
                f,
                "TiledMMA of {}: {} threads, tile {}",
                t.atom.name,
                t.size(),
                t.tile_shape()
            ),
            CuteObject::TiledCopy(t) => write!(
                f,
                "TiledCopy of {} ({}): {} threads, tile {}",
                t.atom.op,
                t.atom.value_type,
                t.size(),
                t.tiler
            ),
        }
    }
}
