//! CuTe against the C++ results: tests/vectors/reference/cute/EXAMPLES.md
//! (pycute tests and the CuTe algebra doc) and vectors_sample.json.

use crate::common;

use common::*;
use layout_algebra::cute::{
    IntTuple, Layout, SwizzledLayout, Tiler, crd2idx, idx2crd, idx2crd_strided,
};
use std::collections::{BTreeMap, HashMap};

/// Runs one CuTe operation on textual arguments; the result is printed as
/// CuTe prints it (or an integer / tuple for crd2idx / idx2crd).
fn run(op: &str, args: &BTreeMap<String, String>) -> Result<String, String> {
    let e = |e: layout_algebra::LayoutError| e.to_string();
    let arg = |k: &str| {
        args.get(k)
            .cloned()
            .ok_or_else(|| format!("missing argument {k}"))
    };
    let layout = |k: &str| -> Result<Layout, String> { Layout::parse(&arg(k)?).map_err(e) };
    let tiler = |k: &str| -> Result<Tiler, String> { Tiler::parse(&arg(k)?).map_err(e) };
    let tuple = |k: &str| -> Result<IntTuple, String> { IntTuple::parse(&arg(k)?).map_err(e) };
    let out = match op {
        "coalesce" => layout("layout")?.coalesce().to_string(),
        "coalesce_profile" => layout("layout")?
            .coalesce_by(&tuple("profile")?)
            .map_err(e)?
            .to_string(),
        "filter" => layout("layout")?.filter().to_string(),
        "composition" => layout("A")?
            .compose_tiler(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "complement" => match args.get("cotarget") {
            Some(_) => layout("layout")?
                .complement(&tuple("cotarget")?)
                .map_err(e)?
                .to_string(),
            None => layout("layout")?
                .complement_default()
                .map_err(e)?
                .to_string(),
        },
        "right_inverse" => layout("layout")?.right_inverse().to_string(),
        "left_inverse" => layout("layout")?.left_inverse().map_err(e)?.to_string(),
        "logical_divide" => layout("A")?
            .logical_divide(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "zipped_divide" => layout("A")?
            .zipped_divide(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "tiled_divide" => layout("A")?
            .tiled_divide(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "flat_divide" => layout("A")?
            .flat_divide(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "logical_product" => layout("A")?
            .logical_product(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "zipped_product" => layout("A")?
            .zipped_product(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "tiled_product" => layout("A")?
            .tiled_product(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "flat_product" => layout("A")?
            .flat_product(&tiler("B")?)
            .map_err(e)?
            .to_string(),
        "blocked_product" => layout("A")?
            .blocked_product(&layout("B")?)
            .map_err(e)?
            .to_string(),
        "raked_product" => layout("A")?
            .raked_product(&layout("B")?)
            .map_err(e)?
            .to_string(),
        "crd2idx" => {
            let l = layout("layout")?;
            crd2idx(&tuple("coord")?, l.shape(), l.stride())
                .map_err(e)?
                .to_string()
        }
        "idx2crd" => idx2crd(arg("idx")?.parse().unwrap(), &tuple("shape")?).to_string(),
        "idx2crd_strided" => idx2crd_strided(
            arg("idx")?.parse().unwrap(),
            &tuple("shape")?,
            &tuple("stride")?,
        )
        .map_err(e)?
        .to_string(),
        "swizzle" => {
            let s = SwizzledLayout::parse(&format!("{} o 0 o 64:1", arg("swizzle")?)).map_err(e)?;
            s.swizzle.to_string()
        }
        "swizzle_layout" => {
            SwizzledLayout::parse(&format!("{} o {}", arg("swizzle")?, arg("layout")?))
                .map_err(e)?
                .to_string()
        }
        other => return Err(format!("unknown op {other}")),
    };
    Ok(out)
}

/// Splits `a=1, b=(2,3):(1,2)` at top-level commas.
fn split_args(text: &str) -> BTreeMap<String, String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .filter_map(|p| {
            p.trim()
                .split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// The C++ headers' own answers (tests/vectors/cute/cpp_vectors.tsv, which
/// holds the inputs of these files too): `Some(printed)` or `None` where C++
/// refuses the case or returns a layout that is not the composition. Where a
/// transcribed or pycute/DSL-derived expectation disagrees with the headers,
/// the headers win.
fn cpp_answers() -> HashMap<(String, String, String, String), Option<String>> {
    let text = std::fs::read_to_string(vectors_path("cute/cpp_vectors.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let refused = c[5].starts_with("static_assert")
                || c[5] == "compile error"
                || c[6] == "0"
                || c[5].contains(':')
                    && c[5]
                        .rsplit(" o ")
                        .next()
                        .and_then(|l| l.split(':').next())
                        .is_some_and(|shape| shape.contains('-'));
            let key = (c[1].into(), c[2].into(), c[3].into(), c[4].into());
            (key, (!refused).then(|| c[5].replace('_', "")))
        })
        .collect()
}

/// The cpp_vectors.tsv key of a case of the JSON files or EXAMPLES.md.
fn cpp_key(op: &str, args: &BTreeMap<String, String>) -> (String, String, String, String) {
    let g = |k: &str| args.get(k).cloned().unwrap_or_default();
    let (op, a, b, c) = match op {
        "coalesce_profile" => ("coalesce", g("layout"), g("profile"), String::new()),
        "coalesce" | "filter" | "left_inverse" | "right_inverse" => {
            (op, g("layout"), String::new(), String::new())
        }
        "complement" => (op, g("layout"), g("cotarget"), String::new()),
        "crd2idx" => (op, g("coord"), g("layout"), String::new()),
        "idx2crd" => (op, g("idx"), g("shape"), String::new()),
        "idx2crd_strided" => ("idx2crd", g("idx"), g("shape"), g("stride")),
        _ => (op, g("A"), g("B"), String::new()),
    };
    (op.to_string(), a, b, c)
}

/// The expectation of a case: C++'s where cpp_vectors.tsv has it (noting
/// where it differs from the file's own), else the file's.
fn expectation(
    cpp: &HashMap<(String, String, String, String), Option<String>>,
    op: &str,
    args: &BTreeMap<String, String>,
    given: Option<String>,
    overridden: &mut Vec<String>,
) -> Option<String> {
    match cpp.get(&cpp_key(op, args)) {
        Some(c) => {
            if *c != given {
                overridden.push(format!("{op} {args:?}: {given:?} -> C++ {c:?}"));
            }
            c.clone()
        }
        None => given,
    }
}

#[test]
fn cute_examples_match_cpp() {
    let text = std::fs::read_to_string(vectors_path("reference/cute/EXAMPLES.md")).unwrap();
    let cpp = cpp_answers();
    let mut overridden = Vec::new();
    let mut bad = Mismatches::default();
    let mut total = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((call, tail)) = rest.split_once("` -> `") else {
            continue;
        };
        let expected = tail.split('`').next().unwrap();
        let (op, args) = call.split_once('(').unwrap();
        let args = split_args(args.strip_suffix(')').unwrap());
        total += 1;
        let expected = expectation(&cpp, op, &args, Some(expected.into()), &mut overridden);
        let got = run(op, &args);
        bad.check(got.ok() == expected, || {
            format!("{call}: got {:?}, expected {expected:?}", run(op, &args))
        });
    }
    assert_eq!(total, 107, "EXAMPLES.md has 107 examples");
    report_overridden("EXAMPLES.md", &overridden);
    bad.finish(total);
}

#[test]
fn cute_vectors_match_cpp() {
    check_vectors("reference/cute/vectors_sample.json");
}

/// 536 cases from pycute and the CuTe DSL, kept where they agree with the
/// C++ semantics (tests/vectors/cute/gen_cute_vectors.py).
#[test]
fn cute_generated_vectors_match() {
    check_vectors_with("cute/generated.json", same_up_to_size_one_strides);
}

fn check_vectors(file: &str) {
    check_vectors_with(file, |a, b| a == b);
}

/// pycute and the DSL compute with dynamic integers, where CuTe C++'s static
/// integers give size-1 modes stride 0; the stride of a size-1 mode never
/// changes the function, so those two forms are the same layout.
fn same_up_to_size_one_strides(got: &str, expected: &str) -> bool {
    if got == expected {
        return true;
    }
    match (Layout::parse(got), Layout::parse(expected)) {
        (Ok(a), Ok(b)) => {
            a.shape() == b.shape()
                && a.leaves()
                    .iter()
                    .zip(b.leaves())
                    .all(|(&(s, d1), (_, d2))| s == 1 || d1 == d2)
        }
        _ => false,
    }
}

/// Lists the expectations the C++ headers replaced (on stderr, so the
/// change from the file's own value stays visible).
fn report_overridden(file: &str, overridden: &[String]) {
    if !overridden.is_empty() {
        eprintln!(
            "{file}: {} expectations replaced by the C++ headers' answers (cpp_vectors.tsv):",
            overridden.len()
        );
        for o in overridden {
            eprintln!("  {o}");
        }
    }
}

fn check_vectors_with(file: &str, same: fn(&str, &str) -> bool) {
    let v = load(file);
    let cases = v["cases"].as_array().unwrap();
    let cpp = cpp_answers();
    let mut overridden = Vec::new();
    let mut bad = Mismatches::default();
    for c in cases {
        let id = c["id"].as_str().unwrap();
        let op = c["op"].as_str().unwrap();
        let args: BTreeMap<String, String> = c["inputs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect();
        let expected = match &c["output"] {
            serde_json::Value::Null => None,
            serde_json::Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        let got = run(op, &args);
        // Where C++'s weak divisibility check lets a composition through that
        // is not A o B (the vector's own check says so), we report an error.
        let cpp_is_wrong = c["checks"].as_object().is_some_and(|m| {
            m.iter()
                .any(|(k, v)| k.contains("A(B(i))") && v == &serde_json::Value::Bool(false))
        });
        let expected = if cpp_is_wrong { None } else { expected };
        let before = overridden.len();
        let expected = expectation(&cpp, op, &args, expected, &mut overridden);
        let file_is_right = overridden.len() == before;
        match &expected {
            None => bad.check(got.is_err(), || {
                format!("{id} {op} {args:?}: got {got:?}, C++ rejects it")
            }),
            Some(exp) => bad.check(got.as_deref().is_ok_and(|g| same(g, exp)), || {
                format!("{id} {op} {args:?}: got {got:?}, expected {exp}")
            }),
        }
        // Function tables, where given (and the file's output stands).
        if let (Some(table), Ok(_), true) = (
            c.get("table").and_then(|t| t.as_array()),
            &got,
            file_is_right,
        ) {
            let table: Vec<i64> = table.iter().map(|x| x.as_i64().unwrap()).collect();
            let ours: Option<Vec<i64>> = match op {
                "swizzle" => {
                    let s = SwizzledLayout::parse(&format!(
                        "{} o 0 o {}:1",
                        args["swizzle"],
                        table.len()
                    ))
                    .unwrap();
                    Some(s.table())
                }
                "swizzle_layout" => Some(
                    SwizzledLayout::parse(got.as_ref().unwrap())
                        .unwrap()
                        .table(),
                ),
                _ => Layout::parse(got.as_ref().unwrap()).ok().map(|l| l.table()),
            };
            if let Some(ours) = ours {
                bad.check(ours == table, || format!("{id}: table differs"));
            }
        }
    }
    report_overridden(file, &overridden);
    bad.finish(cases.len());
}
