//! Mutated examples never crash the checker or the formatter: random edits
//! (deleted ranges, inserted punctuation and numbers, duplicated lines) of
//! every example file go through parse, format and check, and editing a
//! file in place reports what a fresh check of the edited text reports.

use layout_db::{Database, SourceFile, Value, check_file};
use layout_solve::Status;
use proptest::prelude::*;

fn examples() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lay"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[derive(Clone, Debug)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: String },
    DuplicateLine { line: usize },
    ReplaceNumber { nth: usize, with: String },
}

fn edit() -> impl Strategy<Value = Edit> {
    let pieces = prop_oneof![
        Just("(".to_string()),
        Just(")".to_string()),
        Just("]".to_string()),
        Just("{".to_string()),
        Just("<".to_string()),
        Just(",".to_string()),
        Just("=".to_string()),
        Just("#".to_string()),
        Just("\"".to_string()),
        Just("\n".to_string()),
        Just(" check ".to_string()),
        Just("layout".to_string()),
        Just("cute".to_string()),
        Just("-".to_string()),
        Just("é".to_string()),
        "[0-9]{1,20}",
        "[a-z_]{1,8}",
    ];
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), pieces).prop_map(|(at, text)| Edit::Insert { at, text }),
        any::<usize>().prop_map(|line| Edit::DuplicateLine { line }),
        (
            any::<usize>(),
            prop_oneof![
                Just("0".to_string()),
                Just("-1".to_string()),
                Just("3".to_string()),
                Just("4096".to_string()),
                Just("1048576".to_string()),
                Just("4294967297".to_string()),
                Just("9223372036854775807".to_string()),
            ]
        )
            .prop_map(|(nth, with)| Edit::ReplaceNumber { nth, with }),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, e: &Edit) -> String {
    let mut s = text.to_string();
    match e {
        Edit::Delete { at, len } => {
            let a = boundary(&s, *at);
            let b = boundary(&s, (a + len).min(s.len()));
            s.replace_range(a..b.max(a), "");
        }
        Edit::Insert { at, text } => {
            let a = boundary(&s, *at);
            s.insert_str(a, text);
        }
        Edit::DuplicateLine { line } => {
            let lines: Vec<&str> = s.split_inclusive('\n').collect();
            if !lines.is_empty() {
                let l = lines[line % lines.len()].to_string();
                let at: usize = lines[..line % lines.len()].iter().map(|l| l.len()).sum();
                s.insert_str(at, &l);
            }
        }
        Edit::ReplaceNumber { nth, with } => {
            let starts: Vec<usize> = s
                .char_indices()
                .filter(|&(i, c)| {
                    c.is_ascii_digit() && (i == 0 || !s.as_bytes()[i - 1].is_ascii_alphanumeric())
                })
                .map(|(i, _)| i)
                .collect();
            if !starts.is_empty() {
                let a = starts[nth % starts.len()];
                let b = a + s[a..]
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(s.len() - a);
                s.replace_range(a..b, with);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_examples_never_crash(file in 0usize..64, edits in prop::collection::vec(edit(), 1..4)) {
        let all = examples();
        let mut text = all[file % all.len()].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        if let Ok(f) = layout_syntax::format::format(&text) {
            prop_assert_eq!(layout_syntax::format::format(&f), Ok(f.clone()));
        }
        let mut db = Database::default();
        let source = SourceFile::open(&mut db, "m.lay".into(), text.clone());
        let report = check_file(&db, source);
        for d in &report.diagnostics {
            prop_assert!(d.span.start <= d.span.end && d.span.end <= text.len(), "{:?}", d);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// `SourceFile::edit` reuses items by text and pairs the rest in order;
    /// after any sequence of edits the report and the values must be those
    /// of a fresh database that reads the final text.
    #[test]
    fn edited_file_reports_what_a_fresh_check_reports(
        file in 0usize..64,
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let all = examples();
        let mut text = all[file % all.len()].clone();
        let mut db = Database::default();
        let source = SourceFile::open(&mut db, "m.lay".into(), text.clone());
        let _ = check_file(&db, source);
        for e in &edits {
            text = apply(&text, e);
            source.edit(&mut db, text.clone());
            let edited = check_file(&db, source).clone();
            let edited_values = layout_db::named_values(&db, source);

            // A search stopped by its time limit answers with the best it
            // found by then, which no second run need repeat.
            let timed_out = edited_values.iter().any(|v| {
                matches!(&v.value, Some(Value::Solve(s)) if s.status == Status::Timeout)
            });
            if timed_out {
                continue;
            }
            let mut fresh_db = Database::default();
            let fresh = SourceFile::open(&mut fresh_db, "m.lay".into(), text.clone());
            prop_assert_eq!(&edited, check_file(&fresh_db, fresh));
            prop_assert_eq!(edited_values, layout_db::named_values(&fresh_db, fresh));
            prop_assert_eq!(source.text(&db), text.as_str());
        }
    }
}
