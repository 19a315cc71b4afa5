//! Triton's LinearLayout operations (LinearLayout.h), with Triton's
//! semantics and snake_case names.

use layout_algebra::{DimName, LinearLayout};

use super::{Args, Builtin, Def, Group, Type::*, opt, req};
use crate::context::{Cx, R};
use crate::diagnostic::{Code, Domain};
use crate::value::Value;

const A: super::Param = req("a", Linear, "a linear layout (or a tensor type)");

pub(super) const GROUP: Group = Group {
    title: "Linear layouts",
    builtins: &[
        Builtin {
            name: "identity_1d",
            doc: "Triton's identity1D: in -> out, x -> x",
            result: Linear,
            def: Def::Fn(
                &[
                    req("size", Int, "the size of both dims, a power of two"),
                    req("in", DimName, "the in-dim's name"),
                    req("out", DimName, "the out-dim's name"),
                ],
                identity_1d,
            ),
        },
        Builtin {
            name: "zeros_1d",
            doc: "Triton's zeros1D: every input to 0 (out size 1)",
            result: Linear,
            def: Def::Fn(
                &[
                    req("size", Int, "the in-dim's size, a power of two"),
                    req("in", DimName, "the in-dim's name"),
                    req("out", DimName, "the out-dim's name"),
                ],
                zeros_1d,
            ),
        },
        Builtin {
            name: "strided_1d",
            doc: "Triton's strided1D: x -> stride * x",
            result: Linear,
            def: Def::Fn(
                &[
                    req("size", Int, "the in-dim's size, a power of two"),
                    req("stride", Int, "the step between outputs, a power of two"),
                    req("in", DimName, "the in-dim's name"),
                    req("out", DimName, "the out-dim's name"),
                ],
                strided_1d,
            ),
        },
        Builtin {
            name: "compose",
            doc: "Triton's a.compose(b): b after a",
            result: Linear,
            def: Def::Fn(
                &[
                    req("a", Linear, "the layout applied first"),
                    req(
                        "b",
                        Linear,
                        "the layout applied to a's outputs (its in-dims are a's out-dims)",
                    ),
                ],
                compose,
            ),
        },
        Builtin {
            name: "invert_and_compose",
            doc: "Triton's a.invertAndCompose(b): a⁻¹ after b",
            result: Linear,
            def: Def::Fn(
                &[
                    req("a", Linear, "the layout inverted (applied last)"),
                    req("b", Linear, "the layout applied first, onto a's out-dims"),
                ],
                invert_and_compose,
            ),
        },
        Builtin {
            name: "invert",
            doc: "the inverse of an invertible layout",
            result: Linear,
            def: Def::Fn(&[req("a", Linear, "an invertible layout")], invert),
        },
        Builtin {
            name: "pseudoinvert",
            doc: "the smallest right inverse of a surjective layout",
            result: Linear,
            def: Def::Fn(&[req("a", Linear, "a surjective layout")], pseudoinvert),
        },
        Builtin {
            name: "transpose_ins",
            doc: "reorder the in-dims",
            result: Linear,
            def: Def::Fn(
                &[A, req("order", DimNames, "every in-dim, in the new order")],
                transpose_ins,
            ),
        },
        Builtin {
            name: "transpose_outs",
            doc: "reorder the out-dims",
            result: Linear,
            def: Def::Fn(
                &[A, req("order", DimNames, "every out-dim, in the new order")],
                transpose_outs,
            ),
        },
        Builtin {
            name: "reshape_ins",
            doc: "reshape the in-dims to [(name, size), ...]",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req(
                        "dims",
                        DimSizes,
                        "the new in-dims, with the same total size",
                    ),
                ],
                reshape_ins,
            ),
        },
        Builtin {
            name: "reshape_outs",
            doc: "reshape the out-dims to [(name, size), ...]",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req(
                        "dims",
                        DimSizes,
                        "the new out-dims, with the same total size",
                    ),
                ],
                reshape_outs,
            ),
        },
        Builtin {
            name: "flatten_ins",
            doc: "merge the in-dims into one",
            result: Linear,
            def: Def::Fn(&[A], flatten_ins),
        },
        Builtin {
            name: "flatten_outs",
            doc: "merge the out-dims into one",
            result: Linear,
            def: Def::Fn(&[A], flatten_outs),
        },
        Builtin {
            name: "sublayout",
            doc: "restrict to some in-dims and out-dims",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req("ins", DimNames, "the in-dims kept"),
                    req("outs", DimNames, "the out-dims kept"),
                ],
                sublayout,
            ),
        },
        Builtin {
            name: "divide_left",
            doc: "Triton's divideLeft: c with a = b * c",
            result: Linear,
            def: Def::Fn(
                &[
                    req("a", Linear, "the layout divided"),
                    req("b", Linear, "the divisor: a's left factor"),
                ],
                divide_left,
            ),
        },
        Builtin {
            name: "divide_right",
            doc: "Triton's divideRight: c with a = c * b",
            result: Linear,
            def: Def::Fn(
                &[
                    req("a", Linear, "the layout divided"),
                    req("b", Linear, "the divisor: a's right factor"),
                ],
                divide_right,
            ),
        },
        Builtin {
            name: "concat_ins",
            doc: "join the in-dims of two layouts with the same outs",
            result: Linear,
            def: Def::Fn(
                &[A, req("b", Linear, "a layout with a's out-dims")],
                concat_ins,
            ),
        },
        Builtin {
            name: "concat_outs",
            doc: "join the out-dims of two layouts with the same ins",
            result: Linear,
            def: Def::Fn(
                &[A, req("b", Linear, "a layout with a's in-dims")],
                concat_outs,
            ),
        },
        Builtin {
            name: "resize_in",
            doc: "grow an in-dim with zero bases",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req("dim", DimName, "the in-dim"),
                    req("size", Int, "its new size, a larger power of two"),
                ],
                resize_in,
            ),
        },
        Builtin {
            name: "resize_out",
            doc: "grow an out-dim",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req("dim", DimName, "the out-dim"),
                    req("size", Int, "its new size, a larger power of two"),
                ],
                resize_out,
            ),
        },
        Builtin {
            name: "quotient",
            doc: "Triton's quotient: the layout without dims on which it is the identity",
            result: Linear,
            def: Def::Fn(
                &[
                    A,
                    req("dims", DimNames, "dims that are both in- and out-dims of a"),
                ],
                quotient,
            ),
        },
        Builtin {
            name: "is_injective",
            doc: "whether distinct inputs map to distinct outputs",
            result: Bool,
            def: Def::Fn(&[A], is_injective),
        },
        Builtin {
            name: "is_surjective",
            doc: "whether every output is reached",
            result: Bool,
            def: Def::Fn(&[A], is_surjective),
        },
        Builtin {
            name: "is_invertible",
            doc: "whether the layout is a bijection",
            result: Bool,
            def: Def::Fn(&[A], is_invertible),
        },
        Builtin {
            name: "num_consecutive",
            doc: "Triton's getNumConsecutiveInOut: elements per thread that are contiguous",
            result: Int,
            def: Def::Fn(&[A], num_consecutive),
        },
        Builtin {
            name: "in_size",
            doc: "the size of an in-dim, or of all in-dims together",
            result: Int,
            def: Def::Fn(
                &[
                    A,
                    opt("dim", DimName, "the in-dim; all of them when absent"),
                ],
                in_size,
            ),
        },
        Builtin {
            name: "out_size",
            doc: "the size of an out-dim, or of all out-dims together",
            result: Int,
            def: Def::Fn(
                &[
                    A,
                    opt("dim", DimName, "the out-dim; all of them when absent"),
                ],
                out_size,
            ),
        },
        Builtin {
            name: "free_variable_masks",
            doc: "per in-dim, the bits that do not change the output",
            result: Coords,
            def: Def::Fn(&[A], free_variable_masks),
        },
        Builtin {
            name: "owner",
            doc: "the smallest input (register, lane, ...) that a layout maps to an element",
            result: Coords,
            def: Def::Fn(
                &[
                    req("layout", Linear, "a surjective layout (or a tensor type)"),
                    req(
                        "element",
                        Coords,
                        "the element: named coordinates (dim0 = 3, dim1 = 5) or a list in out-dim order",
                    ),
                ],
                owner,
            ),
        },
    ],
};

fn linear(cx: &mut Cx, r: layout_algebra::Result<LinearLayout>, a: &Args) -> R<Value> {
    cx.alg(r, Domain::Linear, a.span)
        .map(|l| Value::Linear(Box::new(l)))
}

fn dim_names(cx: &mut Cx, a: &Args) -> R<(String, String)> {
    Ok((a.string(cx, 1)?, a.string(cx, 2)?))
}

fn identity_1d(cx: &mut Cx, a: &Args) -> R<Value> {
    let size = a.size32(cx, 0)?;
    let (i, o) = dim_names(cx, a)?;
    linear(
        cx,
        LinearLayout::identity_1d(size, i.as_str(), o.as_str()),
        a,
    )
}

fn zeros_1d(cx: &mut Cx, a: &Args) -> R<Value> {
    let size = a.size32(cx, 0)?;
    let (i, o) = dim_names(cx, a)?;
    linear(cx, LinearLayout::zeros_1d(size, i.as_str(), o.as_str()), a)
}

fn strided_1d(cx: &mut Cx, a: &Args) -> R<Value> {
    let size = a.size32(cx, 0)?;
    let stride = a.size32(cx, 1)?;
    let (i, o) = (a.string(cx, 2)?, a.string(cx, 3)?);
    let r = LinearLayout::strided_1d(size, stride, i.as_str(), o.as_str());
    linear(cx, r, a)
}

fn compose(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    linear(cx, x.compose(&y), a)
}

fn invert_and_compose(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    linear(cx, x.invert_and_compose(&y), a)
}

fn invert(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    linear(cx, x.invert(), a)
}

fn pseudoinvert(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    linear(cx, x.pseudoinvert(), a)
}

fn transpose_ins(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let order = a.names(cx, 1)?;
    linear(cx, x.transpose_ins(&order), a)
}

fn transpose_outs(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let order = a.names(cx, 1)?;
    linear(cx, x.transpose_outs(&order), a)
}

fn reshape_ins(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let (v, s) = a.get(1);
    let dims = cx.dim_sizes(v, s)?;
    linear(cx, x.reshape_ins(&dims), a)
}

fn reshape_outs(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let (v, s) = a.get(1);
    let dims = cx.dim_sizes(v, s)?;
    linear(cx, x.reshape_outs(&dims), a)
}

fn flatten_ins(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    linear(cx, x.flatten_ins(), a)
}

fn flatten_outs(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    linear(cx, x.flatten_outs(), a)
}

fn sublayout(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let ins = a.names(cx, 1)?;
    let outs = a.names(cx, 2)?;
    linear(cx, x.sublayout(&ins, &outs), a)
}

fn divided(cx: &mut Cx, a: &Args, quotient: Option<LinearLayout>, left: bool) -> R<Value> {
    match quotient {
        Some(l) => Ok(Value::Linear(Box::new(l))),
        None => Err(cx.error(
            Code::DimMismatch,
            a.span,
            format!(
                "the second layout does not divide the first from the {} (no c with a = {})",
                if left { "left" } else { "right" },
                if left { "b * c" } else { "c * b" }
            ),
        )),
    }
}

fn divide_left(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    divided(cx, a, x.divide_left(&y), true)
}

fn divide_right(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    divided(cx, a, x.divide_right(&y), false)
}

fn concat_ins(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    linear(cx, x.concat_ins(&y), a)
}

fn concat_outs(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, y) = (a.linear(cx, 0)?, a.linear(cx, 1)?);
    linear(cx, x.concat_outs(&y), a)
}

fn resize_in(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let d = a.string(cx, 1)?;
    let n = a.size(cx, 2)?;
    linear(cx, x.resize_in_dim(&d, n), a)
}

fn resize_out(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let d = a.string(cx, 1)?;
    let n = a.size(cx, 2)?;
    linear(cx, x.resize_out_dim(&d, n), a)
}

fn quotient(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    let dims = a.names(cx, 1)?;
    match cx.alg(x.quotient(&dims), Domain::Linear, a.span)? {
        Some(l) => Ok(Value::Linear(Box::new(l))),
        None => Err(cx.error(
            Code::DimMismatch,
            a.span,
            "the layout is not the identity on those dims, so they cannot be quotiented out",
        )),
    }
}

fn is_injective(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Bool(a.linear(cx, 0)?.is_injective()))
}

fn is_surjective(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Bool(a.linear(cx, 0)?.is_surjective()))
}

fn is_invertible(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Bool(a.linear(cx, 0)?.is_invertible()))
}

fn num_consecutive(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(a.linear(cx, 0)?.num_consecutive_in_out() as i64))
}

/// The size of one dim of `dims`, or of all together.
fn dim_size(cx: &mut Cx, a: &Args, dims: Vec<(DimName, u64)>) -> R<Value> {
    let Some((v, s)) = a.opt(1) else {
        return Ok(Value::Int(dims.iter().map(|(_, s)| *s as i64).product()));
    };
    let d = cx.string(v, s)?;
    match dims.iter().find(|(n, _)| *n == d) {
        Some((_, size)) => Ok(Value::Int(*size as i64)),
        None => {
            let names: Vec<&str> = dims.iter().map(|(n, _)| n.as_str()).collect();
            Err(cx.error(
                Code::DimMismatch,
                s,
                format!("the layout has no dim `{d}` (it has {})", names.join(", ")),
            ))
        }
    }
}

fn in_size(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    dim_size(cx, a, x.in_dims())
}

fn out_size(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.linear(cx, 0)?;
    dim_size(cx, a, x.out_dims())
}

fn free_variable_masks(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Named(
        a.linear(cx, 0)?
            .free_variable_masks()
            .into_iter()
            .map(|(n, m)| (n.to_string(), Value::Int(m as i64)))
            .collect(),
    ))
}

fn owner(cx: &mut Cx, a: &Args) -> R<Value> {
    let l = a.linear(cx, 0)?;
    let (v, s) = a.get(1);
    let outs = l.out_dims();
    let coords: Vec<(String, u64)> = match v {
        Value::Named(items) => {
            let mut c = Vec::new();
            for (n, x) in items {
                c.push((n.clone(), cx.size(x, s)?));
            }
            c
        }
        other => {
            let xs = cx.int_list(other, s)?;
            if xs.len() != outs.len() {
                return Err(cx.error(
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
                return Err(cx.error(
                    Code::BasisOutOfRange,
                    s,
                    format!("{n} = {x} is outside the out-dim, which has size {size}"),
                ));
            }
            None => {
                return Err(cx.error(
                    Code::DimMismatch,
                    s,
                    format!("the layout has no out-dim `{n}`"),
                ));
            }
        }
    }
    let inverse = cx.alg(l.pseudoinvert(), Domain::Linear, a.span)?;
    let refs: Vec<(&str, u64)> = coords.iter().map(|(n, x)| (n.as_str(), *x)).collect();
    let ins = cx.alg(inverse.apply(&refs), Domain::Linear, a.span)?;
    Ok(Value::Named(
        ins.into_iter()
            .map(|(n, v)| (n.to_string(), Value::Int(v as i64)))
            .collect(),
    ))
}
