//! CuTe's atoms, tiled MMAs, tiled copies and corners of the algebra against
//! the C++ headers: every case of tests/vectors/cute/atoms.tsv and
//! corners.tsv (gen_cute_atoms.py and gen_cute_corners.py print each with
//! `cute::print`, compiled against the CUTLASS 4.2 headers) is written as
//! the `.lay` declaration `let rN = EXPR`; its value must print as C++
//! prints it, and where C++ refuses the case (a `static_assert`, or a
//! division by zero at run time), the declaration must be an error. One
//! test per row (`cargo test -p layout-db --test cases -- cute/corners/`).

use std::sync::{Arc, OnceLock};

use layout_db::{Database, SourceFile, Value, check_file, named_values};
use libtest_mimic::Trial;

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

/// The files and how many rows each must have at least.
const FILES: &[(&str, &str, usize)] = &[
    // gen_cute_atoms.py: MMA and copy atoms, tiled MMAs, tiled copies.
    ("atoms", "cute/atoms.tsv", 2000),
    // gen_cute_corners.py: slicing and dicing, upcast / downcast /
    // recast_layout, filter with a profile, make_layout_like, swizzles on
    // the right of a composition, inverses of swizzled layouts (also with
    // an offset), coordinate layouts, layouts of size 0.
    ("corners", "cute/corners.tsv", 300),
    // gen_cute_partitions.py: one thread's partition_S/D of a tiled copy
    // and partition_A/B/C of a tiled MMA, plain and swizzled tensors; the
    // elements per instruction of auto-vectorising copies.
    ("partitions", "cute/partitions.tsv", 300),
];

/// Every row of every file as a test of its own, `cute/FILE/ID`. A file is
/// evaluated once, as one `.lay` file of `let rN = EXPR` lines, when its
/// first row is checked.
pub fn trials() -> Vec<Trial> {
    let mut out = Vec::new();
    for &(kind, file, at_least) in FILES {
        let text = layout_test_support::vectors_text(file);
        let rows: Vec<Vec<String>> = text
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let n = rows.len();
        out.push(Trial::test(
            format!("cute/{kind}/at_least_{at_least}"),
            move || {
                if n >= at_least {
                    Ok(())
                } else {
                    Err(format!("{file} has {n} rows").into())
                }
            },
        ));
        let checked = Arc::new(OnceLock::new());
        let rows = Arc::new(rows);
        for i in 0..n {
            let (checked, rows) = (checked.clone(), rows.clone());
            out.push(Trial::test(
                format!("cute/{kind}/{}", rows[i][0]),
                move || {
                    let evaluated: &Evaluated = checked.get_or_init(|| evaluate(&rows));
                    check_row(&rows[i], &evaluated.values[i], &evaluated.errors[i])
                        .map_err(Into::into)
                },
            ));
        }
    }
    out
}

/// Each row's value and diagnostics.
struct Evaluated {
    values: Vec<Option<Value>>,
    errors: Vec<Vec<String>>,
}

fn evaluate(rows: &[Vec<String>]) -> Evaluated {
    let source: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| format!("let r{i} = {}\n", r[1]))
        .collect();
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "cases.lay".into(), source.clone());
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
    Evaluated { values, errors }
}

/// The row's value must print as C++ prints it; where C++ refuses it (a
/// `static_assert`, or a division by zero at run time), it must be an
/// error.
fn check_row(row: &[String], value: &Option<Value>, errors: &[String]) -> Result<(), String> {
    let (lay, expected) = (row[1].as_str(), row[2].as_str());
    // A refusal is a diagnostic, never a caught panic.
    if let Some(e) = errors.iter().find(|e| e.starts_with("E0900")) {
        return Err(format!("{lay}: layoutc panicked: {e}"));
    }
    let refused = expected.starts_with("static_assert")
        || expected == "compile error"
        || expected.starts_with("runtime error");
    match (value, refused) {
        (None, true) if !errors.is_empty() => Ok(()),
        (None, true) => Err(format!("{lay}: refused without a diagnostic")),
        (Some(v), true) => Err(format!("{lay}: got {v}, but C++ refuses it ({expected})")),
        (None, false) if documented_refusal(errors) => Ok(()),
        (None, false) => Err(format!(
            "{lay}: refused ({}), C++ gives {expected}",
            errors.join("; ")
        )),
        (Some(v), false) => {
            let got = v.to_string().replace(' ', "");
            let expected = known_divergence(lay, expected)
                .unwrap_or_else(|| expected.to_string())
                .replace(' ', "");
            if got == expected {
                Ok(())
            } else {
                Err(format!("{lay}: got {got}, C++ gives {expected}"))
            }
        }
    }
}
