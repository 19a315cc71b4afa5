//! The functions of the language (CONTRACT §2 and more), as one typed
//! table: per function its name, its parameters (name, [`Type`], required
//! or not, a one-line doc), its result type, its doc, and its body. The
//! table drives evaluation (arguments are bound and type-checked here,
//! then the body runs), the arity and type diagnostics, the editor's
//! signature help, completion and hover, and the function list of
//! docs/language.md ([`markdown`]; a test keeps the file equal to it).
//!
//! Bodies see only [`Cx`], the narrow context evaluation lends them (the
//! database, the target, the diagnostics); the evaluator calls [`call`]
//! with arguments it has already evaluated. One module per family:
//! `linear` (Triton's LinearLayout operations), `triton` (encodings as
//! calls, conversions between notations, Triton's coalesce pass), `cute`,
//! `shape` (sizes and shapes of any layout), `xla`, `shared_memory` (bank
//! conflicts, wavefronts, conversions), and `apply` (a layout applied to
//! coordinates, which is not a named function).

mod apply;
mod cute;
mod cute_atoms;
mod linear;
mod shape;
mod shared_memory;
mod triton;
mod xla;

use layout_algebra::DimName;
use layout_algebra::cute::{IntTuple, Layout, Tiler};
use layout_algebra::linear::LinearLayout;
use layout_algebra::triton::keys::{self, KeyType};
use layout_algebra::xla::XlaShape;
use layout_syntax::Span;

use crate::context::{Cx, R, Reported};
use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::encoding::{self, Param as KeyParam};
use crate::value::Value;

pub(crate) use apply::apply;
pub(crate) use shared_memory::{convert_layout, live_load_side};

/// What a parameter takes or a function gives. The check is by kind of
/// value; a body refines it (a size must not be negative, a layout must
/// have the dims it names) with its own diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int,
    Bool,
    Str,
    /// A dim name as a string (`"register"`).
    DimName,
    /// A list of dim names (`["lane", "register"]`).
    DimNames,
    /// A list of `(name, size)` pairs.
    DimSizes,
    /// A list of integers (`[64, 64]`).
    IntList,
    /// An integer or a nested tuple of integers (`(1,(2,3))`).
    IntTuple,
    /// A linear layout, or a tensor type (its linear layout).
    Linear,
    /// A CuTe layout.
    Cute,
    /// A CuTe layout, plain or swizzled (`Sw<3,3,3> o (8,64):(64,1)`).
    CuteLike,
    /// A CuTe tiler: a layout, `<3:3, (2,4):(1,8)>`, a shape or `_`.
    Tiler,
    Xla,
    /// A Triton tensor type (`tensor<64x64xf16, #blocked>`).
    Tensor,
    /// A Triton encoding not bound to a shape (`#blocked`).
    Encoding,
    /// A Triton encoding or a tensor type.
    EncodingOrTensor,
    /// The analysis of a `convert`.
    Conversion,
    /// Any notation of a layout; the function says which it takes.
    Layout,
    /// Named coordinates (`(dim0 = 3, dim1 = 5)`) or a list of them.
    Coords,
    Any,
    /// A key of a Triton encoding, typed by the encodings' table.
    Key(KeyType),
    /// `mma_atom(...)`.
    MmaAtomValue,
    /// `copy_atom(...)`.
    CopyAtomValue,
    /// `tiled_mma(...)`.
    TiledMmaValue,
    /// `tiled_copy(...)` and `tiled_copy_a|b|c(...)`.
    TiledCopyValue,
    /// An MMA atom or a tiled MMA.
    MmaValue,
    /// Any CuTe atom or tiled object.
    CuteObjectValue,
}

impl Type {
    /// How signatures write it.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::Bool => "bool",
            Type::Str => "str",
            Type::DimName => "dim",
            Type::DimNames => "[dim]",
            Type::DimSizes => "[(dim, int)]",
            Type::IntList => "[int]",
            Type::IntTuple => "tuple",
            Type::Linear => "linear",
            Type::Cute | Type::CuteLike => "cute",
            Type::Tiler => "tiler",
            Type::Xla => "xla",
            Type::Tensor => "tensor",
            Type::Encoding => "encoding",
            Type::EncodingOrTensor => "encoding | tensor",
            Type::Conversion => "conversion",
            Type::Layout => "layout",
            Type::Coords => "coords",
            Type::Any => "any",
            Type::Key(k) => k.name(),
            Type::MmaAtomValue => "mma_atom",
            Type::CopyAtomValue => "copy_atom",
            Type::TiledMmaValue => "tiled_mma",
            Type::TiledCopyValue => "tiled_copy",
            Type::MmaValue => "mma_atom | tiled_mma",
            Type::CuteObjectValue => "mma_atom | copy_atom | tiled_mma | tiled_copy",
        }
    }

    /// Why `v` is not of this type, as the message of a diagnostic; `None`
    /// when it is.
    pub(crate) fn mismatch(self, v: &Value) -> Option<String> {
        let expected = match self {
            Type::Int => match v {
                Value::Int(_) => return None,
                Value::Tuple(items) if matches!(items.as_slice(), [Value::Int(_)]) => return None,
                _ => "an integer",
            },
            Type::Bool => match v {
                Value::Bool(_) => return None,
                _ => "a boolean",
            },
            Type::Str => match v {
                Value::Str(_) => return None,
                _ => "a string",
            },
            Type::DimName => match v {
                Value::Str(_) => return None,
                _ => "a string (a dim name such as \"register\")",
            },
            Type::DimNames => match v {
                Value::List(_) | Value::Tuple(_) => return None,
                _ => "a list of dim names",
            },
            Type::DimSizes => match v {
                Value::List(_) => return None,
                _ => "a list of (name, size) pairs, e.g. [(\"dim0\", 32), (\"dim1\", 8)]",
            },
            Type::IntList => match v {
                Value::List(_) | Value::Tuple(_) => return None,
                _ => "a list of integers",
            },
            Type::IntTuple => {
                let ok = match v {
                    Value::List(items) => Value::Tuple(items.clone()).as_int_tuple().is_some(),
                    other => other.as_int_tuple().is_some(),
                };
                if ok {
                    return None;
                }
                "an integer or a tuple of integers like (1,(2,3))"
            }
            Type::Linear => {
                return match v {
                    _ if v.as_linear().is_some() => None,
                    Value::Encoding(e) => Some(format!(
                        "a #ttg.{} encoding has no linear layout until it is bound to a tensor shape; write tensor<64x64xf16, ...> or to_linear(x, [64, 64])",
                        e.kind()
                    )),
                    Value::Cute(_) | Value::Swizzled(_) | Value::Xla(_) => Some(format!(
                        "expected a linear layout, but this is {}; convert it with to_linear(...)",
                        v.type_name()
                    )),
                    _ => Some(format!(
                        "expected a linear layout, but this is {}",
                        v.type_name()
                    )),
                };
            }
            Type::Cute => match v {
                Value::Cute(_) => return None,
                _ => "a CuTe layout (`cute (4,8):(8,1)`)",
            },
            Type::CuteLike => match v {
                Value::Cute(_)
                | Value::Swizzled(_)
                | Value::LayoutAfterSwizzle(_)
                | Value::CuteCoord(_) => return None,
                _ => "a CuTe layout (`cute (4,8):(8,1)`)",
            },
            Type::Tiler => match v {
                Value::Tiler(_)
                | Value::CuteCoord(_)
                | Value::Cute(_)
                | Value::Underscore
                | Value::Int(_)
                | Value::Tuple(_) => return None,
                _ => "a CuTe tiler (a layout, `<3:3, (2,4):(1,8)>`, a shape or `_`)",
            },
            Type::Xla => match v {
                Value::Xla(_) => return None,
                _ => "an XLA shape (`xla f32[3,5]{1,0:T(2,2)}`)",
            },
            Type::Tensor => match v {
                Value::Tensor(_) => return None,
                _ => "a tensor type (tensor<64x64xf16, #enc>)",
            },
            Type::Encoding => match v {
                Value::Encoding(_) => return None,
                _ => "a Triton encoding (`#mma`, `#ttg.blocked<{...}>`)",
            },
            Type::EncodingOrTensor => match v {
                Value::Encoding(_) | Value::Tensor(_) => return None,
                _ => "a Triton encoding or a tensor type",
            },
            Type::Conversion => match v {
                Value::Conversion(_) => return None,
                _ => "a conversion (convert(src, dst))",
            },
            Type::MmaAtomValue
            | Type::CopyAtomValue
            | Type::TiledMmaValue
            | Type::TiledCopyValue
            | Type::MmaValue
            | Type::CuteObjectValue => {
                use crate::value::CuteObject as O;
                let ok = match (self, v) {
                    (Type::CuteObjectValue, Value::CuteAtom(_)) => true,
                    (_, Value::CuteAtom(o)) => matches!(
                        (self, &**o),
                        (Type::MmaAtomValue | Type::MmaValue, O::MmaAtom(_))
                            | (Type::CopyAtomValue, O::CopyAtom(_))
                            | (Type::TiledMmaValue | Type::MmaValue, O::TiledMma(_))
                            | (Type::TiledCopyValue, O::TiledCopy(_))
                    ),
                    _ => false,
                };
                if ok {
                    return None;
                }
                match self {
                    Type::MmaAtomValue => {
                        "an MMA atom (`mma_atom(\"SM80_16x8x16_F32F16F16F32_TN\")`)"
                    }
                    Type::CopyAtomValue => {
                        "a copy atom (`copy_atom(\"SM75_U32x4_LDSM_N\", \"half_t\")`)"
                    }
                    Type::TiledMmaValue => "a tiled MMA (`tiled_mma(atom, cute (2,2,1))`)",
                    Type::TiledCopyValue => {
                        "a tiled copy (`tiled_copy(atom, thr, val)` or `tiled_copy_a(atom, mma)`)"
                    }
                    Type::MmaValue => "an MMA atom or a tiled MMA",
                    _ => "a CuTe atom, tiled MMA or tiled copy",
                }
            }
            Type::Layout | Type::Coords | Type::Any | Type::Key(_) => return None,
        };
        Some(format!(
            "expected {expected}, but this is {}",
            v.type_name()
        ))
    }
}

/// One parameter of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub ty: Type,
    pub required: bool,
    /// One line: what the argument is.
    pub doc: &'static str,
}

/// A required parameter.
const fn req(name: &'static str, ty: Type, doc: &'static str) -> Param {
    Param {
        name,
        ty,
        required: true,
        doc,
    }
}

/// An optional parameter.
const fn opt(name: &'static str, ty: Type, doc: &'static str) -> Param {
    Param {
        name,
        ty,
        required: false,
        doc,
    }
}

/// A function's body: the bound, type-checked arguments in, a value or a
/// reported diagnostic out.
pub(crate) type Body = fn(&mut Cx, &Args) -> R<Value>;

/// How a function takes its arguments and computes its value.
#[derive(Clone, Copy)]
pub(crate) enum Def {
    /// Positional or named parameters, and a body.
    Fn(&'static [Param], Body),
    /// A Triton encoding as a call: the keys of the encoding named (from
    /// the encodings' table), by name only.
    Encoding(&'static str),
}

/// One function of the language.
#[derive(Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    /// One line: what it gives.
    pub doc: &'static str,
    pub result: Type,
    pub(crate) def: Def,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

impl PartialEq for Builtin {
    fn eq(&self, other: &Builtin) -> bool {
        self.name == other.name
    }
}

impl Eq for Builtin {}

impl Builtin {
    /// The parameters in order (an encoding's keys: required ones first).
    pub fn params(&self) -> Vec<Param> {
        match self.def {
            Def::Fn(params, _) => params.to_vec(),
            Def::Encoding(kind) => keys::encoding_kind(kind)
                .map(|k| {
                    k.keys
                        .iter()
                        .map(|k| Param {
                            name: k.name,
                            ty: Type::Key(k.ty),
                            required: k.required,
                            doc: k.doc,
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Whether arguments are given by name only (Triton's keys).
    pub fn by_name_only(&self) -> bool {
        matches!(self.def, Def::Encoding(_))
    }

    /// `in_size(a: linear, dim?: dim) -> int`.
    pub fn label(&self) -> String {
        let params: Vec<String> = self
            .params()
            .iter()
            .map(|p| {
                format!(
                    "{}{}: {}",
                    p.name,
                    if p.required { "" } else { "?" },
                    p.ty.name()
                )
            })
            .collect();
        format!(
            "{}({}) -> {}",
            self.name,
            params.join(", "),
            self.result.name()
        )
    }

    /// `in_size(a, dim)`: the names alone, for messages.
    fn plain_signature(&self) -> String {
        let names: Vec<&str> = self.params().iter().map(|p| p.name).collect();
        format!("{}({})", self.name, names.join(", "))
    }
}

/// A family of functions: a section of docs/language.md.
pub struct Group {
    pub title: &'static str,
    pub builtins: &'static [Builtin],
}

/// Every function, by family.
pub const GROUPS: &[Group] = &[
    linear::GROUP,
    triton::GROUP,
    cute::GROUP,
    cute_atoms::GROUP,
    shape::GROUP,
    xla::GROUP,
    shared_memory::GROUP,
];

/// Every function of the language.
pub fn all() -> impl Iterator<Item = &'static Builtin> {
    GROUPS.iter().flat_map(|g| g.builtins.iter())
}

/// The function named `name`.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    all().find(|b| b.name == name)
}

pub fn is_builtin(name: &str) -> bool {
    builtin(name).is_some()
}

/// E0105 for a call of a function that does not exist, with the nearest
/// function's name.
pub(crate) fn unknown_function(name: &str, span: Span) -> Diagnostic {
    let mut d = Diagnostic::error(
        Code::UnknownFunction,
        span,
        format!("unknown function `{name}`"),
    );
    if let Some(s) = did_you_mean(name, all().map(|b| b.name)) {
        d = d.with_suggestion(s);
    }
    d
}

/// One evaluated argument of a call.
pub(crate) struct ArgValue {
    /// `name = ...`, with the span of the name.
    pub name: Option<(String, Span)>,
    pub value: Value,
    pub span: Span,
}

/// The arguments of a call bound to the parameters, all of the declared
/// type; optional ones may be missing.
pub(crate) struct Args {
    pub name: &'static str,
    values: Vec<Option<(Value, Span)>>,
    /// The whole call.
    pub span: Span,
}

impl Args {
    /// A required argument.
    pub fn get(&self, i: usize) -> (&Value, Span) {
        let (v, s) = self.values[i]
            .as_ref()
            .expect("a required argument is bound");
        (v, *s)
    }

    pub fn opt(&self, i: usize) -> Option<(&Value, Span)> {
        self.values
            .get(i)
            .and_then(|v| v.as_ref())
            .map(|(v, s)| (v, *s))
    }

    pub fn values(&self) -> &[Option<(Value, Span)>] {
        &self.values
    }

    pub fn linear(&self, cx: &mut Cx, i: usize) -> R<LinearLayout> {
        let (v, s) = self.get(i);
        cx.linear(v, s)
    }

    pub fn cute(&self, cx: &mut Cx, i: usize) -> R<Layout> {
        let (v, s) = self.get(i);
        cx.cute_layout(v, s)
    }

    pub fn tiler(&self, cx: &mut Cx, i: usize) -> R<Tiler> {
        let (v, s) = self.get(i);
        cx.tiler(v, s)
    }

    pub fn xla(&self, cx: &mut Cx, i: usize) -> R<XlaShape> {
        let (v, s) = self.get(i);
        cx.xla(v, s)
    }

    pub fn int(&self, cx: &mut Cx, i: usize) -> R<i64> {
        let (v, s) = self.get(i);
        cx.int(v, s)
    }

    pub fn size(&self, cx: &mut Cx, i: usize) -> R<u64> {
        let (v, s) = self.get(i);
        cx.size(v, s)
    }

    pub fn size32(&self, cx: &mut Cx, i: usize) -> R<u32> {
        let (v, s) = self.get(i);
        cx.size32(v, s)
    }

    pub fn string(&self, cx: &mut Cx, i: usize) -> R<String> {
        let (v, s) = self.get(i);
        cx.string(v, s)
    }

    pub fn names(&self, cx: &mut Cx, i: usize) -> R<Vec<DimName>> {
        let (v, s) = self.get(i);
        cx.names(v, s)
    }

    pub fn int_tuple(&self, cx: &mut Cx, i: usize) -> R<IntTuple> {
        let (v, s) = self.get(i);
        cx.int_tuple(v, s)
    }

    pub fn int_list(&self, cx: &mut Cx, i: usize) -> R<Vec<i64>> {
        let (v, s) = self.get(i);
        cx.int_list(v, s)
    }

    pub fn u32_list(&self, cx: &mut Cx, i: usize) -> R<Vec<u32>> {
        let (v, s) = self.get(i);
        cx.u32_list(v, s)
    }
}

/// Calls `b` with evaluated arguments: binds them to the parameters
/// (positional, then by name), checks their types, and runs the body.
pub(crate) fn call(
    cx: &mut Cx,
    b: &'static Builtin,
    name_span: Span,
    args: Vec<ArgValue>,
    span: Span,
) -> R<Value> {
    match b.def {
        Def::Fn(params, body) => {
            let args = bind(cx, b, params, args, span)?;
            body(cx, &args)
        }
        Def::Encoding(kind) => encoding_call(cx, kind, name_span, args, span),
    }
}

/// Binds evaluated arguments to a builtin's parameters (a builtin with
/// parameters; an encoding call has keys instead).
pub(crate) fn bind_to(
    cx: &mut Cx,
    b: &'static Builtin,
    args: Vec<ArgValue>,
    span: Span,
) -> R<Args> {
    match b.def {
        Def::Fn(params, _) => bind(cx, b, params, args, span),
        Def::Encoding(_) => Err(cx.error(
            Code::TypeMismatch,
            span,
            format!("{} is an encoding, not a function with parameters", b.name),
        )),
    }
}

fn bind(
    cx: &mut Cx,
    b: &'static Builtin,
    params: &'static [Param],
    args: Vec<ArgValue>,
    span: Span,
) -> R<Args> {
    let mut bound: Vec<Option<(Value, Span)>> = vec![None; params.len()];
    let mut positional = 0;
    for a in args {
        let slot = match &a.name {
            None => {
                if positional >= params.len() {
                    return Err(cx.error(
                        Code::ArgumentCount,
                        a.span,
                        format!(
                            "{} takes at most {} argument{}",
                            b.name,
                            params.len(),
                            if params.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
                positional += 1;
                positional - 1
            }
            Some((n, n_span)) => match params.iter().position(|p| p.name == n) {
                Some(i) => i,
                None => {
                    let mut d = Diagnostic::error(
                        Code::UnknownKey,
                        *n_span,
                        format!("{} has no argument `{n}`", b.name),
                    );
                    if let Some(s) = did_you_mean(n, params.iter().map(|p| p.name)) {
                        d = d.with_suggestion(s);
                    }
                    return Err(cx.report(d.with_note(b.plain_signature())));
                }
            },
        };
        if bound[slot].is_some() {
            return Err(cx.error(
                Code::ArgumentCount,
                a.span,
                format!("`{}` is given twice", params[slot].name),
            ));
        }
        bound[slot] = Some((a.value, a.span));
    }
    if let Some(missing) = params
        .iter()
        .zip(&bound)
        .position(|(p, v)| p.required && v.is_none())
    {
        return Err(cx.error(
            Code::ArgumentCount,
            span,
            format!(
                "{} needs `{}`: {}",
                b.name,
                params[missing].name,
                b.plain_signature()
            ),
        ));
    }
    for (p, v) in params.iter().zip(&bound) {
        if let Some((v, s)) = v
            && let Some(why) = p.ty.mismatch(v)
        {
            return Err(cx.error(Code::TypeMismatch, *s, why));
        }
    }
    if !ACCEPTS_SIZE_ZERO.contains(&b.name) {
        for (v, s) in bound.iter().flatten() {
            if let Some(empty) = size_zero_layout(v) {
                return Err(cx.error(
                    Code::CutePrecondition,
                    *s,
                    format!(
                        "{}: {empty} has size 0; C++ divides by its empty mode here, or layoutc has not checked its answer against C++",
                        b.name
                    ),
                ));
            }
        }
    }
    Ok(Args {
        name: b.name,
        values: bound,
        span,
    })
}

/// The functions that take a CuTe layout of size 0 (`(4,0):(1,4)`) and give
/// C++'s answer; each is checked against C++ (tests/vectors/cute/corners.tsv).
/// Every other function refuses one: C++ divides by the empty mode in most
/// of them.
const ACCEPTS_SIZE_ZERO: &[&str] = &[
    "size",
    "cosize",
    "rank",
    "depth",
    "shape",
    "stride",
    "table",
    "mode",
    "coalesce",
    "filter",
    "composition",
    "right_inverse",
    "left_inverse",
    "make_layout_like",
    "upcast",
    "downcast",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
];

/// The text of a CuTe layout (or tiler) argument of size 0, if it is one.
fn size_zero_layout(v: &Value) -> Option<String> {
    let empty = match v {
        Value::Cute(l) => l.size() == 0,
        Value::Swizzled(s) => s.layout.size() == 0,
        Value::Tiler(t) => t.has_empty_mode(),
        _ => false,
    };
    empty.then(|| v.to_string())
}

/// `blocked(sizePerThread = [...], ...)`: the keys of the MLIR attribute,
/// checked by the encodings' table like a pasted attribute's.
fn encoding_call(
    cx: &mut Cx,
    kind: &str,
    kind_span: Span,
    args: Vec<ArgValue>,
    span: Span,
) -> R<Value> {
    let mut params = Vec::with_capacity(args.len());
    for a in args {
        let Some((key, key_span)) = a.name else {
            return Err(cx.error(
                Code::ArgumentCount,
                a.span,
                format!(
                    "{kind}(...) takes Triton's keys by name, e.g. {kind}(order = [1, 0], ...)"
                ),
            ));
        };
        params.push(KeyParam {
            key,
            key_span,
            value: a.value,
            span: a.span,
        });
    }
    let mut diags = Vec::new();
    let enc = encoding::build(kind, kind_span, span, &params, &mut diags);
    cx.diags.extend(diags);
    enc.map(|e| Value::Encoding(Box::new(e))).ok_or(Reported)
}

/// The function list of docs/language.md, between its markers: one
/// section per family, one entry per function with its parameters.
pub fn markdown() -> String {
    let mut md = String::new();
    for g in GROUPS {
        md += &format!("\n### {}\n\n", g.title);
        for b in g.builtins {
            md += &format!("- `{}`: {}\n", b.label(), b.doc);
            for p in b.params() {
                md += &format!("  - `{}`: {}\n", p.name, p.doc);
            }
        }
    }
    md
}
