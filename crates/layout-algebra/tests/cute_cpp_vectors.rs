//! CuTe against the C++ headers themselves: tests/vectors/cute/cpp_vectors.tsv,
//! written by gen_cute_cpp_vectors.py, which compiles every case against the
//! CUTLASS headers (PyPI nvidia-cutlass 4.2) and records what `cute::print`
//! prints, or the `static_assert` that refuses it. Every mismatch is reported.

use crate::common::*;
use layout_algebra::cute::{IntTuple, Layout, SwizzledLayout, Tiler, idx2crd, idx2crd_strided};
use libtest_mimic::Trial;

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

/// One case of the file: C++'s result, or its refusal, must be layoutc's.
fn check_case(cols: &[&str]) -> Result<(), String> {
    let [id, op, a, b, c, expected, true_fn, injective] = cols[..] else {
        return Err(format!("expected 8 columns: {cols:?}"));
    };
    let got = run(op, a, b, c);
    let what = format!(
        "#{id} {op}({a}{}{b}{}{c})",
        if b.is_empty() { "" } else { ", " },
        if c.is_empty() { "" } else { ", " }
    );
    let mut bad = Vec::new();
    let mut check = |ok: bool, msg: &dyn Fn() -> String| {
        if !ok {
            bad.push(msg());
        }
    };
    if expected.starts_with("static_assert") || expected == "compile error" {
        match &got {
            Ok(g) => check(false, &|| {
                format!("{what}: got {g}, C++ refuses it ({expected})")
            }),
            Err(msg) => {
                for w in required_words(expected) {
                    check(msg.contains(w), &|| {
                        format!("{what}: the refusal should name `{w}` ({expected}): {msg}")
                    });
                }
                check(injective != "1" || !msg.contains("not injective"), &|| {
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
        check(matches!(&got, Err(m) if m.contains("negative")), &|| {
            format!(
                "{what}: got {got:?}; C++ gives {expected}, with a negative shape, so it must be refused"
            )
        });
    } else if true_fn == "0" {
        check(got.is_err(), &|| {
            format!(
                "{what}: got {got:?}; C++ gives {expected}, which is not the composition, so it must be refused"
            )
        });
    } else {
        let want = expected.replace('_', "");
        check(got.as_deref() == Ok(want.as_str()), &|| {
            format!("{what}: got {got:?}, C++ gives {expected}")
        });
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("\n"))
    }
}

/// Every case of tests/vectors/cute/cpp_vectors.tsv as a test of its own,
/// `cute_cpp/ID_OP`.
pub fn trials() -> Vec<Trial> {
    let path = vectors_path("cute/cpp_vectors.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let total = rows.len();
    let mut out = vec![Trial::test("cute_cpp/at_least_500", move || {
        if total > 500 {
            Ok(())
        } else {
            Err(format!("cpp_vectors.tsv has {total} cases").into())
        }
    })];
    out.extend(rows.into_iter().map(|cols| {
        let name = format!("cute_cpp/{}_{}", cols[0], cols.get(1).map_or("", |s| s));
        Trial::test(name, move || {
            let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
            check_case(&cols).map_err(Into::into)
        })
    }));
    out
}
