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
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// `#blocked = #ttg.blocked<{...}>`
    Alias { name: Ident, value: Expr },
    /// `module attributes {"ttg.num-warps" = 4 : i32, ...}`
    Module { attributes: Vec<ModuleAttribute> },
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
            ItemKind::Alias { name, .. }
            | ItemKind::Layout { name, .. }
            | ItemKind::Let { name, .. }
            | ItemKind::Convert { name, .. }
            | ItemKind::Solve { name, .. } => Some(name),
            ItemKind::Target { name, .. } => name.as_ref(),
            _ => None,
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

/// `"ttg.num-warps" = 4 : i32`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModuleAttribute {
    pub key: String,
    pub value: i64,
    pub ty: String,
    pub span: Span,
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

/// `#ttg.blocked<{sizePerThread = [1, 4], ...}>`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TritonAttribute {
    /// `ttg` or `triton_gpu`.
    pub dialect: String,
    pub kind: Ident,
    pub entries: Vec<AttrEntry>,
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
}
