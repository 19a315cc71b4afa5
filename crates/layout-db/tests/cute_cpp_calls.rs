//! The CuTe calls of the language against the C++ headers: every case of
//! tests/vectors/cute/cpp_vectors.tsv (gen_cute_cpp_vectors.py compiles each
//! against the CUTLASS 4.2 headers) is written as a `.lay` declaration,
//! `layout rN = OP(cute A, ...)`, and its value must print as C++ prints the
//! result, or the declaration must be an error where C++ refuses the case (or
//! returns a layout that is not the composition). Every mismatch is reported.

use layout_db::{Database, SourceFile, Value, check_file, named_values};

fn vectors() -> String {
    layout_test_support::vectors_text("cute/cpp_vectors.tsv")
}

/// An argument as .lay writes it: a layout after `cute`, a tiler `<..>`,
/// `_` and integers and tuples as they are.
fn lay_arg(text: &str) -> String {
    if !text.starts_with('<') && (text.contains(':') || text.starts_with("Sw<")) {
        format!("cute {text}")
    } else {
        text.to_string()
    }
}

#[test]
fn cute_calls_match_cpp() {
    let text = vectors();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert!(rows.len() > 500, "{} rows", rows.len());
    let mut source = String::new();
    for (i, r) in rows.iter().enumerate() {
        let (op, a, b, c) = (r[1], r[2], r[3], r[4]);
        let args: Vec<String> = match op {
            // A bare shape in these vectors is a layout only as the first
            // argument of a layout op; crd2idx and idx2crd take tuples first.
            "crd2idx" => vec![a.to_string(), lay_arg(b)],
            "idx2crd" => [a, b, c]
                .iter()
                .filter(|x| !x.is_empty())
                .map(|x| x.to_string())
                .collect(),
            _ => {
                let mut v = vec![if a.contains(':') || a.starts_with("Sw<") {
                    lay_arg(a)
                } else {
                    format!("make_layout({a})")
                }];
                v.extend([b, c].iter().filter(|x| !x.is_empty()).map(|x| lay_arg(x)));
                v
            }
        };
        source += &format!("let r{i} = {op}({})\n", args.join(", "));
    }
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "cpp.lay".into(), source.clone());
    let report = check_file(&db, file);
    let mut errors: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
    for d in &report.diagnostics {
        let line = source[..d.span.start].matches('\n').count();
        errors[line].push(format!("{} {}", d.code.as_str(), d.message));
    }
    let mut failures = Vec::new();
    let (mut results, mut refusals) = (0, 0);
    let values = named_values(&db, file);
    let mut seen = vec![false; rows.len()];
    for v in values {
        let i: usize = v.name[1..].parse().unwrap();
        seen[i] = true;
        let r = &rows[i];
        let (expected, true_fn) = (r[5], r[6]);
        let line = source.lines().nth(i).unwrap();
        let refused = expected.starts_with("static_assert")
            || expected == "compile error"
            || true_fn == "0"
            || expected.contains(':')
                && expected
                    .rsplit(" o ")
                    .next()
                    .and_then(|l| l.split(':').next())
                    .is_some_and(|shape| shape.contains('-'));
        match (&v.value, refused) {
            (None, true) => refusals += 1,
            (Some(_), true) => failures.push(format!(
                "{line}: got {}, but C++ gives {expected} (must be refused)",
                v.value.as_ref().unwrap()
            )),
            (None, false) => failures.push(format!(
                "{line}: refused ({}), C++ gives {expected}",
                errors[i].join("; ")
            )),
            (Some(value), false) => {
                results += 1;
                let got = match value {
                    Value::Cute(l) => l.to_string(),
                    Value::Swizzled(s) => s.to_string(),
                    other => other.to_string().replace(' ', ""),
                };
                if got != expected.replace('_', "") {
                    failures.push(format!("{line}: got {got}, C++ gives {expected}"));
                }
            }
        }
        if refused && errors[i].is_empty() {
            failures.push(format!("{line}: refused without a diagnostic"));
        }
    }
    for (i, seen) in seen.into_iter().enumerate() {
        if !seen {
            let line = source.lines().nth(i).unwrap();
            failures.push(format!("{line}: no value ({})", errors[i].join("; ")));
        }
    }
    eprintln!("{results} results and {refusals} refusals as in C++");
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from C++:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// `composition(a, b, "cpp")`: C++'s own result for every composition of
/// the vectors, with W0202 exactly where C++'s result is not `a o b`.
#[test]
fn cpp_semantics_give_cpp_results_and_warn_where_they_are_not_compositions() {
    let text = vectors();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| {
            r[1] == "composition" && !r[5].starts_with("static_assert") && r[5] != "compile error"
        })
        .filter(|r| !r[2].starts_with("Sw<"))
        .collect();
    let not_compositions = rows.iter().filter(|r| r[6] == "0").count();
    assert!(
        rows.len() > 100 && not_compositions >= 3,
        "{} rows, {not_compositions}",
        rows.len()
    );
    let source: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "let r{i} = composition(cute {}, {}, \"cpp\")\n",
                r[2],
                lay_arg(r[3])
            )
        })
        .collect();
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "cpp.lay".into(), source.clone());
    let report = check_file(&db, file);
    let mut warned = vec![false; rows.len()];
    for d in &report.diagnostics {
        let line = source[..d.span.start].matches('\n').count();
        assert_eq!(
            d.code.as_str(),
            "W0202",
            "{}: {}",
            source.lines().nth(line).unwrap(),
            d.message
        );
        warned[line] = true;
    }
    for v in named_values(&db, file) {
        let i: usize = v.name[1..].parse().unwrap();
        let got = match &v.value {
            Some(Value::Cute(l)) => l.to_string(),
            other => panic!("{}: {other:?}", source.lines().nth(i).unwrap()),
        };
        assert_eq!(
            got,
            rows[i][5].replace('_', ""),
            "{}",
            source.lines().nth(i).unwrap()
        );
        assert_eq!(
            warned[i],
            rows[i][6] == "0",
            "{}",
            source.lines().nth(i).unwrap()
        );
    }
}
