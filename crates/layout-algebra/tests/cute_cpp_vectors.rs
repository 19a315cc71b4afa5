//! CuTe against the C++ headers themselves: tests/vectors/cute/cpp_vectors.tsv,
//! written by gen_cute_cpp_vectors.py, which compiles every case against the
//! CUTLASS headers (PyPI nvidia-cutlass 4.2) and records what `cute::print`
//! prints, or the `static_assert` that refuses it. Every mismatch is reported.

use crate::common;

use common::*;
use layout_algebra::cute::{IntTuple, Layout, SwizzledLayout, Tiler, idx2crd, idx2crd_strided};

/// A CuTe value as an operation returns it.
enum Out {
    Plain(Layout),
    Swizzled(SwizzledLayout),
}

/// A layout argument: plain, or `Sw<B,M,S> o L` (C++'s ComposedLayout).
fn arg(text: &str) -> Result<Out, String> {
    if text.starts_with("Sw<") {
        SwizzledLayout::parse(text)
            .map(Out::Swizzled)
            .map_err(|e| e.to_string())
    } else {
        Layout::parse(text)
            .map(Out::Plain)
            .map_err(|e| e.to_string())
    }
}

/// Applies `f` to the layout, or to the inner layout of a swizzled one (the
/// swizzle stays outside, as C++'s ComposedLayout overloads do).
fn on_inner(
    a: Out,
    f: impl FnOnce(&Layout) -> layout_algebra::Result<Layout>,
) -> Result<String, String> {
    let e = |e: layout_algebra::LayoutError| e.to_string();
    Ok(match a {
        Out::Plain(l) => f(&l).map_err(e)?.to_string(),
        Out::Swizzled(s) => s.map_inner(f).map_err(e)?.to_string(),
    })
}

fn run(op: &str, a: &str, b: &str, c: &str) -> Result<String, String> {
    let e = |e: layout_algebra::LayoutError| e.to_string();
    let tiler = |t: &str| Tiler::parse(t).map_err(e);
    let tuple = |t: &str| IntTuple::parse(t).map_err(e);
    match op {
        "composition" => {
            let t = tiler(b)?;
            on_inner(arg(a)?, |l| l.compose_tiler(&t))
        }
        "left_inverse" => on_inner(arg(a)?, |l| l.left_inverse()),
        "right_inverse" => on_inner(arg(a)?, |l| Ok(l.right_inverse())),
        "filter" => on_inner(arg(a)?, |l| Ok(l.filter())),
        "coalesce" if b.is_empty() => on_inner(arg(a)?, |l| Ok(l.coalesce())),
        "coalesce" => {
            let p = tuple(b)?;
            on_inner(arg(a)?, |l| l.coalesce_by(&p))
        }
        "complement" => {
            // C++ takes the complement of a ComposedLayout's inner layout (a
            // plain layout comes out; the default cotarget is its cosize).
            let l = match arg(a)? {
                Out::Plain(l) => l,
                Out::Swizzled(s) => s.layout,
            };
            let r = if b.is_empty() {
                l.complement_default()
            } else {
                l.complement(&tuple(b)?)
            };
            Ok(r.map_err(e)?.to_string())
        }
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => {
            let t = tiler(b)?;
            on_inner(arg(a)?, |l| match op {
                "logical_divide" => l.logical_divide(&t),
                "zipped_divide" => l.zipped_divide(&t),
                "tiled_divide" => l.tiled_divide(&t),
                "flat_divide" => l.flat_divide(&t),
                "logical_product" => l.logical_product(&t),
                "zipped_product" => l.zipped_product(&t),
                "tiled_product" => l.tiled_product(&t),
                _ => l.flat_product(&t),
            })
        }
        "blocked_product" | "raked_product" => {
            let Out::Plain(t) = arg(b)? else {
                return Err("a swizzled tiler".into());
            };
            on_inner(arg(a)?, |l| {
                if op == "blocked_product" {
                    l.blocked_product(&t)
                } else {
                    l.raked_product(&t)
                }
            })
        }
        "tile_to_shape" => {
            let shape = tuple(b)?;
            let order = if c.is_empty() { None } else { Some(tuple(c)?) };
            on_inner(arg(a)?, |l| l.tile_to_shape(&shape, order.as_ref()))
        }
        "crd2idx" => {
            let coord = tuple(a)?;
            let idx = match arg(b)? {
                Out::Plain(l) => l.at(&coord),
                Out::Swizzled(s) => s.at(&coord),
            };
            Ok(idx.map_err(e)?.to_string())
        }
        "idx2crd" if c.is_empty() => Ok(idx2crd(a.parse().unwrap(), &tuple(b)?).to_string()),
        "idx2crd" => Ok(idx2crd_strided(a.parse().unwrap(), &tuple(b)?, &tuple(c)?)
            .map_err(e)?
            .to_string()),
        other => Err(format!("unknown op {other}")),
    }
}

/// What layoutc's refusal must name for each C++ assertion (the real
/// failing condition).
fn required_words(cpp: &str) -> &'static [&'static str] {
    match cpp {
        "static_assert: Stride Divisibility Condition" => &["stride divisibility"],
        "static_assert: Shape Divisibility Condition" => &["shape divisibility"],
        "static_assert: Left inverse divisibility condition" => {
            &["left inverse divisibility", "not a multiple"]
        }
        "static_assert: Non-injective Layout detected in complement." => &["no complement"],
        "static_assert: tile_to_shape: block shape does not divide the target shape." => {
            &["does not divide"]
        }
        _ => &[],
    }
}

#[test]
fn cute_cpp_vectors_match() {
    let path = vectors_path("cute/cpp_vectors.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut bad = Mismatches::default();
    let mut total = 0;
    let (mut equal, mut refused, mut wrong_in_cpp) = (0, 0, 0);
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 8, "{line}");
        let [id, op, a, b, c, expected, true_fn, injective] = cols[..] else {
            unreachable!()
        };
        total += 1;
        let got = run(op, a, b, c);
        let what = format!(
            "#{id} {op}({a}{}{b}{}{c})",
            if b.is_empty() { "" } else { ", " },
            if c.is_empty() { "" } else { ", " }
        );
        if expected.starts_with("static_assert") || expected == "compile error" {
            refused += 1;
            match &got {
                Ok(g) => bad
                    .0
                    .push(format!("{what}: got {g}, C++ refuses it ({expected})")),
                Err(msg) => {
                    for w in required_words(expected) {
                        bad.check(msg.contains(w), || {
                            format!("{what}: the refusal should name `{w}` ({expected}): {msg}")
                        });
                    }
                    bad.check(injective != "1" || !msg.contains("not injective"), || {
                        format!("{what}: the input is injective, but the refusal says: {msg}")
                    });
                }
            }
        } else if expected.contains(':')
            && expected
                .rsplit(" o ")
                .next()
                .and_then(|l| l.split(':').next())
                .is_some_and(|shape| shape.contains('-'))
        {
            // C++ built a layout with a negative shape (from negative
            // strides), which is no layout: refused here, with that reason.
            wrong_in_cpp += 1;
            bad.check(
                matches!(&got, Err(m) if m.contains("negative")),
                || format!("{what}: got {got:?}; C++ gives {expected}, with a negative shape, so it must be refused"),
            );
        } else if true_fn == "0" {
            wrong_in_cpp += 1;
            bad.check(got.is_err(), || {
                format!("{what}: got {got:?}; C++ gives {expected}, which is not the composition, so it must be refused")
            });
        } else {
            equal += 1;
            let want = expected.replace('_', "");
            bad.check(got.as_deref() == Ok(want.as_str()), || {
                format!("{what}: got {got:?}, C++ gives {expected}")
            });
        }
    }
    eprintln!(
        "{total} C++ cases: {equal} results, {refused} refused by C++, {wrong_in_cpp} wrong in C++ (refused here)"
    );
    assert!(total > 500, "cpp_vectors.tsv has {total} cases");
    bad.finish(total);
}
