//! XLA's tiled layouts: offsets, padding, and the TPU's default tiling.

use layout_algebra::xla::XlaShape;

use super::{Args, Builtin, Def, Group, Param, Type::*, req};
use crate::context::{Cx, R};
use crate::diagnostic::Domain;
use crate::value::Value;

const X: Param = req("x", Xla, "an XLA shape with its layout");
const INDEX: Param = req("index", IntList, "the element's logical index, one per dim");

/// A count of one XLA shape.
const fn count(name: &'static str, doc: &'static str, body: super::Body) -> Builtin {
    Builtin {
        name,
        doc,
        result: Int,
        def: Def::Fn(&[X], body),
    }
}

pub(super) const GROUP: Group = Group {
    title: "XLA shapes",
    builtins: &[
        Builtin {
            name: "offset",
            doc: "the physical element offset of an XLA element",
            result: Int,
            def: Def::Fn(&[X, INDEX], offset),
        },
        count(
            "padded_elements",
            "XLA: elements including tile padding",
            padded_elements,
        ),
        count(
            "padded_bytes",
            "XLA: bytes including tile padding",
            padded_bytes,
        ),
        count(
            "logical_elements",
            "XLA: elements without padding",
            logical_elements,
        ),
        Builtin {
            name: "first_tile_linear_index",
            doc: "XLA's own LinearIndex, which tiles by the first tile only",
            result: Int,
            def: Def::Fn(&[X, INDEX], first_tile_linear_index),
        },
        count(
            "first_tile_array_size",
            "XLA's own ArraySize in elements (XLA counts bytes: times the element width), which pads by the first tile only",
            first_tile_array_size,
        ),
        Builtin {
            name: "tpu",
            doc: "the TPU's default tiled layout for an array (seed 001)",
            result: Xla,
            def: Def::Fn(
                &[
                    req(
                        "element_type",
                        Str,
                        "XLA's element type: \"f32\", \"bf16\", \"s8\", \"pred\", ...",
                    ),
                    req("dims", IntList, "the array's dims, major to minor"),
                ],
                tpu,
            ),
        },
    ],
};

fn offset(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.xla(cx, 0)?;
    let index = a.int_list(cx, 1)?;
    cx.alg(x.offset(&index), Domain::Xla, a.get(1).1)
        .map(Value::Int)
}

fn first_tile_linear_index(cx: &mut Cx, a: &Args) -> R<Value> {
    let x = a.xla(cx, 0)?;
    let index = a.int_list(cx, 1)?;
    cx.alg(x.first_tile_linear_index(&index), Domain::Xla, a.get(1).1)
        .map(Value::Int)
}

fn padded_elements(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(a.xla(cx, 0)?.padded_elements()))
}

fn padded_bytes(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(a.xla(cx, 0)?.padded_bytes()))
}

fn logical_elements(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(a.xla(cx, 0)?.logical_elements()))
}

fn first_tile_array_size(cx: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(a.xla(cx, 0)?.first_tile_array_size()))
}

fn tpu(cx: &mut Cx, a: &Args) -> R<Value> {
    let ty = a.string(cx, 0)?;
    let dims = a.int_list(cx, 1)?;
    cx.alg(XlaShape::tpu(&ty, dims), Domain::Xla, a.span)
        .map(|x| Value::Xla(Box::new(x)))
}
