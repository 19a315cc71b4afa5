//! CuTe's layout algebra with CuTe's names and semantics (the C++ headers
//! are the reference). A swizzled layout `Sw<B,M,S> o L` is C++'s
//! `ComposedLayout`: most operations apply to `L` and keep the swizzle
//! outside.

use layout_algebra::cute::{self, Layout, SwizzledInverse, SwizzledLayout, Tiler};
use layout_syntax::Span;

use super::{Args, Builtin, Def, Group, Param, Type::*, opt, req};
use crate::context::{Cx, R};
use crate::diagnostic::{Code, Diagnostic, Domain};
use crate::value::Value;

const A: Param = req("a", CuteLike, "a CuTe layout, plain or swizzled");
const TILER: Param = req(
    "tiler",
    Tiler,
    "a layout, a by-mode tiler `<3:3, (2,4):(1,8)>`, a shape or `_`",
);

/// A divide or product of a layout by a tiler.
const fn by_tiler(name: &'static str, doc: &'static str, body: super::Body) -> Builtin {
    Builtin {
        name,
        doc,
        result: CuteLike,
        def: Def::Fn(&[A, TILER], body),
    }
}

pub(super) const GROUP: Group = Group {
    title: "CuTe layouts",
    builtins: &[
        Builtin {
            name: "make_layout",
            doc: "a CuTe layout from shape and stride (without stride, column-major), or the concatenation of two layouts",
            result: Cute,
            def: Def::Fn(
                &[
                    req(
                        "shape",
                        Any,
                        "the shape (a tuple such as (4,(2,2))), or a first CuTe layout",
                    ),
                    opt(
                        "stride",
                        Any,
                        "the strides, congruent with the shape; or a second CuTe layout",
                    ),
                ],
                make_layout,
            ),
        },
        Builtin {
            name: "coalesce",
            doc: "CuTe's coalesce (by mode with a profile; of a swizzled layout, its inner layout)",
            result: CuteLike,
            def: Def::Fn(
                &[
                    A,
                    opt(
                        "profile",
                        IntTuple,
                        "coalesce each mode of this profile separately",
                    ),
                ],
                coalesce,
            ),
        },
        Builtin {
            name: "filter",
            doc: "CuTe's filter: coalesce and drop stride-0 modes (by mode with a profile)",
            result: Cute,
            def: Def::Fn(
                &[
                    req("a", Cute, "a CuTe layout"),
                    opt(
                        "profile",
                        IntTuple,
                        "filter each mode of this profile separately",
                    ),
                ],
                filter,
            ),
        },
        Builtin {
            name: "upcast",
            doc: "CuTe's upcast<n>: n elements become one (strides divided, stride-1 modes shrink)",
            result: CuteLike,
            def: Def::Fn(&[A, req("n", Int, "the factor")], upcast),
        },
        Builtin {
            name: "downcast",
            doc: "CuTe's downcast<n>: one element becomes n (the stride-1 mode grows, other strides multiply)",
            result: CuteLike,
            def: Def::Fn(&[A, req("n", Int, "the factor")], downcast),
        },
        Builtin {
            name: "recast_layout",
            doc: "CuTe's recast_layout<Old, New>: a layout over Old elements seen over New elements",
            result: CuteLike,
            def: Def::Fn(
                &[
                    A,
                    req(
                        "old",
                        Any,
                        "the old element type (\"uint1_t\", \"half_t\", ...) or its bits",
                    ),
                    req("new", Any, "the new element type or its bits"),
                ],
                recast_layout,
            ),
        },
        Builtin {
            name: "dice",
            doc: "CuTe's dice(coord, a): the modes where the coordinate is an integer (slice keeps those at its `_`; write a(_, i) to slice)",
            result: Cute,
            def: Def::Fn(
                &[
                    req("coord", Any, "a coordinate with `_`, e.g. (_, 2)"),
                    req("a", Cute, "a CuTe layout"),
                ],
                dice,
            ),
        },
        Builtin {
            name: "make_identity_layout",
            doc: "CuTe's make_identity_layout(shape): each coordinate to itself, with ScaledBasis strides ((4,8):(1@0,1@1))",
            result: CuteLike,
            def: Def::Fn(
                &[req("shape", IntTuple, "the shape, e.g. (4,8)")],
                make_identity_layout,
            ),
        },
        Builtin {
            name: "make_layout_like",
            doc: "CuTe's make_layout_like: a compact layout of the same shape with strides in the order of a's",
            result: Cute,
            def: Def::Fn(&[req("a", Cute, "a CuTe layout")], make_layout_like),
        },
        Builtin {
            name: "composition",
            doc: "CuTe's composition a o b (b may be a tiler, a swizzle comes first)",
            result: CuteLike,
            def: Def::Fn(
                &[
                    req(
                        "a",
                        Layout,
                        "the outer function: a CuTe layout, a swizzled layout or a swizzle",
                    ),
                    req(
                        "b",
                        Any,
                        "the inner function: a layout, a tiler, a swizzle or a swizzled layout",
                    ),
                    opt(
                        "semantics",
                        Str,
                        "\"exact\" (the default: a result that is not a o b is an error) or \"cpp\" (C++'s result, with warning W0202 where it is not a o b)",
                    ),
                ],
                composition,
            ),
        },
        Builtin {
            name: "complement",
            doc: "CuTe's complement, with an optional cotarget (of a swizzled layout, of its inner layout)",
            result: Cute,
            def: Def::Fn(
                &[
                    A,
                    opt(
                        "cotarget",
                        IntTuple,
                        "the size (or shape) the complement reaches; a's cosize when absent",
                    ),
                ],
                complement,
            ),
        },
        Builtin {
            name: "right_inverse",
            doc: "CuTe's right_inverse",
            result: CuteLike,
            def: Def::Fn(&[A], right_inverse),
        },
        Builtin {
            name: "left_inverse",
            doc: "CuTe's left_inverse (the quasi-inverse of a non-injective layout)",
            result: CuteLike,
            def: Def::Fn(&[A], left_inverse),
        },
        by_tiler(
            "logical_divide",
            "CuTe's logical_divide (a swizzle stays outside)",
            logical_divide,
        ),
        by_tiler(
            "zipped_divide",
            "CuTe's zipped_divide (a swizzle stays outside)",
            zipped_divide,
        ),
        by_tiler(
            "tiled_divide",
            "CuTe's tiled_divide (a swizzle stays outside)",
            tiled_divide,
        ),
        by_tiler(
            "flat_divide",
            "CuTe's flat_divide (a swizzle stays outside)",
            flat_divide,
        ),
        by_tiler(
            "logical_product",
            "CuTe's logical_product (a swizzle stays outside)",
            logical_product,
        ),
        by_tiler(
            "zipped_product",
            "CuTe's zipped_product (a swizzle stays outside)",
            zipped_product,
        ),
        by_tiler(
            "tiled_product",
            "CuTe's tiled_product (a swizzle stays outside)",
            tiled_product,
        ),
        by_tiler(
            "flat_product",
            "CuTe's flat_product (a swizzle stays outside)",
            flat_product,
        ),
        Builtin {
            name: "blocked_product",
            doc: "CuTe's blocked_product (a swizzle stays outside)",
            result: CuteLike,
            def: Def::Fn(
                &[A, req("b", Cute, "the layout of the repetitions")],
                blocked_product,
            ),
        },
        Builtin {
            name: "raked_product",
            doc: "CuTe's raked_product (a swizzle stays outside)",
            result: CuteLike,
            def: Def::Fn(
                &[A, req("b", Cute, "the layout of the repetitions")],
                raked_product,
            ),
        },
        Builtin {
            name: "tile_to_shape",
            doc: "CuTe's tile_to_shape: the atom repeated to the shape, column-major or in the order given (a swizzle stays outside)",
            result: CuteLike,
            def: Def::Fn(
                &[
                    req("atom", CuteLike, "the layout repeated"),
                    req(
                        "shape",
                        IntTuple,
                        "the shape to fill; each mode a multiple of the atom's",
                    ),
                    opt(
                        "order",
                        IntTuple,
                        "the order of the repetitions (CuTe's Step); column-major when absent",
                    ),
                ],
                tile_to_shape,
            ),
        },
        Builtin {
            name: "crd2idx",
            doc: "CuTe's crd2idx(coord, layout) (also swizzled) or crd2idx(coord, shape, stride)",
            result: Int,
            def: Def::Fn(
                &[
                    req("coord", IntTuple, "the coordinate (an index or a tuple)"),
                    req(
                        "layout",
                        Any,
                        "a CuTe layout, plain or swizzled, or a shape (then with `stride`)",
                    ),
                    opt(
                        "stride",
                        IntTuple,
                        "the strides of the shape; column-major when absent",
                    ),
                ],
                crd2idx,
            ),
        },
        Builtin {
            name: "idx2crd",
            doc: "CuTe's idx2crd",
            result: IntTuple,
            def: Def::Fn(
                &[
                    req("idx", Int, "the index"),
                    req("shape", IntTuple, "the shape"),
                    opt("stride", IntTuple, "the strides; column-major when absent"),
                ],
                idx2crd,
            ),
        },
        Builtin {
            name: "mode",
            doc: "CuTe's layout<i>: one top-level mode",
            result: Cute,
            def: Def::Fn(
                &[
                    req("x", Cute, "a CuTe layout"),
                    req("i", Int, "the mode, from 0"),
                ],
                mode,
            ),
        },
    ],
};

fn cute_value(l: Layout) -> Value {
    Value::Cute(Box::new(l))
}

/// Applies a CuTe operation to a layout, or to the inner layout of a
/// swizzled one with the swizzle and offset kept outside (how C++'s
/// ComposedLayout overloads apply coalesce, the divides, the products and
/// tile_to_shape).
fn cute_or_swizzled(
    cx: &mut Cx,
    (v, span): (&Value, Span),
    whole: Span,
    f: impl FnOnce(&Layout) -> layout_algebra::Result<Layout>,
) -> R<Value> {
    let r = match v {
        Value::Swizzled(sl) => sl.map_inner(f).map(|s| Value::Swizzled(Box::new(s))),
        other => f(&cx.cute_layout(other, span)?).map(cute_value),
    };
    cx.alg(r, Domain::Cute, whole)
}

fn make_layout(cx: &mut Cx, a: &Args) -> R<Value> {
    if let (Value::Cute(first), _) = a.get(0) {
        let mut modes = vec![(**first).clone()];
        if a.opt(1).is_some() {
            modes.push(a.cute(cx, 1)?);
        }
        return Ok(cute_value(Layout::concat(modes)));
    }
    let shape = a.int_tuple(cx, 0)?;
    let l = match a.opt(1) {
        Some((v, s)) => {
            let stride = cx.int_tuple(v, s)?;
            Layout::new(shape, stride)
        }
        None => Layout::column_major(shape),
    };
    cx.alg(l, Domain::Cute, a.span).map(cute_value)
}

fn coalesce(cx: &mut Cx, a: &Args) -> R<Value> {
    let profile = match a.opt(1) {
        None => None,
        Some((v, s)) => Some(cx.int_tuple(v, s)?),
    };
    if let (Value::CuteCoord(l), _) = a.get(0)
        && profile.is_none()
    {
        return cx
            .alg(l.coalesce(), Domain::Cute, a.span)
            .map(|l| Value::CuteCoord(Box::new(l)));
    }
    cute_or_swizzled(cx, a.get(0), a.span, |l| match &profile {
        None => Ok(l.coalesce()),
        Some(p) => l.coalesce_by(p),
    })
}

fn filter(cx: &mut Cx, a: &Args) -> R<Value> {
    let l = a.cute(cx, 0)?;
    match a.opt(1) {
        None => Ok(cute_value(l.filter())),
        Some((v, s)) => {
            let profile = cx.int_tuple(v, s)?;
            cx.alg(l.filter_by(&profile), Domain::Cute, a.span)
                .map(cute_value)
        }
    }
}

fn upcast(cx: &mut Cx, a: &Args) -> R<Value> {
    let n = a.int(cx, 1)?;
    cute_or_swizzled(cx, a.get(0), a.span, |l| l.upcast(n))
}

fn downcast(cx: &mut Cx, a: &Args) -> R<Value> {
    let n = a.int(cx, 1)?;
    cute_or_swizzled(cx, a.get(0), a.span, |l| l.downcast(n))
}

/// An element type by name (`half_t`) or its bits.
fn element_bits(cx: &mut Cx, (v, s): (&Value, Span)) -> R<u32> {
    match v {
        Value::Str(name) => cute::atom::value_type_bits(name).ok_or_else(|| {
            cx.error(
                Code::CutePrecondition,
                s,
                format!(
                    "unknown element type `{name}` (half_t, float, int8_t, uint1_t, uint128_t, ...)"
                ),
            )
        }),
        other => cx.size32(other, s),
    }
}

fn recast_layout(cx: &mut Cx, a: &Args) -> R<Value> {
    let old = element_bits(cx, a.get(1))?;
    let new = element_bits(cx, a.get(2))?;
    cute_or_swizzled(cx, a.get(0), a.span, |l| l.recast(old, new))
}

/// A coordinate that may hold `_`, as slicing takes it.
pub(crate) fn slice_coord(v: &Value) -> Option<cute::slice::SliceCoord> {
    use cute::slice::SliceCoord;
    match v {
        Value::Int(n) => Some(SliceCoord::Int(*n)),
        Value::Underscore => Some(SliceCoord::Underscore),
        Value::Tuple(items) => items
            .iter()
            .map(slice_coord)
            .collect::<Option<Vec<_>>>()
            .map(SliceCoord::Tuple),
        _ => None,
    }
}

fn dice(cx: &mut Cx, a: &Args) -> R<Value> {
    let (c, cs) = a.get(0);
    let Some(coord) = slice_coord(c) else {
        return Err(cx.error(
            Code::TypeMismatch,
            cs,
            format!(
                "expected a coordinate of integers and `_`, like (_, 2), but this is {}",
                c.type_name()
            ),
        ));
    };
    let l = a.cute(cx, 1)?;
    cx.alg(l.dice(&coord), Domain::Cute, a.span).map(cute_value)
}

fn make_identity_layout(cx: &mut Cx, a: &Args) -> R<Value> {
    let shape = a.int_tuple(cx, 0)?;
    let r = cute::coord::CoordLayout::identity(&shape);
    cx.alg(r, Domain::Cute, a.span)
        .map(|l| Value::CuteCoord(Box::new(l)))
}

fn make_layout_like(cx: &mut Cx, a: &Args) -> R<Value> {
    let l = a.cute(cx, 0)?;
    cx.alg(l.make_layout_like(), Domain::Cute, a.span)
        .map(cute_value)
}

fn composition(cx: &mut Cx, a: &Args) -> R<Value> {
    let ((x, xs), (y, ys)) = (a.get(0), a.get(1));
    if let Some((v, s)) = a.opt(2) {
        match v {
            Value::Str(m) if m == "exact" => {}
            // C++'s answer, where CuTe's rule gives one, even when it is not
            // the composition (porting code that compiles in CUTLASS).
            Value::Str(m) if m == "cpp" => {
                if let Value::Cute(l) = x {
                    let t = cx.tiler(y, ys)?;
                    let (r, why) = cx.alg(l.compose_tiler_as_cpp(&t), Domain::Cute, a.span)?;
                    if let Some(why) = why {
                        cx.report(Diagnostic::warning(
                            Code::CppComposition,
                            a.span,
                            format!("C++ returns {r} here, which is not the composition: {why}"),
                        ));
                    }
                    return Ok(cute_value(r));
                }
            }
            other => {
                return Err(cx.error(
                    Code::TypeMismatch,
                    s,
                    format!("semantics is \"exact\" or \"cpp\", not {other}"),
                ));
            }
        }
    }
    match (x, y) {
        (Value::LayoutAfterSwizzle(l), _) | (_, Value::LayoutAfterSwizzle(l)) => Err(cx.error(
            Code::CutePrecondition,
            a.span,
            format!(
                "C++ composes `{l}` only by nesting another level (`L o k o Sw o 0 o B`), a form layoutc does not represent"
            ),
        )),
        (Value::CuteCoord(l), _) => {
            let t = cx.tiler(y, ys)?;
            cx.alg(l.compose_tiler(&t), Domain::Cute, a.span)
                .map(|l| Value::CuteCoord(Box::new(l)))
        }
        // C++'s composition(Swizzle<0,M,S>, L) is L itself: no bits to swap.
        (Value::Swizzle(sw), Value::Cute(l)) if sw.bits == 0 => Ok(Value::Cute(l.clone())),
        (Value::Swizzle(sw), Value::Cute(l)) => Ok(Value::Swizzled(Box::new(SwizzledLayout {
            swizzle: *sw,
            offset: 0,
            layout: (**l).clone(),
        }))),
        (Value::Swizzled(sl), _) => {
            let t = cx.tiler(y, ys)?;
            let inner = cx.alg(sl.layout.compose_tiler(&t), Domain::Cute, a.span)?;
            Ok(Value::Swizzled(Box::new(SwizzledLayout {
                swizzle: sl.swizzle,
                offset: sl.offset,
                layout: inner,
            })))
        }
        // composition(L, Sw): CuTe rewrites it as Sw' o 0 o L.
        (Value::Cute(l), Value::Swizzle(sw)) => cx
            .alg(l.compose_swizzle(sw), Domain::Cute, a.span)
            .map(|s| Value::Swizzled(Box::new(s))),
        // composition(A, Sw o 0 o B) = (Sw' o 0 o A) o B.
        (Value::Cute(l), Value::Swizzled(sb)) if sb.offset == 0 => {
            let front = cx.alg(l.compose_swizzle(&sb.swizzle), Domain::Cute, a.span)?;
            let inner = cx.alg(l.compose(&sb.layout), Domain::Cute, a.span)?;
            Ok(Value::Swizzled(Box::new(SwizzledLayout {
                swizzle: front.swizzle,
                offset: 0,
                layout: inner,
            })))
        }
        (Value::Cute(l), Value::Cute(r)) => {
            let q = crate::CuteCompositionQuery::new(cx.db, (**l).clone(), (**r).clone());
            let r = crate::cute_composition(cx.db, q).clone();
            cx.alg(r, Domain::Cute, a.span).map(cute_value)
        }
        _ => {
            let l = cx.cute_layout(x, xs)?;
            let t = cx.tiler(y, ys)?;
            cx.alg(l.compose_tiler(&t), Domain::Cute, a.span)
                .map(cute_value)
        }
    }
}

fn swizzled_inverse_value(inverse: SwizzledInverse) -> Value {
    match inverse {
        SwizzledInverse::Rewritten(s) => Value::Swizzled(Box::new(s)),
        SwizzledInverse::Composed(l) => Value::LayoutAfterSwizzle(Box::new(l)),
    }
}

fn complement(cx: &mut Cx, a: &Args) -> R<Value> {
    // C++ takes the complement of a swizzled layout's inner layout.
    let l = match a.get(0) {
        (Value::Swizzled(sl), _) => sl.layout.clone(),
        (v, s) => cx.cute_layout(v, s)?,
    };
    let r = match a.opt(1) {
        None => l.complement_default(),
        Some((v, s)) => {
            let t = cx.int_tuple(v, s)?;
            l.complement(&t)
        }
    };
    cx.alg(r, Domain::Cute, a.span).map(cute_value)
}

fn right_inverse(cx: &mut Cx, a: &Args) -> R<Value> {
    match a.get(0) {
        (Value::Swizzled(s), _) => {
            let r = s.right_inverse().map(swizzled_inverse_value);
            cx.alg(r, Domain::Cute, a.span)
        }
        (Value::LayoutAfterSwizzle(s), _) => Ok(Value::Swizzled(Box::new(s.right_inverse()))),
        _ => Ok(cute_value(a.cute(cx, 0)?.right_inverse())),
    }
}

fn left_inverse(cx: &mut Cx, a: &Args) -> R<Value> {
    match a.get(0) {
        (Value::Swizzled(s), _) => {
            let r = s.left_inverse().map(swizzled_inverse_value);
            return cx.alg(r, Domain::Cute, a.span);
        }
        (Value::LayoutAfterSwizzle(s), _) => {
            let r = s.left_inverse().map(|s| Value::Swizzled(Box::new(s)));
            return cx.alg(r, Domain::Cute, a.span);
        }
        _ => {}
    }
    let l = a.cute(cx, 0)?;
    cx.alg(l.left_inverse(), Domain::Cute, a.span)
        .map(cute_value)
}

/// `op(a, tiler)` for a divide or a product by a tiler.
fn with_tiler(
    cx: &mut Cx,
    a: &Args,
    op: fn(&Layout, &Tiler) -> layout_algebra::Result<Layout>,
) -> R<Value> {
    if let (Value::CuteCoord(b), b_span) = a.get(1) {
        // C++ multiplies by a coordinate layout (its basis strides select
        // modes of the complement); it divides by none.
        if !a.name.ends_with("_product") || matches!(a.get(0).0, Value::CuteCoord(_)) {
            return Err(cx.error(
                Code::CutePrecondition,
                b_span,
                format!(
                    "{} by a coordinate layout is not defined: C++ compiles only the products of a layout by one",
                    a.name
                ),
            ));
        }
        let b = (**b).clone();
        let name = a.name;
        return cute_or_swizzled(cx, a.get(0), a.span, move |l| l.product_by_coord(&b, name));
    }
    let t = a.tiler(cx, 1)?;
    if let (Value::CuteCoord(l), _) = a.get(0) {
        // The divides of a coordinate layout (the products need a
        // complement, which basis strides do not have).
        let r = match a.name {
            "logical_divide" => l.logical_divide(&t),
            "zipped_divide" => l.zipped_divide(&t),
            "tiled_divide" => l.tiled_divide(&t),
            "flat_divide" => l.flat_divide(&t),
            other => {
                return Err(cx.error(
                    Code::CutePrecondition,
                    a.span,
                    format!("{other} is not defined for a coordinate layout (ScaledBasis strides have no complement)"),
                ));
            }
        };
        return cx
            .alg(r, Domain::Cute, a.span)
            .map(|l| Value::CuteCoord(Box::new(l)));
    }
    cute_or_swizzled(cx, a.get(0), a.span, |l| op(l, &t))
}

fn logical_divide(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::logical_divide)
}

fn zipped_divide(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::zipped_divide)
}

fn tiled_divide(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::tiled_divide)
}

fn flat_divide(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::flat_divide)
}

fn logical_product(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::logical_product)
}

fn zipped_product(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::zipped_product)
}

fn tiled_product(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::tiled_product)
}

fn flat_product(cx: &mut Cx, a: &Args) -> R<Value> {
    with_tiler(cx, a, Layout::flat_product)
}

fn blocked_product(cx: &mut Cx, a: &Args) -> R<Value> {
    let b = a.cute(cx, 1)?;
    cute_or_swizzled(cx, a.get(0), a.span, |l| l.blocked_product(&b))
}

fn raked_product(cx: &mut Cx, a: &Args) -> R<Value> {
    let b = a.cute(cx, 1)?;
    cute_or_swizzled(cx, a.get(0), a.span, |l| l.raked_product(&b))
}

fn tile_to_shape(cx: &mut Cx, a: &Args) -> R<Value> {
    let shape = a.int_tuple(cx, 1)?;
    let order = match a.opt(2) {
        None => None,
        Some((v, s)) => Some(cx.int_tuple(v, s)?),
    };
    cute_or_swizzled(cx, a.get(0), a.span, |l| {
        l.tile_to_shape(&shape, order.as_ref())
    })
}

fn crd2idx(cx: &mut Cx, a: &Args) -> R<Value> {
    let coord = a.int_tuple(cx, 0)?;
    let (l, ls) = a.get(1);
    let idx = match (l, a.opt(2)) {
        (Value::Cute(l), None) => l.at(&coord),
        (Value::Swizzled(l), None) => l.at(&coord),
        (_, Some((st, sts))) => {
            let shape = cx.int_tuple(l, ls)?;
            let stride = cx.int_tuple(st, sts)?;
            cute::crd2idx(&coord, &shape, &stride)
        }
        (other, None) => {
            let shape = cx.int_tuple(other, ls)?;
            cute::crd2idx(&coord, &shape, &cute::compact_col_major(&shape))
        }
    };
    cx.alg(idx, Domain::Cute, a.span).map(Value::Int)
}

fn idx2crd(cx: &mut Cx, a: &Args) -> R<Value> {
    let idx = a.int(cx, 0)?;
    let shape = a.int_tuple(cx, 1)?;
    match a.opt(2) {
        None => Ok(Value::from_int_tuple(&cute::idx2crd(idx, &shape))),
        Some((v, s)) => {
            let stride = cx.int_tuple(v, s)?;
            let c = cx.alg(
                cute::idx2crd_strided(idx, &shape, &stride),
                Domain::Cute,
                a.span,
            )?;
            Ok(Value::from_int_tuple(&c))
        }
    }
}

fn mode(cx: &mut Cx, a: &Args) -> R<Value> {
    let l = a.cute(cx, 0)?;
    let (_, s) = a.get(1);
    let i = a.size(cx, 1)? as usize;
    if i >= l.rank() {
        return Err(cx.error(
            Code::CutePrecondition,
            s,
            format!("mode {i} of a rank-{} layout", l.rank()),
        ));
    }
    Ok(cute_value(l.mode(i)))
}
