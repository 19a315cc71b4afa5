//! CuTe's atoms, tiled MMAs, tiled copies and corners of the algebra against
//! the C++ headers: every case of tests/vectors/cute/atoms.tsv and
//! corners.tsv (gen_cute_atoms.py and gen_cute_corners.py print each with
//! `cute::print`, compiled against the CUTLASS 4.2 headers) is written as
//! the `.lay` declaration `let rN = EXPR`; its value must print as C++
//! prints it, and where C++ refuses the case (a `static_assert`), the
//! declaration must be an error. Every mismatch is reported.

use layout_db::{Database, SourceFile, Value, check_file, named_values};

/// CUTLASS 4.2 declares the A layout of `SM80_16x8x128_S32U1U1S32_TN_*` with
/// the stride `((16,8))`, which is not congruent with its shape `(32,2)` (its
/// siblings 16x8x256 and 16x8x64 use `(16,8,...)`); layoutc keeps layouts
/// congruent and gives `(16,8)`. Every other case must print as C++ does.
///
/// A product by a layout of size 0 whose cosize is negative (`(3,(1,0,2)):
/// (1,(12,12,3))` has cosize -6): C++ goes on with a complement of negative
/// shape inside; layoutc refuses it, saying so.
fn documented_refusal(errors: &[String]) -> bool {
    errors
        .iter()
        .any(|e| e.contains("complement of negative shape, which layoutc does not build"))
}

/// A coordinate layout of rank 1 evaluates to a single basis element, which
/// C++ prints `3@0`; layoutc's value is the coordinate `(3)`.
fn known_divergence(lay: &str, expected: &str) -> Option<String> {
    if lay.starts_with("layout_a_tv(mma_atom(\"SM80_16x8x128_S32U1U1S32_TN_")
        && expected == "((4,8),(32,2)):((512,1),((16,8)))"
    {
        return Some("((4,8),(32,2)):((512,1),(16,8))".to_string());
    }
    let (n, basis) = expected.split_once('@')?;
    (basis == "0" && n.parse::<i64>().is_ok()).then(|| format!("({n})"))
}

#[test]
fn atoms_and_tiled_objects_match_cpp() {
    matches_cpp("cute/atoms.tsv", 2000);
}

/// tests/vectors/cute/corners.tsv (gen_cute_corners.py): slicing and
/// dicing, upcast / downcast / recast_layout, filter with a profile,
/// make_layout_like, swizzles on the right of a composition and the inverses
/// of swizzled layouts.
#[test]
fn corners_match_cpp() {
    matches_cpp("cute/corners.tsv", 300);
}

fn matches_cpp(vectors: &str, at_least: usize) {
    let text = layout_test_support::vectors_text(vectors);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert!(rows.len() >= at_least, "{} rows", rows.len());
    let source: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| format!("let r{i} = {}\n", r[1]))
        .collect();
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "atoms.lay".into(), source.clone());
    let report = check_file(&db, file);
    let mut errors: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
    for d in &report.diagnostics {
        let line = source[..d.span.start].matches('\n').count();
        errors[line].push(format!("{} {}", d.code.as_str(), d.message));
    }
    let mut values: Vec<Option<Value>> = vec![None; rows.len()];
    for v in named_values(&db, file) {
        let i: usize = v.name[1..].parse().unwrap();
        values[i] = v.value;
    }
    let (mut results, mut refusals) = (0, 0);
    let mut failures = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let (lay, expected) = (r[1], r[2]);
        // C++ refuses a case at compile time, or divides by zero at run
        // time (some layouts of size 0).
        let refused = expected.starts_with("static_assert")
            || expected == "compile error"
            || expected.starts_with("runtime error");
        match (&values[i], refused) {
            (None, true) if !errors[i].is_empty() => refusals += 1,
            (None, true) => failures.push(format!("{lay}: refused without a diagnostic")),
            (Some(v), true) => {
                failures.push(format!("{lay}: got {v}, but C++ refuses it ({expected})"))
            }
            (None, false) if documented_refusal(&errors[i]) => refusals += 1,
            (None, false) => failures.push(format!(
                "{lay}: refused ({}), C++ gives {expected}",
                errors[i].join("; ")
            )),
            (Some(v), false) => {
                results += 1;
                let got = v.to_string().replace(' ', "");
                let expected = known_divergence(lay, expected)
                    .unwrap_or_else(|| expected.to_string())
                    .replace(' ', "");
                if got != expected {
                    failures.push(format!("{lay}: got {got}, C++ gives {expected}"));
                }
            }
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
