//! Every diagnostic code has an example in the registry of codes (printed
//! as docs/diagnostics.md), and each example triggers its code (with a span
//! inside the file). The rendered
//! messages are snapshots (`UPDATE_EXPECT=1` refreshes them).

use expect_test::expect_file;
use layout_db::{Code, Database, SourceFile, check_file};

/// `(code, example)` pairs from the registry of codes.
fn documented() -> Vec<(String, String)> {
    Code::ALL
        .iter()
        .flat_map(|c| {
            c.examples()
                .into_iter()
                .map(|e| (c.as_str().to_string(), e.to_string()))
        })
        .collect()
}

/// docs/diagnostics.md is the registry printed (`UPDATE_EXPECT=1` rewrites it).
#[test]
fn the_diagnostics_page_is_the_registry_printed() {
    expect_file!["../../../docs/diagnostics.md"].assert_eq(&layout_db::documentation());
}

/// Each code's severity is its letter's, and every diagnostic raised with
/// a code has that severity.
#[test]
fn every_example_raises_its_codes_with_the_registry_severity() {
    for code in Code::ALL {
        for example in code.examples() {
            for d in diagnose(example) {
                assert_eq!(
                    d.severity,
                    d.code.severity(),
                    "{}: {}",
                    d.code.as_str(),
                    d.message
                );
            }
        }
    }
}

fn diagnose(src: &str) -> Vec<layout_db::Diagnostic> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "example.lay".into(), src.into());
    layout_db::capped_diagnostics(&check_file(&db, file).diagnostics)
}

#[test]
fn every_code_is_documented_with_an_example_that_triggers_it() {
    let docs = documented();
    for code in Code::ALL {
        if matches!(
            code,
            Code::Internal
                | Code::NotUtf8
                | Code::TooDeep
                | Code::SharedConversion
                | Code::BankConflicts
        ) {
            // A bug of layoutc's own has no example; a file that is not
            // UTF-8 cannot be written in UTF-8, E0003's is 500 characters
            // long (`nesting_is_bounded` below), and the dump warnings need
            // a dump (tests/cli.rs has both).
            continue;
        }
        assert!(
            docs.iter().any(|(c, _)| c == code.as_str()),
            "{} has no example in docs/diagnostics.md",
            code.as_str()
        );
    }
    let mut rendered = String::new();
    for (code, example) in &docs {
        let diags = diagnose(example);
        assert!(
            diags.iter().any(|d| d.code.as_str() == code),
            "the example of {code} gives {:?}",
            diags
                .iter()
                .map(|d| (d.code.as_str(), &d.message))
                .collect::<Vec<_>>()
        );
        rendered += &format!("== {code}\n");
        for d in &diags {
            assert!(
                d.span.start <= d.span.end && d.span.end <= example.len(),
                "{code}: span {} outside the file",
                d.span
            );
            rendered += &format!(
                "{} {} {:?}: {}\n",
                d.code.as_str(),
                d.span,
                &example[d.span.start..d.span.end],
                d.message
            );
            for n in &d.notes {
                rendered += &format!("  note: {n}\n");
            }
            for (s, m) in &d.labels {
                rendered += &format!("  label {s}: {m}\n");
            }
        }
    }
    expect_file!["snapshots/diagnostics.txt"].assert_eq(&rendered);
}

#[test]
fn one_typo_gives_one_diagnostic_and_the_rest_still_checks() {
    let src = "layout a = identity_1d(4, \"i\", \"o\")\nlayout b = compose(a, a\nlayout c = invert(a)\ncheck c(3) == 3\ncheck c(3) == 2\n";
    let diags = diagnose(src);
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0001", "E0401"], "{diags:?}");
    // The failing check is the second one.
    assert!(src[diags[1].span.start..].starts_with("c(3) == 2"));
}

/// A solve block that cannot mean anything is an error at the key that
/// says so: a key given twice (not the last one silently winning), a
/// non-positive number named as the number it is, and fixed offset bases
/// that depend on each other (no layout has them; no search is started).
#[test]
fn contradictory_solve_keys_are_errors_at_their_keys() {
    let head = "target = sm80\n#w = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n#r = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>\n";
    let block = |extra: &str| {
        format!(
            "{head}solve s {{\n    kind = swizzle\n    write = tensor<64x64xf16, #w>\n    read = tensor<64x64xf16, #r>\n{extra}}}\n"
        )
    };
    for (extra, at, message) in [
        (
            "    family = linear\n    family = triton\n",
            "family = triton",
            "`family` is given twice; a solve block takes each key once",
        ),
        (
            "    instructions = best\n    instruction = vector\n",
            "instruction = vector",
            "`instruction` is given twice; a solve block takes each key once",
        ),
        (
            "    budget = -1\n",
            "-1",
            "`budget` is a positive integer (bytes of shared memory), not -1",
        ),
        (
            "    fixed = [[0, 1], [0, 2], [0, 3]]\n",
            "[[0, 1], [0, 2], [0, 3]]",
            "fixed offset basis 2 is [0, 3], which the bases before it already reach (XOR-ing them): the bases of a layout are independent, so no layout has these",
        ),
    ] {
        let src = block(extra);
        let diags = diagnose(&src);
        let errors: Vec<_> = diags
            .iter()
            .filter(|d| d.code.as_str() == "E0315")
            .collect();
        assert_eq!(errors.len(), 1, "{extra}: {diags:#?}");
        assert_eq!(errors[0].message, message);
        assert!(
            src[errors[0].span.start..].starts_with(at),
            "{extra}: {diags:#?}"
        );
    }
}

/// No input exhausts the stack: an item nested deeper than the limit is one
/// E0003 at the token that passes it, and the items around it are checked.
#[test]
fn nesting_is_bounded() {
    // On a thread as large as the CLI's and the server's.
    std::thread::Builder::new()
        .stack_size(layout_db::STACK_BYTES)
        .spawn(deep_items)
        .unwrap()
        .join()
        .unwrap();
}

fn deep_items() {
    let limit = layout_syntax::parser::MAX_NESTING;
    let deep = |depth: usize| format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
    let sum = |terms: usize| vec!["1"; terms].join(" + ");
    let cases = [
        ("parentheses", format!("let a = {}", deep(10_000))),
        ("a flat sum", format!("let a = {}", sum(3_000))),
        (
            "negations",
            format!("let a = {}true", "not ".repeat(100_000)),
        ),
        (
            "brackets",
            format!("let a = {}1{}", "[".repeat(5_000), "]".repeat(5_000)),
        ),
        ("indexing", format!("let a = [1]{}", "[0]".repeat(5_000))),
        (
            "a CuTe tuple",
            format!("check cute {}:1 == cute 1:1", deep(5_000)),
        ),
        (
            "a pasted type",
            format!(
                "%0 = tt.splat %p : {}f16{}",
                "tensor<4x".repeat(5_000),
                ">".repeat(5_000)
            ),
        ),
    ];
    for (what, item) in cases {
        let src = format!("let before = 1\n{item}\ncheck before + 1 == 3\n");
        let diags = diagnose(&src);
        let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["E0003", "E0401"], "{what}: {diags:#?}");
        assert!(diags[0].span.start > src.find('\n').unwrap(), "{what}");
    }
    // Just inside the limit, the item is read and evaluated.
    let src = format!("let a = {}\ncheck a == 2\n", deep(limit));
    let codes: Vec<String> = diagnose(&src)
        .iter()
        .map(|d| d.code.as_str().into())
        .collect();
    assert_eq!(codes, ["E0401"]);
    let src = format!("let a = {}\ncheck a == {limit}\n", sum(limit));
    assert!(diagnose(&src).is_empty());
}

/// A type that is not one is said at its declaration, not at a later use.
#[test]
fn a_bad_tensor_type_is_reported_where_it_is_written() {
    let blocked = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    for (element, note) in [("f13", Some("did you mean `f16`?")), ("banana", None)] {
        let src = format!("layout t = tensor<64x64x{element}, {blocked}>\n");
        let diags = diagnose(&src);
        assert_eq!(diags.len(), 1, "{diags:#?}");
        assert_eq!(diags[0].code.as_str(), "E0205");
        assert_eq!(
            diags[0].message,
            format!("`{element}` is not an MLIR element type")
        );
        assert_eq!(
            diags[0].notes.first().map(String::as_str) == note,
            note.is_some()
        );
    }
    let diags = diagnose(&format!(
        "#a = {blocked}\nlayout t = tensor<64x64xf16, #a\n"
    ));
    assert_eq!(diags[0].code.as_str(), "E0001");
    assert!(
        diags[0].message.contains("'>' closing the tensor type"),
        "{diags:#?}"
    );
}
