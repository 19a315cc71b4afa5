//! Application: a layout applied to coordinates (`blk(register = 1, lane = 3)`,
//! `t(5)`, `x(2, 3)`, `sw(x)`).

use layout_algebra::cute::IntTuple;
use layout_syntax::Span;

use super::ArgValue;
use crate::context::{Cx, R};
use crate::diagnostic::{Code, Diagnostic, Domain, did_you_mean};
use crate::value::Value;

/// `f(args)` where `f` is a value: a layout applied to coordinates.
pub(crate) fn apply(
    cx: &mut Cx,
    f: &Value,
    f_span: Span,
    args: Vec<ArgValue>,
    span: Span,
) -> R<Value> {
    let values: Vec<(Option<String>, Value, Span)> = args
        .into_iter()
        .map(|a| (a.name.map(|(n, _)| n), a.value, a.span))
        .collect();
    let all_named = !values.is_empty() && values.iter().all(|(n, _, _)| n.is_some());
    let any_named = values.iter().any(|(n, _, _)| n.is_some());
    if any_named && !all_named {
        return Err(cx.error(
            Code::TypeMismatch,
            span,
            "give all coordinates by name or none",
        ));
    }
    match f {
        Value::Linear(_) | Value::Tensor(_) => {
            let l = cx.linear(f, f_span)?;
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
                            d = d.with_suggestion(sug);
                        }
                        return Err(cx.report(d));
                    }
                    let x = cx.size(v, *s)?;
                    inputs.push((n, x));
                }
            } else {
                if values.len() > ins.len() {
                    return Err(cx.error(
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
                    let x = cx.size(v, *s)?;
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
                    return Err(cx.error(
                        Code::BasisOutOfRange,
                        s,
                        format!("{n} = {x} is outside the in-dim, which has size {size}"),
                    ));
                }
            }
            let refs: Vec<(&str, u64)> = inputs.iter().map(|(n, x)| (n.as_str(), *x)).collect();
            let out = cx.alg(l.apply(&refs), Domain::Linear, span)?;
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
        Value::Cute(_)
        | Value::Swizzled(_)
        | Value::LayoutAfterSwizzle(_)
        | Value::CuteTensor(_)
        | Value::Swizzle(_)
        | Value::Xla(_)
        | Value::CuteCoord(_) => {
            if any_named {
                return Err(cx.error(
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
            // `L(_, i)`: CuTe's slice, the modes at the underscores.
            if let Some(c) = super::cute::slice_coord(&coord).filter(|c| c.has_underscore()) {
                return match f {
                    Value::Cute(l) => cx
                        .alg(l.slice(&c), Domain::Cute, coord_span)
                        .map(|l| Value::Cute(Box::new(l))),
                    Value::Swizzled(sl) => {
                        // ComposedLayout: the swizzle stays, the offset of
                        // the coordinate with `_` as 0 joins the offset.
                        let zeroed = c.zeroed();
                        let start = cx.alg(sl.layout.at(&zeroed), Domain::Cute, coord_span)?;
                        let inner = cx.alg(sl.layout.slice(&c), Domain::Cute, coord_span)?;
                        Ok(Value::Swizzled(Box::new(
                            layout_algebra::cute::SwizzledLayout {
                                swizzle: sl.swizzle,
                                offset: sl.offset + start,
                                layout: inner,
                            },
                        )))
                    }
                    other => Err(cx.error(
                        Code::TypeMismatch,
                        coord_span,
                        format!("`_` slices a CuTe layout, not {}", other.type_name()),
                    )),
                };
            }
            match f {
                // A coordinate layout maps to a coordinate.
                Value::CuteCoord(l) => {
                    let c = cx.int_tuple(&coord, coord_span)?;
                    let r = match c {
                        IntTuple::Int(i) if i < 0 || i >= l.size() => {
                            return Err(cx.error(
                                Code::CutePrecondition,
                                coord_span,
                                format!("index {i} is outside the layout's size {}", l.size()),
                            ));
                        }
                        IntTuple::Int(i) => l.call(i),
                        c => cx.alg(l.at(&c), Domain::Cute, coord_span)?,
                    };
                    Ok(Value::from_int_tuple(&r))
                }
                Value::Swizzle(sw) => {
                    let x = cx.int(&coord, coord_span)?;
                    Ok(Value::Int(sw.apply(x)))
                }
                // The element index of the thread's value `i`.
                Value::CuteTensor(t) => {
                    let i = cx.int(&coord, coord_span)?;
                    if i < 0 || i >= t.size() {
                        return Err(cx.error(
                            Code::CutePrecondition,
                            coord_span,
                            format!("index {i} is outside the partition's size {}", t.size()),
                        ));
                    }
                    Ok(Value::Int(t.call(i)))
                }
                // No shape: any integer index, as C++ evaluates it.
                Value::LayoutAfterSwizzle(l) => {
                    let x = cx.int(&coord, coord_span)?;
                    if x.unsigned_abs() >= 1 << 31 {
                        return Err(cx.error(
                            Code::CutePrecondition,
                            coord_span,
                            format!("index {x} is outside C++'s int"),
                        ));
                    }
                    Ok(Value::Int(l.call(x)))
                }
                Value::Xla(x) => {
                    let index = match &coord {
                        Value::Int(i) => vec![*i],
                        other => cx.int_list(other, coord_span)?,
                    };
                    let r = x.offset(&index);
                    Ok(Value::Int(cx.alg(r, Domain::Xla, coord_span)?))
                }
                Value::Cute(l) => {
                    let c = cx.int_tuple(&coord, coord_span)?;
                    if let IntTuple::Int(i) = c {
                        if i < 0 || i >= l.size() {
                            return Err(cx.error(
                                Code::CutePrecondition,
                                coord_span,
                                format!("index {i} is outside the layout's size {}", l.size()),
                            ));
                        }
                        return Ok(Value::Int(l.call(i)));
                    }
                    Ok(Value::Int(cx.alg(l.at(&c), Domain::Cute, coord_span)?))
                }
                Value::Swizzled(l) => {
                    let c = cx.int_tuple(&coord, coord_span)?;
                    let inner = match c {
                        IntTuple::Int(i) => {
                            if i < 0 || i >= l.layout.size() {
                                return Err(cx.error(
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
                        c => cx.alg(l.layout.at(&c), Domain::Cute, coord_span)?,
                    };
                    Ok(Value::Int(l.swizzle.apply(l.offset + inner)))
                }
                _ => unreachable!("matched above"),
            }
        }
        other => Err(cx.error(
            Code::TypeMismatch,
            f_span,
            format!("{} cannot be applied to coordinates", other.type_name()),
        )),
    }
}
