//! The example files: every check holds, formatting keeps every value, and
//! changing one number in a check makes exactly that check fail.

use layout_db::{Database, FileReport, SourceFile, Value, check_file};

fn examples() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lay"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "examples are missing: {files:?}");
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

fn check(text: &str) -> FileReport {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "example.lay".into(), text.into());
    check_file(&db, file).clone()
}

fn values(text: &str) -> Vec<(String, Option<Value>)> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "example.lay".into(), text.into());
    layout_db::named_values(&db, file)
        .into_iter()
        .map(|v| (v.name, v.value))
        .collect()
}

#[test]
fn every_example_checks_clean() {
    for (path, text) in examples() {
        let r = check(&text);
        assert!(r.diagnostics.is_empty(), "{path}: {:#?}", r.diagnostics);
        assert!(r.checks > 0 && r.checks == r.checks_passed, "{path}");
    }
}

#[test]
fn formatting_is_idempotent_and_keeps_every_value() {
    for (path, text) in examples() {
        let once = layout_syntax::format::format(&text).unwrap_or_else(|e| panic!("{path}: {e:?}"));
        let twice = layout_syntax::format::format(&once).unwrap();
        assert_eq!(once, twice, "{path}: not idempotent");
        let (before, after) = (check(&text), check(&once));
        assert_eq!(
            values(&text),
            values(&once),
            "{path}: formatting changed a value"
        );
        assert_eq!(before.checks_passed, after.checks_passed, "{path}");
        assert!(
            after.diagnostics.is_empty(),
            "{path}: {:?}",
            after.diagnostics
        );
    }
}

/// For every `check ... == N` line, N + 1 must fail that check, at its span.
#[test]
fn changing_a_number_fails_the_check_at_its_span() {
    let mut mutated = 0;
    for (path, text) in examples() {
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            if !line.starts_with("check ") {
                continue;
            }
            // The last integer literal of an expected value written out
            // (`== 17`, `== (dim0 = 4, dim1 = 8)`, `== [0, 1, ...]`).
            let Some(eq) = line.rfind("==") else { continue };
            let rhs = &line[eq..];
            let computed = rhs
                .as_bytes()
                .windows(2)
                .any(|w| (w[0].is_ascii_alphanumeric() || w[0] == b'_') && w[1] == b'(');
            if computed {
                continue;
            }
            let bytes = line.as_bytes();
            let Some(end) = (0..bytes.len()).rev().find(|&i| bytes[i].is_ascii_digit()) else {
                continue;
            };
            let mut begin = end;
            while begin > 0 && bytes[begin - 1].is_ascii_digit() {
                begin -= 1;
            }
            if begin > 0 && (bytes[begin - 1].is_ascii_alphabetic() || bytes[begin - 1] == b'_') {
                continue; // part of a name such as dim1
            }
            let n: u64 = line[begin..=end].parse().unwrap();
            let mut m = text.clone();
            m.replace_range(start + begin..start + end + 1, &(n + 1).to_string());
            let r = check(&m);
            // A mutated number may also make an argument invalid (E03xx);
            // either way the error belongs to this check.
            let failures = &r.diagnostics;
            assert!(
                !failures.is_empty(),
                "{path}: changing {n} to {} on `{}` went unnoticed",
                n + 1,
                line.trim_end()
            );
            // The item runs on over indented continuation lines.
            let item_end = start
                + text[start..]
                    .split_inclusive('\n')
                    .enumerate()
                    .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
                    .map(|(_, l)| l.len())
                    .sum::<usize>();
            assert!(
                failures
                    .iter()
                    .all(|d| start <= d.span.start && d.span.end <= item_end),
                "{path}: `{}`: diagnostics outside the check: {:?}",
                line.trim_end(),
                failures
            );
            mutated += 1;
        }
    }
    assert!(mutated >= 80, "only {mutated} checks were mutated");
}
