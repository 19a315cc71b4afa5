//! The syntax tree of a `.lay` file. Every node carries the byte span of its
//! text; notations pasted from other systems (CuTe, XLA, tilers) keep their
//! source text for the algebra to parse.

use std::fmt;

/// A byte range in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Shifts by `delta` bytes (items are parsed relative to their start).
    pub fn shift(self, delta: usize) -> Span {
        Span::new(self.start + delta, self.end + delta)
    }

    pub fn contains(self, offset: usize) -> bool {
        self.start <= offset && offset <= self.end
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
    /// MLIR's `loc(...)` at the end of a pasted line: where the line came
    /// from (a Python source line, or a `#loc` alias that names one).
    pub location: Option<Location>,
}

/// MLIR's source location, `loc(...)`, as Triton prints it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// `loc("kernel.py":16:1)`
    File {
        file: String,
        line: u32,
        column: u32,
    },
    /// `loc(#loc12)`
    Alias(String),
    /// `loc("offs_m"(#loc2))` or `loc("name")`
    Named {
        name: String,
        child: Option<Box<Location>>,
    },
    /// `loc(callsite(#loc1 at #loc2))`
    CallSite {
        callee: Box<Location>,
        caller: Box<Location>,
    },
    /// `loc(fused[#loc1, #loc2])`
    Fused(Vec<Location>),
    /// `loc(unknown)`
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// `#blocked = #ttg.blocked<{...}>`
    Alias { name: Ident, value: Expr },
    /// `module attributes {"ttg.num-warps" = 4 : i32, ...}`, as Triton
    /// prints it (with the `{` that opens the module's body, if pasted).
    Module {
        attributes: Vec<ModuleAttribute>,
        /// The `{` that opens the module's body, when pasted with it.
        body: Option<Span>,
    },
    /// `layout NAME = EXPR`
    Layout { name: Ident, value: Expr },
    /// `let NAME = EXPR` (integers, lists, tuples, any value)
    Let { name: Ident, value: Expr },
    /// `target NAME { key = value, ... }` or `target = preset`
    Target {
        name: Option<Ident>,
        preset: Option<Ident>,
        fields: Vec<Field>,
    },
    /// `convert NAME = SRC -> DST`, also with TTGIR's operation pasted in
    /// front of the types: `convert NAME = ttg.convert_layout %x : SRC -> DST`.
    Convert {
        name: Ident,
        /// The span of the pasted `ttg.convert_layout %x :`, if any.
        operation: Option<Span>,
        src: Expr,
        dst: Expr,
    },
    /// A pasted `ttg.local_alloc`, `ttg.local_store` or `ttg.local_load`:
    /// a store to or a load from shared memory, analysed like a conversion.
    /// `%r = ttg.local_load %buf : !ttg.memdesc<..> -> tensor<..>`.
    MemoryOp {
        /// The SSA result (`%r`), when the operation has one.
        name: Option<Ident>,
        op: MemoryOpKind,
        /// The span of the operation's name and operands, up to the `:`.
        operation: Span,
        /// The types after the `:`: `from -> to`. `from` is `None` for an
        /// allocation without an initial value (`() -> !ttg.memdesc<..>`).
        from: Option<Expr>,
        to: Expr,
    },
    /// Any other pasted MLIR operation line (`%5 = tt.load ...`,
    /// `tt.func ...`, `scf.yield ...`, `^bb0(...)`): accepted and not
    /// evaluated.
    Operation {
        results: Vec<Ident>,
        /// `tt.load`, `"tt.reduce"`, `^bb0`.
        op: Ident,
    },
    /// `check EXPR`
    Check { expr: Expr },
    /// `solve NAME { key = value ... }`
    Solve { name: Ident, fields: Vec<Field> },
    /// An item that did not parse; its errors are reported separately.
    Error,
}

impl Item {
    /// The declared name, if the item declares one.
    pub fn name(&self) -> Option<&Ident> {
        match &self.kind {
            ItemKind::MemoryOp { name, .. } => name.as_ref(),
            ItemKind::Alias { name, .. }
            | ItemKind::Layout { name, .. }
            | ItemKind::Let { name, .. }
            | ItemKind::Convert { name, .. }
            | ItemKind::Solve { name, .. } => Some(name),
            ItemKind::Target { name, .. } => name.as_ref(),
            _ => None,
        }
    }

    /// Whether the item is a pasted MLIR line (an operation, a module, a
    /// `#loc` or other alias of a dump) rather than a `.lay` declaration,
    /// so that parts of its text are not in its tree.
    pub fn is_pasted_mlir(&self) -> bool {
        match &self.kind {
            ItemKind::Operation { .. } | ItemKind::Module { .. } | ItemKind::MemoryOp { .. } => {
                true
            }
            ItemKind::Convert { operation, .. } => operation.is_some(),
            ItemKind::Alias { .. } => true,
            _ => false,
        }
    }

    /// The declared name as it is looked up file-wide: `#x` for a Triton
    /// alias, the plain name otherwise.
    pub fn declared_name(&self) -> Option<String> {
        let name = self.name()?;
        Some(match self.kind {
            ItemKind::Alias { .. } => format!("#{}", name.name),
            _ => name.name.clone(),
        })
    }
}

/// Which shared-memory operation a pasted line performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOpKind {
    /// `ttg.local_alloc`: a store when it has an initial value.
    Alloc,
    /// `ttg.local_store`
    Store,
    /// `ttg.local_load`
    Load,
}

impl MemoryOpKind {
    pub fn mlir_name(self) -> &'static str {
        match self {
            MemoryOpKind::Alloc => "ttg.local_alloc",
            MemoryOpKind::Store => "ttg.local_store",
            MemoryOpKind::Load => "ttg.local_load",
        }
    }
}

/// `"ttg.num-warps" = 4 : i32`, `ttg.target = "cuda:90"`,
/// `"ttng.two-ctas" = false`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModuleAttribute {
    /// The key without quotes.
    pub key: String,
    pub value: ModuleValue,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ModuleValue {
    /// `4 : i32` (the type, when written).
    Int(i64, Option<String>),
    Bool(bool),
    Str(String),
    /// A value layoutc does not read (a unit attribute, an array, ...).
    Other,
}

/// `key = value` inside a block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub key: Ident,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `x in [a, b]`
    In,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::In => "in",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
        }
    }
}

/// A call argument, optionally named (`register = 1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Str(String),
    /// A name (`acc`, `swizzle`).
    Name(String),
    /// `_`
    Underscore,
    /// `#name`: a Triton alias.
    AliasRef(String),
    /// `(a, b)`, `(dim0 = 0, dim1 = 25)`.
    Tuple(Vec<Arg>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `f(args)`; also the application of a layout to coordinates.
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Neg(Box<Expr>),
    /// `not x`
    Not(Box<Expr>),
    /// `#ttg.KIND<{...}>`
    Attribute(TritonAttribute),
    /// `cute TEXT`: CuTe's printed form, kept verbatim.
    Cute(String),
    /// `xla TEXT`: an HLO shape with layout, kept verbatim.
    Xla(String),
    /// `<3:3, (2,4):(1,8)>`: a CuTe by-mode tiler, kept verbatim.
    Tiler(String),
    /// `tensor<64x64xf16, #blocked>`
    Tensor(TensorType),
    /// `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable, 3x64x32>`
    MemDesc(MemDescType),
    /// `loc(...)`: the value of a `#loc = loc(...)` alias.
    Location(Location),
    /// `linear { register: [[0, 1]], ... } -> [dim0: 4, ...]`
    Linear {
        ins: Vec<(Ident, Vec<Vec<i64>>)>,
        outs: Vec<(Ident, i64)>,
    },
    Error,
}

/// `tensor<64x64xf16, #enc>`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub dims: Vec<i64>,
    pub element_type: String,
    pub encoding: Option<Box<Expr>>,
}

/// `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable, 3x64x32>`: a
/// shared-memory buffer as Triton types it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemDescType {
    pub dims: Vec<i64>,
    pub element_type: String,
    pub encoding: Box<Expr>,
    /// `#smem` or `#ttg.shared_memory`.
    pub memory_space: Option<Box<Expr>>,
    pub mutable: bool,
    /// The shape of the whole allocation a sub-view belongs to.
    pub alloc_shape: Option<Vec<i64>>,
}

/// `#ttg.blocked<{sizePerThread = [1, 4], ...}>`; also the forms without a
/// dictionary: `#ttg.shared_memory`, `#ttg.padded_shared<[32:+4] {...}>`,
/// `#ttg.shared_linear<{...}, alignment = 128>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TritonAttribute {
    /// `ttg` or `triton_gpu` (or another dialect, `ttng`, `amdgpu`).
    pub dialect: String,
    pub kind: Ident,
    pub entries: Vec<AttrEntry>,
    /// `[32:+4, 64:+8]`: padding intervals (`#ttg.padded_shared`).
    pub padding: Vec<PaddingInterval>,
}

/// `32:+4`: after every 32 elements, 4 elements of padding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaddingInterval {
    pub interval: i64,
    pub padding: i64,
    pub span: Span,
}

impl TritonAttribute {
    pub fn get(&self, key: &str) -> Option<&AttrEntry> {
        self.entries.iter().find(|e| e.key.name == key)
    }
}

/// `key = value` inside a Triton attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AttrEntry {
    pub key: Ident,
    pub value: AttrValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AttrValue {
    pub kind: AttrValueKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrValueKind {
    Int(i64),
    Bool(bool),
    Str(String),
    List(Vec<AttrValue>),
    /// `{register = [...], warp = [...]}`
    Dict(Vec<AttrEntry>),
    /// `#mma`
    Alias(String),
    /// An inline attribute (`parent = #ttg.blocked<{...}>`).
    Attribute(Box<TritonAttribute>),
    Error,
}

/// A diagnostic from lexing or parsing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
    pub kind: SyntaxErrorKind,
}

/// What went wrong, for the checker to decide the code without reading the
/// message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyntaxErrorKind {
    /// A token the grammar does not allow here.
    Unexpected,
    /// A `}` with nothing open in its item: it may close a `module` line
    /// that an earlier item opened.
    UnopenedCloser,
    /// An item nested deeper than [`crate::parser::MAX_NESTING`] levels; it
    /// is not parsed, so that no input can exhaust the stack.
    TooDeep,
}
