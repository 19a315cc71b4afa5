//! Triton's encodings as calls (for users who do not paste MLIR), the
//! conversions between the notations, and Triton's coalesce pass.

use layout_algebra::DimName;
use layout_algebra::cute::{IntTuple, Layout, SwizzledLayout};
use layout_algebra::interop::{
    CuteInDims, cute_to_linear, linear_to_cute, swizzled_to_linear, xla_to_linear,
};
use layout_algebra::triton::coalesce::{AxisInfo, CoalesceRequest, coalesced_layout};
use layout_algebra::triton::{CgaLayout, DotOperand, Encoding, Slice};
use layout_syntax::Span;

use super::{Args, Builtin, Def, Group, Type::*, opt, req};
use crate::context::{Cx, R};
use crate::diagnostic::{Code, Domain};
use crate::value::Value;

/// A Triton encoding as a call: its keys come from the encodings' table.
const fn encoding(name: &'static str, doc: &'static str) -> Builtin {
    Builtin {
        name,
        doc,
        result: Encoding,
        def: Def::Encoding(name),
    }
}

pub(super) const GROUP: Group = Group {
    title: "Triton encodings and conversions between notations",
    builtins: &[
        encoding("blocked", "#ttg.blocked as a call"),
        encoding("swizzled_shared", "#ttg.swizzled_shared as a call"),
        encoding("nvmma_shared", "#ttg.nvmma_shared as a call"),
        encoding("nvidia_mma", "#ttg.nvidia_mma as a call"),
        encoding("amd_mfma", "#ttg.amd_mfma as a call"),
        encoding("amd_wmma", "#ttg.amd_wmma as a call"),
        Builtin {
            name: "slice",
            doc: "#ttg.slice: the parent without one dim (of an encoding or a tensor layout)",
            result: EncodingOrTensor,
            def: Def::Fn(
                &[
                    req(
                        "parent",
                        EncodingOrTensor,
                        "the encoding sliced, or a tensor type (then the tensor loses the dim too)",
                    ),
                    req("dim", Int, "the dim removed"),
                ],
                slice,
            ),
        },
        Builtin {
            name: "dot_op",
            doc: "#ttg.dot_op: operand opIdx of a dot with the parent's result layout",
            result: Encoding,
            def: Def::Fn(
                &[
                    req("parent", Encoding, "the layout of the dot's result"),
                    req("opIdx", Int, "which operand: 0 for A, 1 for B"),
                    opt(
                        "kWidth",
                        Int,
                        "consecutive K elements each thread holds (0 when absent)",
                    ),
                ],
                dot_op,
            ),
        },
        Builtin {
            name: "to_linear",
            doc: "the linear layout of a tensor, an encoding over a shape, a CuTe layout, a swizzle over a domain or an XLA shape",
            result: Linear,
            def: Def::Fn(
                &[
                    req(
                        "x",
                        Layout,
                        "a tensor type, an encoding, a CuTe layout (plain or swizzled), a swizzle or an XLA shape",
                    ),
                    opt(
                        "arg",
                        Any,
                        "an encoding's tensor shape ([64, 64]); a CuTe layout's in-dim name or one name per mode; a swizzle's domain size",
                    ),
                ],
                to_linear,
            ),
        },
        Builtin {
            name: "to_cute",
            doc: "a linear layout whose bases are single bits, as a CuTe layout",
            result: Cute,
            def: Def::Fn(
                &[req(
                    "x",
                    Layout,
                    "a linear layout or tensor type (a CuTe layout stays as it is)",
                )],
                to_cute,
            ),
        },
        Builtin {
            name: "coalesced_blocked",
            doc: "Triton's coalesce pass: the blocked layout for a load or store",
            result: Encoding,
            def: Def::Fn(
                &[
                    req("shape", IntList, "the tensor shape"),
                    req("bits", Int, "bits per element"),
                    req(
                        "contiguity",
                        IntList,
                        "per dim, how many consecutive pointers are contiguous (Triton's axis info)",
                    ),
                    req(
                        "divisibility",
                        IntList,
                        "per dim, the largest power of two the first pointer's offset is divisible by, in bytes",
                    ),
                    opt("num_warps", Int, "warps per CTA (the module's, else 4)"),
                    opt(
                        "threads_per_warp",
                        Int,
                        "threads per warp (the target's, else 32)",
                    ),
                ],
                coalesced_blocked,
            ),
        },
    ],
};

fn slice(cx: &mut Cx, a: &Args) -> R<Value> {
    let (p, ps) = a.get(0);
    let (_, ds) = a.get(1);
    let dim = a.size(cx, 1)? as usize;
    match p {
        Value::Tensor(t) => {
            if dim >= t.shape.len() {
                return Err(cx.error(
                    Code::RankMismatch,
                    ds,
                    format!(
                        "dim {dim} is out of range for a rank-{} tensor",
                        t.shape.len()
                    ),
                ));
            }
            let enc = Encoding::Slice(Box::new(Slice {
                dim,
                parent: t.encoding.clone(),
            }));
            let mut shape = t.shape.clone();
            shape.remove(dim);
            cx.bind_tensor(enc, shape, &t.element_type.clone(), a.span, ps)
        }
        Value::Encoding(e) => Ok(Value::Encoding(Box::new(Encoding::Slice(Box::new(
            Slice {
                dim,
                parent: (**e).clone(),
            },
        ))))),
        _ => unreachable!("the parameter's type admits encodings and tensors only"),
    }
}

fn dot_op(cx: &mut Cx, a: &Args) -> R<Value> {
    let Value::Encoding(parent) = a.get(0).0 else {
        unreachable!("the parameter's type admits encodings only")
    };
    let op_idx = a.size(cx, 1)? as u32;
    let k_width = match a.opt(2) {
        Some((v, s)) => cx.size(v, s)? as u32,
        None => 0,
    };
    let d = DotOperand {
        op_idx,
        k_width,
        parent: (**parent).clone(),
    };
    if let Err(e) = d.validate() {
        return Err(cx.algebra_error(&e, Domain::Triton, a.span));
    }
    Ok(Value::Encoding(Box::new(Encoding::DotOperand(Box::new(d)))))
}

fn cute_in_dims(cx: &mut Cx, arg: Option<(&Value, Span)>) -> R<CuteInDims> {
    Ok(match arg {
        None => CuteInDims::Flat(DimName::from("index")),
        Some((Value::Str(s), _)) => CuteInDims::Flat(DimName::from(s.as_str())),
        Some((v, s)) => CuteInDims::PerMode(cx.names(v, s)?),
    })
}

fn to_linear(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, xs) = a.get(0);
    let span = a.span;
    let lin = |cx: &mut Cx, r| {
        cx.alg(r, Domain::Conversion, span)
            .map(|l| Value::Linear(Box::new(l)))
    };
    match x {
        Value::Linear(_) | Value::Tensor(_) => Ok(Value::Linear(Box::new(cx.linear(x, xs)?))),
        Value::Encoding(e) => {
            let Some((v, s)) = a.opt(1) else {
                return Err(cx.error(
                    Code::ArgumentCount,
                    span,
                    "to_linear of an encoding needs the tensor shape: to_linear(#blocked, [64, 64])",
                ));
            };
            let shape = cx.u32_list(v, s)?;
            match cx.bind_tensor((**e).clone(), shape, "", span, xs)? {
                Value::Tensor(t) => Ok(Value::Linear(Box::new(t.layout))),
                other => Ok(other),
            }
        }
        Value::Cute(l) => {
            let dims = cute_in_dims(cx, a.opt(1))?;
            lin(cx, cute_to_linear(l, &dims))
        }
        Value::Swizzled(l) => {
            let dims = cute_in_dims(cx, a.opt(1))?;
            lin(cx, swizzled_to_linear(l, &dims))
        }
        Value::Xla(x) => lin(cx, xla_to_linear(x)),
        Value::Swizzle(sw) => {
            // A swizzle maps integers to integers; over which ones is the
            // user's to say: `to_linear(cute Sw<3,4,3>, 1024)`.
            let Some((v, s)) = a.opt(1) else {
                return Err(cx.error(
                    Code::ArgumentCount,
                    span,
                    "to_linear of a swizzle needs its domain, the number of offsets: to_linear(cute Sw<3,4,3>, 1024)",
                ));
            };
            let n = cx.size(v, s)?;
            let l = cx.alg(
                Layout::new(IntTuple::Int(n as i64), IntTuple::Int(1)),
                Domain::Cute,
                span,
            )?;
            let swizzled = SwizzledLayout {
                swizzle: *sw,
                offset: 0,
                layout: l,
            };
            let dims = CuteInDims::Flat(DimName::from("offset"));
            lin(cx, swizzled_to_linear(&swizzled, &dims))
        }
        other => Err(cx.error(
            Code::TypeMismatch,
            xs,
            format!(
                "to_linear takes a layout, but this is {}",
                other.type_name()
            ),
        )),
    }
}

fn to_cute(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, xs) = a.get(0);
    if let Value::Cute(_) = x {
        return Ok(x.clone());
    }
    let l = cx.linear(x, xs)?;
    cx.alg(linear_to_cute(&l), Domain::Conversion, a.span)
        .map(|l| Value::Cute(Box::new(l)))
}

fn coalesced_blocked(cx: &mut Cx, a: &Args) -> R<Value> {
    let shape = a.u32_list(cx, 0)?;
    let bits = a.size(cx, 1)? as u32;
    let contiguity = a.u32_list(cx, 2)?;
    let divisibility = a.u32_list(cx, 3)?;
    let facts = cx.target();
    let num_warps = match a.opt(4) {
        Some((v, s)) => cx.size(v, s)? as u32,
        None => facts.num_warps.unwrap_or(4),
    };
    let threads_per_warp = match a.opt(5) {
        Some((v, s)) => cx.size(v, s)? as u32,
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
    let blocked = cx.alg(coalesced_layout(&req), Domain::Triton, a.span)?;
    Ok(Value::Encoding(Box::new(Encoding::Blocked(blocked))))
}
