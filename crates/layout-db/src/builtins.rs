//! The functions of the language (CONTRACT §2 and more) and the
//! application of a layout to coordinates.

use layout_algebra::cute::{self, IntTuple, Layout, SwizzledLayout, Tiler};
use layout_algebra::interop::{
    CuteInDims, cute_to_linear, linear_to_cute, swizzled_to_linear, xla_to_linear,
};
use layout_algebra::triton::coalesce::{AxisInfo, CoalesceRequest, coalesced_layout};
use layout_algebra::triton::convert_layout::analyse_conversion;
use layout_algebra::triton::{CgaLayout, Encoding};
use layout_algebra::xla::XlaShape;
use layout_algebra::{DimName, LinearLayout};
use layout_syntax::{Arg, Span};

use crate::diagnostic::{Code, Diagnostic, Family, did_you_mean};
use crate::encoding::{self, Param};
use crate::eval::{Ctx, R, Reported};
use crate::value::{ConversionReport, TensorLayout, Value};

/// A function's parameters: names in order, how many are required, and a
/// one-line description (for hovers and completion).
#[derive(Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub required: usize,
    pub doc: &'static str,
}

macro_rules! sigs {
    ($($name:literal ($($p:literal),*) $req:literal $doc:literal;)*) => {
        pub const SIGNATURES: &[Signature] = &[
            $(Signature { name: $name, params: &[$($p),*], required: $req, doc: $doc },)*
        ];
    };
}

sigs! {
    "identity_1d"("size", "in", "out") 3 "Triton's identity1D: in -> out, x -> x";
    "zeros_1d"("size", "in", "out") 3 "Triton's zeros1D: every input to 0 (out size 1)";
    "strided_1d"("size", "stride", "in", "out") 4 "Triton's strided1D: x -> stride * x";
    "compose"("a", "b") 2 "Triton's a.compose(b): b after a";
    "invert_and_compose"("a", "b") 2 "Triton's a.invertAndCompose(b): a⁻¹ after b";
    "invert"("a") 1 "the inverse of an invertible layout";
    "pseudoinvert"("a") 1 "the smallest right inverse of a surjective layout";
    "transpose_ins"("a", "order") 2 "reorder the in-dims";
    "transpose_outs"("a", "order") 2 "reorder the out-dims";
    "reshape_ins"("a", "dims") 2 "reshape the in-dims to [(name, size), ...]";
    "reshape_outs"("a", "dims") 2 "reshape the out-dims to [(name, size), ...]";
    "flatten_ins"("a") 1 "merge the in-dims into one";
    "flatten_outs"("a") 1 "merge the out-dims into one";
    "sublayout"("a", "ins", "outs") 3 "restrict to some in-dims and out-dims";
    "divide_left"("a", "b") 2 "Triton's divideLeft: c with a = b * c";
    "divide_right"("a", "b") 2 "Triton's divideRight: c with a = c * b";
    "concat_ins"("a", "b") 2 "join the in-dims of two layouts with the same outs";
    "concat_outs"("a", "b") 2 "join the out-dims of two layouts with the same ins";
    "resize_in"("a", "dim", "size") 3 "grow an in-dim with zero bases";
    "resize_out"("a", "dim", "size") 3 "grow an out-dim";
    "quotient"("a", "dims") 2 "Triton's quotient: the layout without dims on which it is the identity";
    "is_injective"("a") 1 "whether distinct inputs map to distinct outputs";
    "is_surjective"("a") 1 "whether every output is reached";
    "is_invertible"("a") 1 "whether the layout is a bijection";
    "num_consecutive"("a") 1 "Triton's getNumConsecutiveInOut: elements per thread that are contiguous";
    "in_size"("a", "dim") 1 "the size of an in-dim, or of all in-dims together";
    "out_size"("a", "dim") 1 "the size of an out-dim, or of all out-dims together";
    "free_variable_masks"("a") 1 "per in-dim, the bits that do not change the output";
    "blocked"("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.blocked as a call";
    "swizzled_shared"("vec", "perPhase", "maxPhase", "order", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.swizzled_shared as a call";
    "nvmma_shared"("swizzlingByteWidth", "elementBitWidth", "transposed", "fp4Padded", "rank", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.nvmma_shared as a call";
    "nvidia_mma"("versionMajor", "versionMinor", "warpsPerCTA", "instrShape", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.nvidia_mma as a call";
    "amd_mfma"("version", "warpsPerCTA", "instrShape", "isTransposed", "tilesPerWarp", "elementBitWidth", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.amd_mfma as a call";
    "amd_wmma"("version", "isTransposed", "warpsPerCTA", "ctaLayout", "instrShape", "rank", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout") 0 "#ttg.amd_wmma as a call";
    "slice"("parent", "dim") 2 "#ttg.slice: the parent without one dim (of an encoding or a tensor layout)";
    "dot_op"("parent", "opIdx", "kWidth") 2 "#ttg.dot_op: operand opIdx of a dot with the parent's result layout";
    "to_linear"("x", "arg") 1 "the linear layout of a tensor, an encoding over a shape, a CuTe layout, a swizzle over a domain or an XLA shape";
    "to_cute"("x") 1 "a linear layout whose bases are single bits, as a CuTe layout";
    "make_layout"("shape", "stride") 1 "a CuTe layout from shape and stride (without stride, column-major), or the concatenation of two layouts";
    "owner"("layout", "element") 2 "the smallest input (register, lane, ...) that a layout maps to an element";
    "coalesce"("a", "profile") 1 "CuTe's coalesce (by mode with a profile; of a swizzled layout, its inner layout)";
    "filter"("a") 1 "CuTe's filter: coalesce and drop stride-0 modes";
    "composition"("a", "b") 2 "CuTe's composition a o b (b may be a tiler, a swizzle comes first)";
    "complement"("a", "cotarget") 1 "CuTe's complement, with an optional cotarget (of a swizzled layout, of its inner layout)";
    "right_inverse"("a") 1 "CuTe's right_inverse";
    "left_inverse"("a") 1 "CuTe's left_inverse (the quasi-inverse of a non-injective layout)";
    "logical_divide"("a", "tiler") 2 "CuTe's logical_divide (a swizzle stays outside)";
    "zipped_divide"("a", "tiler") 2 "CuTe's zipped_divide (a swizzle stays outside)";
    "tiled_divide"("a", "tiler") 2 "CuTe's tiled_divide (a swizzle stays outside)";
    "flat_divide"("a", "tiler") 2 "CuTe's flat_divide (a swizzle stays outside)";
    "logical_product"("a", "tiler") 2 "CuTe's logical_product (a swizzle stays outside)";
    "zipped_product"("a", "tiler") 2 "CuTe's zipped_product (a swizzle stays outside)";
    "tiled_product"("a", "tiler") 2 "CuTe's tiled_product (a swizzle stays outside)";
    "flat_product"("a", "tiler") 2 "CuTe's flat_product (a swizzle stays outside)";
    "blocked_product"("a", "b") 2 "CuTe's blocked_product (a swizzle stays outside)";
    "raked_product"("a", "b") 2 "CuTe's raked_product (a swizzle stays outside)";
    "tile_to_shape"("atom", "shape", "order") 2 "CuTe's tile_to_shape: the atom repeated to the shape, column-major or in the order given (a swizzle stays outside)";
    "crd2idx"("coord", "layout", "stride") 2 "CuTe's crd2idx(coord, layout) (also swizzled) or crd2idx(coord, shape, stride)";
    "idx2crd"("idx", "shape", "stride") 2 "CuTe's idx2crd";
    "size"("x") 1 "the number of elements (CuTe size, tensor elements, linear in-size)";
    "cosize"("x") 1 "CuTe's cosize: one past the largest offset";
    "rank"("x") 1 "the number of top-level modes (or tensor dims)";
    "depth"("x") 1 "CuTe's depth";
    "shape"("x") 1 "the shape (CuTe or tensor)";
    "stride"("x") 1 "CuTe's stride";
    "mode"("x", "i") 2 "CuTe's layout<i>: one top-level mode";
    "table"("x") 1 "every value of a layout in index order (CuTe, swizzled, XLA offsets)";
    "offset"("x", "index") 2 "the physical element offset of an XLA element";
    "padded_elements"("x") 1 "XLA: elements including tile padding";
    "padded_bytes"("x") 1 "XLA: bytes including tile padding";
    "logical_elements"("x") 1 "XLA: elements without padding";
    "first_tile_linear_index"("x", "index") 2 "XLA's own LinearIndex, which tiles by the first tile only";
    "first_tile_array_size"("x") 1 "XLA's own ArraySize, which pads by the first tile only";
    "tpu"("element_type", "dims") 2 "the TPU's default tiled layout for an array (seed 001)";
    "bank_conflicts"("dist", "shared", "bits") 1 "Triton's measure: extra wavefronts per wavefront after the widest vectorisation (also of a pasted local_alloc/local_store/local_load)";
    "wavefronts"("dist", "shared", "bits", "access", "instruction") 1 "total shared-memory wavefronts of one warp's access (\"store\" or \"load\"), widest vectorisation (or of a pasted local_alloc/local_store/local_load)";
    "vectorisation"("dist", "shared", "bits") 1 "elements per vectorised access (Triton's largestVectorisation; also of a pasted local_alloc/local_store/local_load)";
    "convert"("src", "dst") 2 "Triton's convert_layout between two tensor types: kind, scratch bytes, conflicts of its swizzle";
    "kind"("conversion") 1 "a conversion's lowering: \"noop\", \"register\", \"shuffle\" or \"shared\"";
    "scratch_bytes"("conversion") 1 "shared memory a conversion allocates (0 unless it goes through shared memory)";
    "rounds"("conversion") 1 "store/load rounds over the scratch buffer (1 unless registers repeat on both sides)";
    "read_conflicts"("conversion") 1 "extra wavefronts per wavefront of the load through the conversion's swizzle";
    "write_conflicts"("conversion") 1 "extra wavefronts per wavefront of the store through the conversion's swizzle";
    "scratch_layout"("conversion") 1 "the swizzled scratch buffer: vector, bank, segment, block, reps -> dims";
    "coalesced_blocked"("shape", "bits", "contiguity", "divisibility", "num_warps", "threads_per_warp") 4 "Triton's coalesce pass: the blocked layout for a load or store";
}

pub fn is_builtin(name: &str) -> bool {
    SIGNATURES.iter().any(|s| s.name == name)
}

pub fn signature(name: &str) -> Option<&'static Signature> {
    SIGNATURES.iter().find(|s| s.name == name)
}

pub(crate) type Bound = Vec<Option<(Value, Span)>>;

/// Binds call arguments to parameters (positional, then by name).
pub(crate) fn bind(ctx: &mut Ctx, sig: &Signature, args: &[Arg], call_span: Span) -> R<Bound> {
    let mut bound: Bound = vec![None; sig.params.len()];
    let mut positional = 0;
    for a in args {
        let v = ctx.expr(&a.value)?;
        let slot = match &a.name {
            None => {
                if positional >= sig.params.len() {
                    return Err(ctx.error(
                        Code::ArgumentCount,
                        a.value.span,
                        format!("{} takes at most {} arguments", sig.name, sig.params.len()),
                    ));
                }
                positional += 1;
                positional - 1
            }
            Some(n) => match sig.params.iter().position(|p| *p == n.name) {
                Some(i) => i,
                None => {
                    let mut d = Diagnostic::error(
                        Code::UnknownKey,
                        n.span,
                        format!("{} has no argument `{}`", sig.name, n.name),
                    );
                    if let Some(s) = did_you_mean(&n.name, sig.params.iter().copied()) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    return Err(ctx.report(d.with_note(format!(
                        "{}({})",
                        sig.name,
                        sig.params.join(", ")
                    ))));
                }
            },
        };
        if bound[slot].is_some() {
            return Err(ctx.error(
                Code::ArgumentCount,
                a.value.span,
                format!("`{}` is given twice", sig.params[slot]),
            ));
        }
        bound[slot] = Some((v, a.value.span));
    }
    if let Some(missing) = (0..sig.required).find(|&i| bound[i].is_none()) {
        return Err(ctx.error(
            Code::ArgumentCount,
            call_span,
            format!(
                "{} needs `{}`: {}({})",
                sig.name,
                sig.params[missing],
                sig.name,
                sig.params.join(", ")
            ),
        ));
    }
    Ok(bound)
}

fn linear_value(l: LinearLayout) -> Value {
    Value::Linear(Box::new(l))
}

fn cute_value(l: Layout) -> Value {
    Value::Cute(Box::new(l))
}

/// Applies a CuTe operation to a layout, or to the inner layout of a swizzled
/// one with the swizzle and offset kept outside (how C++'s ComposedLayout
/// overloads apply coalesce, the divides, the products and tile_to_shape).
fn cute_or_swizzled(
    ctx: &mut Ctx,
    v: &Value,
    span: Span,
    f: impl FnOnce(&Layout) -> layout_algebra::Result<Layout>,
) -> R<layout_algebra::Result<Value>> {
    Ok(match v {
        Value::Swizzled(sl) => sl.map_inner(f).map(|s| Value::Swizzled(Box::new(s))),
        other => f(&ctx.cute_layout(other, span)?).map(cute_value),
    })
}

impl Ctx<'_> {
    pub(crate) fn string(&mut self, v: &Value, span: Span) -> R<String> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a string (a dim name such as \"register\"), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn size(&mut self, v: &Value, span: Span) -> R<u64> {
        let n = self.int(v, span)?;
        u64::try_from(n).map_err(|_| {
            self.error(
                Code::TypeMismatch,
                span,
                format!("a size must not be negative, but is {n}"),
            )
        })
    }

    fn size32(&mut self, v: &Value, span: Span) -> R<u32> {
        let n = self.size(v, span)?;
        u32::try_from(n).map_err(|_| {
            self.error(
                Code::TooLarge,
                span,
                format!("{n} is too large for a layout dim"),
            )
        })
    }

    fn names(&mut self, v: &Value, span: Span) -> R<Vec<DimName>> {
        match v {
            Value::List(items) | Value::Tuple(items) => items
                .iter()
                .map(|i| self.string(i, span).map(DimName::from))
                .collect(),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a list of dim names, but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    fn dim_sizes(&mut self, v: &Value, span: Span) -> R<Vec<(DimName, u64)>> {
        let bad = |ctx: &mut Self| {
            ctx.error(
                Code::TypeMismatch,
                span,
                "expected a list of (name, size) pairs, e.g. [(\"dim0\", 32), (\"dim1\", 8)]",
            )
        };
        let Value::List(items) = v else {
            return Err(bad(self));
        };
        let mut out = Vec::new();
        for i in items {
            match i {
                Value::Tuple(p) if p.len() == 2 => {
                    let n = self.string(&p[0], span)?;
                    let s = self.size(&p[1], span)?;
                    out.push((DimName::from(n), s));
                }
                _ => return Err(bad(self)),
            }
        }
        Ok(out)
    }

    fn int_tuple(&mut self, v: &Value, span: Span) -> R<IntTuple> {
        match v {
            Value::List(items) => Value::Tuple(items.clone()).as_int_tuple(),
            other => other.as_int_tuple(),
        }
        .ok_or_else(|| {
            self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected an integer or a tuple of integers like (1,(2,3)), but this is {}",
                    v.type_name()
                ),
            )
        })
    }

    fn int_list(&mut self, v: &Value, span: Span) -> R<Vec<i64>> {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                items.iter().map(|i| self.int(i, span)).collect()
            }
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a list of integers, but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    fn u32_list(&mut self, v: &Value, span: Span) -> R<Vec<u32>> {
        let l = self.int_list(v, span)?;
        l.into_iter()
            .map(|x| {
                u32::try_from(x).map_err(|_| {
                    self.error(Code::TypeMismatch, span, format!("{x} is not a valid size"))
                })
            })
            .collect()
    }

    fn cute_layout(&mut self, v: &Value, span: Span) -> R<Layout> {
        match v {
            Value::Cute(l) => Ok((**l).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a CuTe layout (`cute (4,8):(8,1)`), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    fn tiler(&mut self, v: &Value, span: Span) -> R<Tiler> {
        Ok(match v {
            Value::Tiler(t) => (**t).clone(),
            Value::Cute(l) => Tiler::Layout((**l).clone()),
            Value::Underscore => Tiler::Underscore,
            Value::Int(n) => {
                let l = Layout::new(IntTuple::Int(*n), IntTuple::Int(1));
                self.alg(l, Family::Cute, span)?;
                Tiler::Int(*n)
            }
            // A shape as a tiler: each mode n is n:1 (CuTe's Shape tilers).
            Value::Tuple(items) => {
                let mut modes = Vec::with_capacity(items.len());
                for i in items {
                    modes.push(self.tiler(i, span)?);
                }
                Tiler::Modes(modes)
            }
            other => {
                return Err(self.error(
                    Code::TypeMismatch,
                    span,
                    format!("expected a CuTe tiler (a layout, `<3:3, (2,4):(1,8)>`, a shape or `_`), but this is {}", other.type_name()),
                ));
            }
        })
    }

    fn xla(&mut self, v: &Value, span: Span) -> R<XlaShape> {
        match v {
            Value::Xla(x) => Ok((**x).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected an XLA shape (`xla f32[3,5]{{1,0:T(2,2)}}`), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn tensor(&mut self, v: &Value, span: Span, role: &str) -> R<TensorLayout> {
        match v {
            Value::Tensor(t) => Ok((**t).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!("expected the {role} layout as a tensor type (tensor<64x64xf16, #enc>), but this is {}", other.type_name()),
            )),
        }
    }
}

/// Calls builtin `name`.
pub(crate) fn call(
    ctx: &mut Ctx,
    name: &str,
    name_span: Span,
    args: &[Arg],
    span: Span,
) -> R<Value> {
    let Some(sig) = signature(name) else {
        let mut d = Diagnostic::error(
            Code::UnknownFunction,
            name_span,
            format!("unknown function `{name}`"),
        );
        if let Some(s) = did_you_mean(name, SIGNATURES.iter().map(|s| s.name)) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        return Err(ctx.report(d));
    };
    // Triton encodings as calls take Triton's keys.
    if encoding::kind_names().any(|k| k == name) && !matches!(name, "slice" | "dot_op") {
        return encoding_call(ctx, name, name_span, args, span);
    }
    let b = bind(ctx, sig, args, span)?;
    let arg = |i: usize| b[i].clone().expect("required argument is bound");
    let opt = |i: usize| b[i].clone();
    macro_rules! lin {
        ($i:expr) => {{
            let (v, s) = arg($i);
            ctx.linear(&v, s)?
        }};
    }
    macro_rules! cu {
        ($i:expr) => {{
            let (v, s) = arg($i);
            ctx.cute_layout(&v, s)?
        }};
    }
    macro_rules! til {
        ($i:expr) => {{
            let (v, s) = arg($i);
            ctx.tiler(&v, s)?
        }};
    }
    macro_rules! xl {
        ($i:expr) => {{
            let (v, s) = arg($i);
            ctx.xla(&v, s)?
        }};
    }
    macro_rules! alg {
        ($r:expr, $fam:expr) => {{
            let r = $r;
            ctx.alg(r, $fam, span)?
        }};
    }
    use Family::*;
    Ok(match name {
        "identity_1d" | "zeros_1d" => {
            let (v, s) = arg(0);
            let size = ctx.size32(&v, s)?;
            let (i, is) = arg(1);
            let (o, os) = arg(2);
            let (i, o) = (ctx.string(&i, is)?, ctx.string(&o, os)?);
            let r = if name == "identity_1d" {
                LinearLayout::identity_1d(size, i.as_str(), o.as_str())
            } else {
                LinearLayout::zeros_1d(size, i.as_str(), o.as_str())
            };
            linear_value(alg!(r, Linear))
        }
        "strided_1d" => {
            let (v, s) = arg(0);
            let size = ctx.size32(&v, s)?;
            let (v, s) = arg(1);
            let stride = ctx.size32(&v, s)?;
            let (i, is) = arg(2);
            let (o, os) = arg(3);
            let (i, o) = (ctx.string(&i, is)?, ctx.string(&o, os)?);
            linear_value(alg!(
                LinearLayout::strided_1d(size, stride, i.as_str(), o.as_str()),
                Linear
            ))
        }
        "compose" => {
            let (a, b) = (lin!(0), lin!(1));
            linear_value(alg!(a.compose(&b), Linear))
        }
        "invert_and_compose" => {
            let (a, b) = (lin!(0), lin!(1));
            linear_value(alg!(a.invert_and_compose(&b), Linear))
        }
        "invert" => linear_value(alg!(lin!(0).invert(), Linear)),
        "pseudoinvert" => linear_value(alg!(lin!(0).pseudoinvert(), Linear)),
        "transpose_ins" | "transpose_outs" => {
            let a = lin!(0);
            let (v, s) = arg(1);
            let order = ctx.names(&v, s)?;
            let r = if name == "transpose_ins" {
                a.transpose_ins(&order)
            } else {
                a.transpose_outs(&order)
            };
            linear_value(alg!(r, Linear))
        }
        "reshape_ins" | "reshape_outs" => {
            let a = lin!(0);
            let (v, s) = arg(1);
            let dims = ctx.dim_sizes(&v, s)?;
            let r = if name == "reshape_ins" {
                a.reshape_ins(&dims)
            } else {
                a.reshape_outs(&dims)
            };
            linear_value(alg!(r, Linear))
        }
        "flatten_ins" => linear_value(alg!(lin!(0).flatten_ins(), Linear)),
        "flatten_outs" => linear_value(alg!(lin!(0).flatten_outs(), Linear)),
        "sublayout" => {
            let a = lin!(0);
            let (v, s) = arg(1);
            let ins = ctx.names(&v, s)?;
            let (v, s) = arg(2);
            let outs = ctx.names(&v, s)?;
            linear_value(alg!(a.sublayout(&ins, &outs), Linear))
        }
        "divide_left" | "divide_right" => {
            let (a, b) = (lin!(0), lin!(1));
            let r = if name == "divide_left" {
                a.divide_left(&b)
            } else {
                a.divide_right(&b)
            };
            match r {
                Some(l) => linear_value(l),
                None => {
                    return Err(ctx.error(
                        Code::DimMismatch,
                        span,
                        format!(
                            "the second layout does not divide the first from the {} (no c with a = {})",
                            if name == "divide_left" { "left" } else { "right" },
                            if name == "divide_left" { "b * c" } else { "c * b" }
                        ),
                    ));
                }
            }
        }
        "concat_ins" => {
            let (a, b) = (lin!(0), lin!(1));
            linear_value(alg!(a.concat_ins(&b), Linear))
        }
        "concat_outs" => {
            let (a, b) = (lin!(0), lin!(1));
            linear_value(alg!(a.concat_outs(&b), Linear))
        }
        "resize_in" | "resize_out" => {
            let a = lin!(0);
            let (v, s) = arg(1);
            let d = ctx.string(&v, s)?;
            let (v, s) = arg(2);
            let n = ctx.size(&v, s)?;
            let r = if name == "resize_in" {
                a.resize_in_dim(&d, n)
            } else {
                a.resize_out_dim(&d, n)
            };
            linear_value(alg!(r, Linear))
        }
        "quotient" => {
            let a = lin!(0);
            let (v, s) = arg(1);
            let dims = ctx.names(&v, s)?;
            match alg!(a.quotient(&dims), Linear) {
                Some(l) => linear_value(l),
                None => {
                    return Err(ctx.error(
                        Code::DimMismatch,
                        span,
                        "the layout is not the identity on those dims, so they cannot be quotiented out",
                    ));
                }
            }
        }
        "is_injective" => Value::Bool(lin!(0).is_injective()),
        "is_surjective" => Value::Bool(lin!(0).is_surjective()),
        "is_invertible" => Value::Bool(lin!(0).is_invertible()),
        "num_consecutive" => Value::Int(lin!(0).num_consecutive_in_out() as i64),
        "in_size" | "out_size" => {
            let a = lin!(0);
            let dims = if name == "in_size" {
                a.in_dims()
            } else {
                a.out_dims()
            };
            match opt(1) {
                None => Value::Int(dims.iter().map(|(_, s)| *s as i64).product()),
                Some((v, s)) => {
                    let d = ctx.string(&v, s)?;
                    match dims.iter().find(|(n, _)| *n == d) {
                        Some((_, size)) => Value::Int(*size as i64),
                        None => {
                            let names: Vec<&str> = dims.iter().map(|(n, _)| n.as_str()).collect();
                            return Err(ctx.error(
                                Code::DimMismatch,
                                s,
                                format!(
                                    "the layout has no dim `{d}` (it has {})",
                                    names.join(", ")
                                ),
                            ));
                        }
                    }
                }
            }
        }
        "free_variable_masks" => Value::Named(
            lin!(0)
                .free_variable_masks()
                .into_iter()
                .map(|(n, m)| (n.to_string(), Value::Int(m as i64)))
                .collect(),
        ),
        "slice" => {
            let (p, ps) = arg(0);
            let (d, ds) = arg(1);
            let dim = ctx.size(&d, ds)? as usize;
            match p {
                Value::Encoding(e) => Value::Encoding(Box::new(Encoding::Slice(Box::new(
                    layout_algebra::triton::Slice { dim, parent: *e },
                )))),
                Value::Tensor(t) => {
                    if dim >= t.shape.len() {
                        return Err(ctx.error(
                            Code::RankMismatch,
                            ds,
                            format!(
                                "dim {dim} is out of range for a rank-{} tensor",
                                t.shape.len()
                            ),
                        ));
                    }
                    let enc = Encoding::Slice(Box::new(layout_algebra::triton::Slice {
                        dim,
                        parent: t.encoding.clone(),
                    }));
                    let mut shape = t.shape.clone();
                    shape.remove(dim);
                    return ctx.bind_tensor(enc, shape, &t.element_type.clone(), span, ps);
                }
                other => {
                    return Err(ctx.error(
                        Code::TypeMismatch,
                        ps,
                        format!(
                            "slice takes a Triton encoding or tensor layout, but this is {}",
                            other.type_name()
                        ),
                    ));
                }
            }
        }
        "dot_op" => {
            let (p, ps) = arg(0);
            let Value::Encoding(parent) = p else {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    ps,
                    format!(
                        "dot_op's parent must be a Triton encoding, but this is {}",
                        p.type_name()
                    ),
                ));
            };
            let (v, s) = arg(1);
            let op_idx = ctx.size(&v, s)? as u32;
            let k_width = match opt(2) {
                Some((v, s)) => ctx.size(&v, s)? as u32,
                None => 0,
            };
            let d = layout_algebra::triton::DotOperand {
                op_idx,
                k_width,
                parent: *parent,
            };
            if let Err(e) = d.validate() {
                return Err(ctx.algebra_error(&e, Triton, span));
            }
            Value::Encoding(Box::new(Encoding::DotOperand(Box::new(d))))
        }
        "to_linear" => {
            let (x, xs) = arg(0);
            match &x {
                Value::Linear(_) | Value::Tensor(_) => linear_value(ctx.linear(&x, xs)?),
                Value::Encoding(e) => {
                    let Some((v, s)) = opt(1) else {
                        return Err(ctx.error(
                            Code::ArgumentCount,
                            span,
                            "to_linear of an encoding needs the tensor shape: to_linear(#blocked, [64, 64])",
                        ));
                    };
                    let shape = ctx.u32_list(&v, s)?;
                    match ctx.bind_tensor((**e).clone(), shape, "", span, xs)? {
                        Value::Tensor(t) => linear_value(t.layout),
                        other => other,
                    }
                }
                Value::Cute(l) => {
                    let dims = cute_in_dims(ctx, opt(1))?;
                    linear_value(alg!(cute_to_linear(l, &dims), Conversion))
                }
                Value::Swizzled(l) => {
                    let dims = cute_in_dims(ctx, opt(1))?;
                    linear_value(alg!(swizzled_to_linear(l, &dims), Conversion))
                }
                Value::Xla(x) => linear_value(alg!(xla_to_linear(x), Conversion)),
                Value::Swizzle(sw) => {
                    // A swizzle maps integers to integers; over which ones is
                    // the user's to say: `to_linear(cute Sw<3,4,3>, 1024)`.
                    let Some((v, s)) = opt(1) else {
                        return Err(ctx.error(
                            Code::ArgumentCount,
                            span,
                            "to_linear of a swizzle needs its domain, the number of offsets: to_linear(cute Sw<3,4,3>, 1024)",
                        ));
                    };
                    let n = ctx.size(&v, s)?;
                    let l = alg!(Layout::new(IntTuple::Int(n as i64), IntTuple::Int(1)), Cute);
                    let swizzled = SwizzledLayout {
                        swizzle: *sw,
                        offset: 0,
                        layout: l,
                    };
                    let dims = CuteInDims::Flat(DimName::from("offset"));
                    linear_value(alg!(swizzled_to_linear(&swizzled, &dims), Conversion))
                }
                other => {
                    return Err(ctx.error(
                        Code::TypeMismatch,
                        xs,
                        format!(
                            "to_linear takes a layout, but this is {}",
                            other.type_name()
                        ),
                    ));
                }
            }
        }
        "to_cute" => {
            let (x, xs) = arg(0);
            match &x {
                Value::Cute(_) => x,
                _ => {
                    let l = ctx.linear(&x, xs)?;
                    cute_value(alg!(linear_to_cute(&l), Conversion))
                }
            }
        }
        "make_layout" if matches!(b[0], Some((Value::Cute(_), _))) => {
            let mut modes = vec![cu!(0)];
            if b[1].is_some() {
                modes.push(cu!(1));
            }
            cute_value(Layout::concat(modes))
        }
        "owner" => {
            let l = lin!(0);
            let (v, s) = arg(1);
            let outs = l.out_dims();
            let coords: Vec<(String, u64)> = match &v {
                Value::Named(items) => {
                    let mut c = Vec::new();
                    for (n, x) in items {
                        c.push((n.clone(), ctx.size(x, s)?));
                    }
                    c
                }
                other => {
                    let xs = ctx.int_list(other, s)?;
                    if xs.len() != outs.len() {
                        return Err(ctx.error(
                            Code::RankMismatch,
                            s,
                            format!(
                                "the layout has {} out-dims, but {} coordinates are given",
                                outs.len(),
                                xs.len()
                            ),
                        ));
                    }
                    outs.iter()
                        .zip(xs)
                        .map(|((n, _), x)| (n.to_string(), x.max(0) as u64))
                        .collect()
                }
            };
            for (n, x) in &coords {
                match outs.iter().find(|(d, _)| d == n.as_str()) {
                    Some((_, size)) if x < size => {}
                    Some((_, size)) => {
                        return Err(ctx.error(
                            Code::BasisOutOfRange,
                            s,
                            format!("{n} = {x} is outside the out-dim, which has size {size}"),
                        ));
                    }
                    None => {
                        return Err(ctx.error(
                            Code::DimMismatch,
                            s,
                            format!("the layout has no out-dim `{n}`"),
                        ));
                    }
                }
            }
            let inverse = alg!(l.pseudoinvert(), Linear);
            let refs: Vec<(&str, u64)> = coords.iter().map(|(n, x)| (n.as_str(), *x)).collect();
            let ins = alg!(inverse.apply(&refs), Linear);
            Value::Named(
                ins.into_iter()
                    .map(|(n, v)| (n.to_string(), Value::Int(v as i64)))
                    .collect(),
            )
        }
        "make_layout" => {
            let (v, s) = arg(0);
            let shape = ctx.int_tuple(&v, s)?;
            let l = match opt(1) {
                Some((v, s)) => {
                    let stride = ctx.int_tuple(&v, s)?;
                    Layout::new(shape, stride)
                }
                None => Layout::column_major(shape),
            };
            cute_value(alg!(l, Cute))
        }
        "coalesce" => {
            let profile = match opt(1) {
                None => None,
                Some((v, s)) => Some(ctx.int_tuple(&v, s)?),
            };
            let (a, as_) = arg(0);
            let r = cute_or_swizzled(ctx, &a, as_, |l| match &profile {
                None => Ok(l.coalesce()),
                Some(p) => l.coalesce_by(p),
            })?;
            alg!(r, Cute)
        }
        "filter" => cute_value(cu!(0).filter()),
        "composition" => {
            let (a, as_) = arg(0);
            let (b, bs) = arg(1);
            match (&a, &b) {
                (Value::Swizzle(sw), Value::Cute(l)) => Value::Swizzled(Box::new(SwizzledLayout {
                    swizzle: *sw,
                    offset: 0,
                    layout: (**l).clone(),
                })),
                (Value::Swizzled(sl), _) => {
                    let t = ctx.tiler(&b, bs)?;
                    let inner = alg!(sl.layout.compose_tiler(&t), Cute);
                    Value::Swizzled(Box::new(SwizzledLayout {
                        swizzle: sl.swizzle,
                        offset: sl.offset,
                        layout: inner,
                    }))
                }
                (Value::Cute(l), Value::Cute(r)) => {
                    let q = crate::CuteCompositionQuery::new(ctx.db, (**l).clone(), (**r).clone());
                    cute_value(alg!(crate::cute_composition(ctx.db, q).clone(), Cute))
                }
                _ => {
                    let l = ctx.cute_layout(&a, as_)?;
                    let t = ctx.tiler(&b, bs)?;
                    cute_value(alg!(l.compose_tiler(&t), Cute))
                }
            }
        }
        "complement" => {
            // C++ takes the complement of a swizzled layout's inner layout.
            let a = match arg(0) {
                (Value::Swizzled(sl), _) => sl.layout.clone(),
                (v, s) => ctx.cute_layout(&v, s)?,
            };
            match opt(1) {
                None => cute_value(alg!(a.complement_default(), Cute)),
                Some((v, s)) => {
                    let t = ctx.int_tuple(&v, s)?;
                    cute_value(alg!(a.complement(&t), Cute))
                }
            }
        }
        "right_inverse" => cute_value(cu!(0).right_inverse()),
        "left_inverse" => cute_value(alg!(cu!(0).left_inverse(), Cute)),
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => {
            let t = til!(1);
            let (a, as_) = arg(0);
            let r = cute_or_swizzled(ctx, &a, as_, |a| match name {
                "logical_divide" => a.logical_divide(&t),
                "zipped_divide" => a.zipped_divide(&t),
                "tiled_divide" => a.tiled_divide(&t),
                "flat_divide" => a.flat_divide(&t),
                "logical_product" => a.logical_product(&t),
                "zipped_product" => a.zipped_product(&t),
                "tiled_product" => a.tiled_product(&t),
                _ => a.flat_product(&t),
            })?;
            alg!(r, Cute)
        }
        "blocked_product" | "raked_product" => {
            let b = cu!(1);
            let (a, as_) = arg(0);
            let r = cute_or_swizzled(ctx, &a, as_, |a| {
                if name == "blocked_product" {
                    a.blocked_product(&b)
                } else {
                    a.raked_product(&b)
                }
            })?;
            alg!(r, Cute)
        }
        "tile_to_shape" => {
            let (v, s) = arg(1);
            let shape = ctx.int_tuple(&v, s)?;
            let order = match opt(2) {
                None => None,
                Some((v, s)) => Some(ctx.int_tuple(&v, s)?),
            };
            let (a, as_) = arg(0);
            let r = cute_or_swizzled(ctx, &a, as_, |a| a.tile_to_shape(&shape, order.as_ref()))?;
            alg!(r, Cute)
        }
        "crd2idx" => {
            let (v, s) = arg(0);
            let coord = ctx.int_tuple(&v, s)?;
            let (l, ls) = arg(1);
            let idx = match (&l, opt(2)) {
                (Value::Cute(l), None) => l.at(&coord),
                (Value::Swizzled(l), None) => l.at(&coord),
                (_, Some((st, sts))) => {
                    let shape = ctx.int_tuple(&l, ls)?;
                    let stride = ctx.int_tuple(&st, sts)?;
                    cute::crd2idx(&coord, &shape, &stride)
                }
                (other, None) => {
                    let shape = ctx.int_tuple(other, ls)?;
                    cute::crd2idx(&coord, &shape, &cute::compact_col_major(&shape))
                }
            };
            Value::Int(alg!(idx, Cute))
        }
        "idx2crd" => {
            let (v, s) = arg(0);
            let idx = ctx.int(&v, s)?;
            let (v, s) = arg(1);
            let shape = ctx.int_tuple(&v, s)?;
            match opt(2) {
                None => Value::from_int_tuple(&cute::idx2crd(idx, &shape)),
                Some((v, s)) => {
                    let stride = ctx.int_tuple(&v, s)?;
                    Value::from_int_tuple(&alg!(cute::idx2crd_strided(idx, &shape, &stride), Cute))
                }
            }
        }
        "size" | "cosize" | "rank" | "depth" | "shape" | "stride" => {
            let (x, xs) = arg(0);
            measure(ctx, name, &x, xs)?
        }
        "mode" => {
            let a = cu!(0);
            let (v, s) = arg(1);
            let i = ctx.size(&v, s)? as usize;
            if i >= a.rank() {
                return Err(ctx.error(
                    Code::CutePrecondition,
                    s,
                    format!("mode {i} of a rank-{} layout", a.rank()),
                ));
            }
            cute_value(a.mode(i))
        }
        "table" => {
            let (x, xs) = arg(0);
            const MAX_TABLE: i64 = 1 << 16;
            let size = match &x {
                Value::Cute(l) => l.size(),
                Value::Swizzled(l) => l.layout.size(),
                Value::Xla(x) => x.logical_elements(),
                _ => 0,
            };
            if size > MAX_TABLE {
                return Err(ctx.error(
                    Code::TooLarge,
                    xs,
                    format!("table() lists at most 65536 values, this layout has {size}"),
                ));
            }
            let t = match &x {
                Value::Cute(l) => l.table(),
                Value::Swizzled(l) => l.table(),
                Value::Xla(x) => x.offsets(),
                Value::Swizzle(_) => {
                    return Err(ctx.error(
                        Code::TypeMismatch,
                        xs,
                        "a swizzle alone has no size; compose it with a layout",
                    ));
                }
                other => {
                    let l = ctx.linear(other, xs)?;
                    if l.total_in_bits() > 16 {
                        return Err(ctx.error(
                            Code::TooLarge,
                            xs,
                            "table() lists at most 65536 values",
                        ));
                    }
                    // Outputs as row-major indices (last out-dim fastest),
                    // the way the seeds print tables.
                    let outs = l.out_dims();
                    (0..l.total_in_size())
                        .map(|i| {
                            l.unpack(l.apply_flat(i))
                                .iter()
                                .zip(&outs)
                                .fold(0i64, |acc, (&v, (_, size))| acc * *size as i64 + v as i64)
                        })
                        .collect()
                }
            };
            Value::List(t.into_iter().map(Value::Int).collect())
        }
        "offset" | "first_tile_linear_index" => {
            let x = xl!(0);
            let (v, s) = arg(1);
            let index = ctx.int_list(&v, s)?;
            let r = if name == "offset" {
                x.offset(&index)
            } else {
                x.first_tile_linear_index(&index)
            };
            Value::Int(ctx.alg(r, Xla, s)?)
        }
        "padded_elements" => Value::Int(xl!(0).padded_elements()),
        "padded_bytes" => Value::Int(xl!(0).padded_bytes()),
        "logical_elements" => Value::Int(xl!(0).logical_elements()),
        "first_tile_array_size" => Value::Int(xl!(0).first_tile_array_size()),
        "tpu" => {
            let (v, s) = arg(0);
            let ty = ctx.string(&v, s)?;
            let (v, s) = arg(1);
            let dims = ctx.int_list(&v, s)?;
            Value::Xla(Box::new(alg!(XlaShape::tpu(&ty, dims), Xla)))
        }
        "bank_conflicts" | "wavefronts" | "vectorisation" => {
            crate::access::bank(ctx, name, &b, span)?
        }
        "convert" => convert_layout(ctx, arg(0), arg(1), span)?,
        "kind" | "scratch_bytes" | "rounds" | "read_conflicts" | "write_conflicts"
        | "scratch_layout" => {
            let (v, s) = arg(0);
            let Value::Conversion(c) = v else {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    s,
                    format!(
                        "{name} takes a conversion (convert(src, dst)), but this is {}",
                        v.type_name()
                    ),
                ));
            };
            match name {
                "kind" => Value::Str(c.kind.name().to_string()),
                "scratch_bytes" => Value::Int(c.scratch_bytes as i64),
                "rounds" => Value::Int(c.rounds as i64),
                "read_conflicts" => Value::Int(c.read_conflicts as i64),
                "write_conflicts" => Value::Int(c.write_conflicts as i64),
                _ => match &c.swizzle {
                    Some(l) => Value::Linear(Box::new(l.clone())),
                    None => {
                        return Err(ctx.error(
                            Code::TypeMismatch,
                            s,
                            format!(
                                "this conversion is {}: it has no scratch buffer",
                                c.kind.name()
                            ),
                        ));
                    }
                },
            }
        }
        "coalesced_blocked" => {
            let (v, s) = arg(0);
            let shape = ctx.u32_list(&v, s)?;
            let (v, s) = arg(1);
            let bits = ctx.size(&v, s)? as u32;
            let (v, s) = arg(2);
            let contiguity = ctx.u32_list(&v, s)?;
            let (v, s) = arg(3);
            let divisibility = ctx.u32_list(&v, s)?;
            let facts = ctx.target();
            let num_warps = match opt(4) {
                Some((v, s)) => ctx.size(&v, s)? as u32,
                None => facts.num_warps.unwrap_or(4),
            };
            let threads_per_warp = match opt(5) {
                Some((v, s)) => ctx.size(&v, s)? as u32,
                None => facts.threads_per_warp(),
            };
            let rank = shape.len();
            let req = CoalesceRequest {
                shape,
                element_bits: bits,
                pointer: AxisInfo {
                    contiguity,
                    divisibility,
                },
                same_order: Vec::new(),
                num_warps,
                threads_per_warp,
                cga: CgaLayout::single(rank),
            };
            let blocked = alg!(coalesced_layout(&req), Triton);
            Value::Encoding(Box::new(Encoding::Blocked(blocked)))
        }
        other => unreachable!("builtin {other} has a signature but no body"),
    })
}

fn cute_in_dims(ctx: &mut Ctx, arg: Option<(Value, Span)>) -> R<CuteInDims> {
    Ok(match arg {
        None => CuteInDims::Flat(DimName::from("index")),
        Some((Value::Str(s), _)) => CuteInDims::Flat(DimName::from(s)),
        Some((v, s)) => CuteInDims::PerMode(ctx.names(&v, s)?),
    })
}

fn measure(ctx: &mut Ctx, name: &str, x: &Value, span: Span) -> R<Value> {
    let bad = |ctx: &mut Ctx| {
        Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!("{name} is not defined for {}", x.type_name()),
        ))
    };
    Ok(match (name, x) {
        ("size", Value::Cute(l)) => Value::Int(l.size()),
        ("size", Value::Swizzled(l)) => Value::Int(l.layout.size()),
        ("size", Value::Xla(x)) => Value::Int(x.logical_elements()),
        ("size", Value::Tensor(t)) => Value::Int(t.shape.iter().map(|&d| d as i64).product()),
        ("size", Value::Linear(l)) => Value::Int(l.total_in_size() as i64),
        ("size", v) if v.as_int_tuple().is_some() => {
            Value::Int(v.as_int_tuple().expect("checked").product())
        }
        ("cosize", Value::Cute(l)) => Value::Int(l.cosize()),
        ("cosize", Value::Swizzled(l)) => Value::Int(l.layout.cosize()),
        ("rank", Value::Cute(l)) => Value::Int(l.rank() as i64),
        ("rank", Value::Tensor(t)) => Value::Int(t.shape.len() as i64),
        ("rank", v) if v.as_int_tuple().is_some() => {
            Value::Int(v.as_int_tuple().expect("checked").rank() as i64)
        }
        ("depth", Value::Cute(l)) => Value::Int(l.depth() as i64),
        ("depth", v) if v.as_int_tuple().is_some() => {
            Value::Int(v.as_int_tuple().expect("checked").depth() as i64)
        }
        ("shape", Value::Cute(l)) => Value::from_int_tuple(l.shape()),
        ("shape", Value::Tensor(t)) => {
            Value::Tuple(t.shape.iter().map(|&d| Value::Int(d as i64)).collect())
        }
        ("shape", Value::Xla(x)) => Value::Tuple(x.dims.iter().map(|&d| Value::Int(d)).collect()),
        ("stride", Value::Cute(l)) => Value::from_int_tuple(l.stride()),
        _ => return bad(ctx),
    })
}

/// `convert(src, dst)` and `convert NAME = src -> dst`: the analysis of
/// Triton's `convert_layout` from one tensor type to another.
pub(crate) fn convert_layout(
    ctx: &mut Ctx,
    (sv, ss): (Value, Span),
    (dv, ds): (Value, Span),
    span: Span,
) -> R<Value> {
    let src = ctx.tensor(&sv, ss, "source")?;
    let dst = ctx.tensor(&dv, ds, "destination")?;
    for (t, s) in [(&src, ss), (&dst, ds)] {
        if t.encoding.is_shared() {
            return Err(ctx.error(
                Code::TypeMismatch,
                s,
                "convert_layout moves a tensor between distributed layouts; this one is in shared memory",
            ));
        }
    }
    if src.shape != dst.shape {
        return Err(ctx.error(
            Code::DimMismatch,
            span,
            format!(
                "a conversion keeps the tensor: {} and {} differ in shape",
                shape_text(&src.shape),
                shape_text(&dst.shape)
            ),
        ));
    }
    if src.element_type != dst.element_type {
        return Err(ctx.error(
            Code::TypeMismatch,
            ds,
            format!(
                "a conversion keeps the element type, but converts {} to {}",
                src.element_type, dst.element_type
            ),
        ));
    }
    // Triton stores sub-byte and boolean elements as bytes.
    let bits = src.element_bits.unwrap_or(8).max(8);
    warn_if_default_target(ctx, span);
    let facts = ctx.target();
    let (target, instructions) = (facts.bank_target(), facts.shared_instructions());
    let c = ctx.alg(
        analyse_conversion(&src.layout, &dst.layout, bits, &target, instructions),
        Family::Bank,
        span,
    )?;
    let shared = c.shared.as_ref();
    Ok(Value::Conversion(Box::new(ConversionReport {
        src,
        dst,
        element_bits: bits,
        kind: c.kind,
        mixed_transpositions: c.mixed_transpositions,
        swizzle: shared.map(|s| s.layout.clone()),
        rounds: shared.map_or(1, |s| s.rounds),
        scratch_bytes: shared.map_or(0, |s| s.scratch_bytes),
        read_conflicts: shared.map_or(0, |s| s.read_conflicts),
        write_conflicts: shared.map_or(0, |s| s.write_conflicts),
        store: shared.map(|s| s.store),
        load: shared.map(|s| s.load),
    })))
}

/// A warning on a value that depends on the machine when the file names
/// none: which default was used, and how to name one.
pub(crate) fn warn_if_default_target(ctx: &mut Ctx, span: Span) {
    let facts = ctx.target();
    if facts.preset.is_none() && facts.banks.is_none() && facts.unknown_machine.is_none() {
        ctx.report(
            Diagnostic::warning(
                Code::DefaultTarget,
                span,
                "no target is given, so this assumes sm90: 32 banks of 4 bytes, ldmatrix and stmatrix",
            )
            .with_note(
                "name the machine: `target = sm80` (or sm90, sm100, gfx942, gfx950), or paste the module line with its `ttg.target`",
            ),
        );
    }
}

pub(crate) fn shape_text(shape: &[u32]) -> String {
    shape
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// `blocked(sizePerThread = [...], ...)`: the keys of the MLIR attribute.
fn encoding_call(ctx: &mut Ctx, kind: &str, kind_span: Span, args: &[Arg], span: Span) -> R<Value> {
    let mut params = Vec::with_capacity(args.len());
    for a in args {
        let Some(n) = &a.name else {
            return Err(ctx.error(
                Code::ArgumentCount,
                a.value.span,
                format!(
                    "{kind}(...) takes Triton's keys by name, e.g. {kind}(order = [1, 0], ...)"
                ),
            ));
        };
        params.push(Param {
            key: n.name.clone(),
            key_span: n.span,
            value: ctx.expr(&a.value)?,
            span: a.value.span,
        });
    }
    let mut diags = Vec::new();
    let enc = encoding::build(kind, kind_span, span, &params, &mut diags);
    ctx.diags.extend(diags);
    enc.map(|e| Value::Encoding(Box::new(e))).ok_or(Reported)
}

/// `f(args)` where `f` is a value: a layout applied to coordinates.
pub(crate) fn apply(ctx: &mut Ctx, f: &Value, f_span: Span, args: &[Arg], span: Span) -> R<Value> {
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        values.push((
            a.name.as_ref().map(|n| n.name.clone()),
            ctx.expr(&a.value)?,
            a.value.span,
        ));
    }
    let all_named = !values.is_empty() && values.iter().all(|(n, _, _)| n.is_some());
    let any_named = values.iter().any(|(n, _, _)| n.is_some());
    if any_named && !all_named {
        return Err(ctx.error(
            Code::TypeMismatch,
            span,
            "give all coordinates by name or none",
        ));
    }
    match f {
        Value::Linear(_) | Value::Tensor(_) => {
            let l = ctx.linear(f, f_span)?;
            let ins = l.in_dims();
            let mut inputs: Vec<(String, u64)> = Vec::new();
            if all_named {
                for (n, v, s) in &values {
                    let n = n.clone().expect("all named");
                    if !ins.iter().any(|(d, _)| *d == n) {
                        let names: Vec<&str> = ins.iter().map(|(d, _)| d.as_str()).collect();
                        let mut d = Diagnostic::error(
                            Code::DimMismatch,
                            *s,
                            format!(
                                "the layout has no in-dim `{n}` (it has {})",
                                names.join(", ")
                            ),
                        );
                        if let Some(sug) = did_you_mean(&n, names.iter().copied()) {
                            d = d.with_note(format!("did you mean `{sug}`?"));
                        }
                        return Err(ctx.report(d));
                    }
                    let x = ctx.size(v, *s)?;
                    inputs.push((n, x));
                }
            } else {
                if values.len() > ins.len() {
                    return Err(ctx.error(
                        Code::ArgumentCount,
                        span,
                        format!(
                            "the layout has {} in-dims, but {} coordinates are given",
                            ins.len(),
                            values.len()
                        ),
                    ));
                }
                for ((_, v, s), (d, _)) in values.iter().zip(&ins) {
                    let x = ctx.size(v, *s)?;
                    inputs.push((d.to_string(), x));
                }
            }
            // Coordinates not given are 0 (`blk(register = 1, lane = 3)`
            // means warp 0 of block 0).
            for (d, _) in &ins {
                if !inputs.iter().any(|(n, _)| n == d.as_str()) {
                    inputs.push((d.to_string(), 0));
                }
            }
            for (n, x) in &inputs {
                let size = l.in_dim_size(n);
                if *x >= size {
                    let s = values
                        .iter()
                        .find(|(k, _, _)| k.as_deref() == Some(n.as_str()))
                        .map_or(span, |v| v.2);
                    return Err(ctx.error(
                        Code::BasisOutOfRange,
                        s,
                        format!("{n} = {x} is outside the in-dim, which has size {size}"),
                    ));
                }
            }
            let refs: Vec<(&str, u64)> = inputs.iter().map(|(n, x)| (n.as_str(), *x)).collect();
            let out = ctx.alg(l.apply(&refs), Family::Linear, span)?;
            Ok(if all_named {
                Value::Named(
                    out.into_iter()
                        .map(|(n, v)| (n.to_string(), Value::Int(v as i64)))
                        .collect(),
                )
            } else if out.len() == 1 {
                Value::Int(out[0].1 as i64)
            } else {
                Value::Tuple(out.into_iter().map(|(_, v)| Value::Int(v as i64)).collect())
            })
        }
        Value::Cute(_) | Value::Swizzled(_) | Value::Swizzle(_) | Value::Xla(_) => {
            if any_named {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    span,
                    format!("{} takes positional coordinates", f.type_name()),
                ));
            }
            let coord = if values.len() == 1 {
                values[0].1.clone()
            } else {
                Value::Tuple(values.iter().map(|(_, v, _)| v.clone()).collect())
            };
            let coord_span = values
                .first()
                .map_or(span, |v| v.2)
                .to(values.last().map_or(span, |v| v.2));
            match f {
                Value::Swizzle(sw) => {
                    let x = ctx.int(&coord, coord_span)?;
                    Ok(Value::Int(sw.apply(x)))
                }
                Value::Xla(x) => {
                    let index = match &coord {
                        Value::Int(i) => vec![*i],
                        other => ctx.int_list(other, coord_span)?,
                    };
                    let r = x.offset(&index);
                    Ok(Value::Int(ctx.alg(r, Family::Xla, coord_span)?))
                }
                Value::Cute(l) => {
                    let c = ctx.int_tuple(&coord, coord_span)?;
                    if let IntTuple::Int(i) = c {
                        if i < 0 || i >= l.size() {
                            return Err(ctx.error(
                                Code::CutePrecondition,
                                coord_span,
                                format!("index {i} is outside the layout's size {}", l.size()),
                            ));
                        }
                        return Ok(Value::Int(l.call(i)));
                    }
                    Ok(Value::Int(ctx.alg(l.at(&c), Family::Cute, coord_span)?))
                }
                Value::Swizzled(l) => {
                    let c = ctx.int_tuple(&coord, coord_span)?;
                    let inner = match c {
                        IntTuple::Int(i) => {
                            if i < 0 || i >= l.layout.size() {
                                return Err(ctx.error(
                                    Code::CutePrecondition,
                                    coord_span,
                                    format!(
                                        "index {i} is outside the layout's size {}",
                                        l.layout.size()
                                    ),
                                ));
                            }
                            l.layout.call(i)
                        }
                        c => ctx.alg(l.layout.at(&c), Family::Cute, coord_span)?,
                    };
                    Ok(Value::Int(l.swizzle.apply(l.offset + inner)))
                }
                _ => unreachable!("matched above"),
            }
        }
        other => Err(ctx.error(
            Code::TypeMismatch,
            f_span,
            format!("{} cannot be applied to coordinates", other.type_name()),
        )),
    }
}
