//! Sizes, shapes and tables of any layout, with CuTe's names where CuTe
//! has them.

use super::{Args, Builtin, Def, Group, Param, Type::*, req};
use crate::context::{Cx, R};
use crate::diagnostic::Code;
use crate::value::Value;

const X: Param = req(
    "x",
    Layout,
    "a layout in any notation, a tensor type or a shape",
);

/// A measure of one argument.
const fn measure(
    name: &'static str,
    doc: &'static str,
    params: &'static [Param],
    result: super::Type,
    body: super::Body,
) -> Builtin {
    Builtin {
        name,
        doc,
        result,
        def: Def::Fn(params, body),
    }
}

pub(super) const GROUP: Group = Group {
    title: "Sizes, shapes and tables",
    builtins: &[
        measure(
            "size",
            "the number of elements (CuTe size, tensor elements, linear in-size)",
            &[req(
                "x",
                Layout,
                "a CuTe layout (plain or swizzled), a tensor type, a linear layout, an XLA shape or a shape",
            )],
            Int,
            size,
        ),
        measure(
            "cosize",
            "CuTe's cosize: one past the largest offset",
            &[req("x", Layout, "a CuTe layout, plain or swizzled")],
            Int,
            cosize,
        ),
        measure(
            "rank",
            "the number of top-level modes (or tensor dims)",
            &[req("x", Layout, "a CuTe layout, a tensor type or a shape")],
            Int,
            rank,
        ),
        measure(
            "depth",
            "CuTe's depth",
            &[req("x", Layout, "a CuTe layout or a shape")],
            Int,
            depth,
        ),
        measure(
            "shape",
            "the shape (CuTe or tensor)",
            &[req(
                "x",
                Layout,
                "a CuTe layout, a tensor type or an XLA shape",
            )],
            IntTuple,
            shape,
        ),
        measure(
            "stride",
            "CuTe's stride",
            &[req("x", Layout, "a CuTe layout")],
            IntTuple,
            stride,
        ),
        Builtin {
            name: "table",
            doc: "every value of a layout in index order (CuTe, swizzled, XLA offsets)",
            result: IntList,
            def: Def::Fn(&[X], table),
        },
    ],
};

fn not_defined(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, s) = a.get(0);
    Err(cx.error(
        Code::TypeMismatch,
        s,
        format!("{} is not defined for {}", a.name, x.type_name()),
    ))
}

fn int_tuple_of(v: &Value) -> Option<layout_algebra::cute::IntTuple> {
    v.as_int_tuple()
}

fn size(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(match a.get(0).0 {
        Value::Cute(l) => l.size(),
        Value::Swizzled(l) => l.layout.size(),
        Value::CuteCoord(l) => l.size(),
        Value::Xla(x) => x.logical_elements(),
        Value::Tensor(t) => t.shape.iter().map(|&d| d as i64).product(),
        Value::Linear(l) => l.total_in_size() as i64,
        v => match int_tuple_of(v) {
            Some(t) => t.product(),
            None => return not_defined(cx, a),
        },
    }))
}

fn cosize(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(match a.get(0).0 {
        Value::Cute(l) => l.cosize(),
        Value::Swizzled(l) => l.layout.cosize(),
        _ => return not_defined(cx, a),
    }))
}

fn rank(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(match a.get(0).0 {
        Value::Cute(l) => l.rank() as i64,
        Value::CuteCoord(l) => l.rank() as i64,
        Value::Tensor(t) => t.shape.len() as i64,
        v => match int_tuple_of(v) {
            Some(t) => t.rank() as i64,
            None => return not_defined(cx, a),
        },
    }))
}

fn depth(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(match a.get(0).0 {
        Value::Cute(l) => l.depth() as i64,
        v => match int_tuple_of(v) {
            Some(t) => t.depth() as i64,
            None => return not_defined(cx, a),
        },
    }))
}

fn shape(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(match a.get(0).0 {
        Value::Cute(l) => Value::from_int_tuple(l.shape()),
        Value::CuteCoord(l) => Value::from_int_tuple(l.shape()),
        Value::Tensor(t) => Value::Tuple(t.shape.iter().map(|&d| Value::Int(d as i64)).collect()),
        Value::Xla(x) => Value::Tuple(x.dims.iter().map(|&d| Value::Int(d)).collect()),
        _ => return not_defined(cx, a),
    })
}

fn stride(cx: &mut Cx, a: &Args) -> R<Value> {
    match a.get(0).0 {
        Value::Cute(l) => Ok(Value::from_int_tuple(l.stride())),
        _ => not_defined(cx, a),
    }
}

fn table(cx: &mut Cx, a: &Args) -> R<Value> {
    let (x, xs) = a.get(0);
    const MAX_TABLE: i64 = 1 << 16;
    let size = match x {
        Value::Cute(l) => l.size(),
        Value::Swizzled(l) => l.layout.size(),
        Value::Xla(x) => x.logical_elements(),
        _ => 0,
    };
    if size > MAX_TABLE {
        return Err(cx.error(
            Code::TooLarge,
            xs,
            format!("table() lists at most 65536 values, this layout has {size}"),
        ));
    }
    let t = match x {
        Value::Cute(l) => l.table(),
        Value::Swizzled(l) => l.table(),
        Value::Xla(x) => x.offsets(),
        Value::Swizzle(_) => {
            return Err(cx.error(
                Code::TypeMismatch,
                xs,
                "a swizzle alone has no size; compose it with a layout",
            ));
        }
        other => {
            let l = cx.linear(other, xs)?;
            if l.total_in_bits() > 16 {
                return Err(cx.error(Code::TooLarge, xs, "table() lists at most 65536 values"));
            }
            // Outputs as row-major indices (last out-dim fastest), the way
            // the seeds print tables.
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
    Ok(Value::List(t.into_iter().map(Value::Int).collect()))
}
