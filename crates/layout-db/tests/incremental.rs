//! Editing one declaration re-evaluates only it and what uses it; salsa's
//! event log says which queries ran.

use std::sync::{Arc, Mutex};

use layout_db::{Database, SourceFile, check_file};

const FILE: &str = r#"#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
layout blk = tensor<64x64xf16, #blocked>
layout sm = tensor<64x64xf16, #shared>
let n = 3
let m = n * 2
layout t = cute ((4,2),4):((8,4),1)
layout x = xla f32[3,5]{1,0:T(2,2)}
check bank_conflicts(blk, sm) == 0
check m == 6
check t(1) == 8
check offset(x, [2, 3]) == 17
"#;

/// The parses (one per item) that ran since the last call to
/// [`evaluations`].
fn parses(log: &Arc<Mutex<Vec<String>>>) -> usize {
    let log = log.lock().unwrap();
    log.iter().filter(|e| e.contains("parse_item")).count()
}

/// The evaluations (one per item) that ran since the last call.
fn evaluations(log: &Arc<Mutex<Vec<String>>>) -> usize {
    let mut log = log.lock().unwrap();
    let n = log.iter().filter(|e| e.contains("evaluate_item")).count();
    if std::env::var_os("SHOW_LOG").is_some() {
        eprintln!("{log:#?}");
    }
    log.clear();
    n
}

#[test]
fn editing_one_declaration_reevaluates_only_its_users() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut db = Database::with_execution_log(log.clone());
    let file = SourceFile::open(&mut db, "f.lay".into(), FILE.into());
    let report = check_file(&db, file).clone();
    assert_eq!(report.checks_passed, 4, "{:?}", report.diagnostics);
    // Every item once: 8 declarations and 4 checks.
    assert_eq!(evaluations(&log), 12);

    // Nothing changed: nothing runs.
    let _ = check_file(&db, file);
    assert_eq!(evaluations(&log), 0);

    // `let n = 3` -> `let n = 30`: n, m (uses n) and `check m == 6` run again;
    // everything after n moved by one byte and is reused all the same.
    file.edit(&mut db, FILE.replace("let n = 3\n", "let n = 30\n"));
    let report = check_file(&db, file).clone();
    assert_eq!(evaluations(&log), 3);
    assert_eq!(report.checks_passed, 3);
    let failed = &report.diagnostics[0];
    assert_eq!(failed.code.as_str(), "E0401");
    assert!(FILE.replace("let n = 3\n", "let n = 30\n")[failed.span.start..].starts_with("m == 6"));

    // A comment added to n: its text is new, so it is parsed again; the
    // tree is unchanged, so nothing is evaluated again, n included.
    let commented = FILE.replace("let n = 3\n", "let n = 30 // thirty\n");
    file.edit(&mut db, commented.clone());
    let report = check_file(&db, file).clone();
    assert_eq!(report.checks_passed, 3);
    assert_eq!(parses(&log), 1);
    assert_eq!(evaluations(&log), 0);

    // Editing the shared alias re-evaluates #shared, sm and the bank check.
    file.edit(&mut db, commented.replace("maxPhase = 8", "maxPhase = 4"));
    let _ = check_file(&db, file);
    assert_eq!(evaluations(&log), 3);
}

/// What hovers and inlay hints evaluate inside an item is memoized: asking
/// twice, or after an edit elsewhere, does not count the bank conflicts
/// again.
#[test]
fn a_sub_expression_is_evaluated_once() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut db = Database::with_execution_log(log.clone());
    let file = SourceFile::open(&mut db, "f.lay".into(), FILE.into());
    // The `bank_conflicts(blk, sm)` call, as a hover or an inlay hint asks.
    let value_of_call = |db: &Database| {
        let at = layout_db::item_at(db, file, FILE.find("(blk, sm)").unwrap()).unwrap();
        let tree = layout_db::parse_item(db, at.item).item.as_ref().unwrap();
        let mut call = None;
        layout_db::names::for_each_expr(tree, &mut |e, _| {
            if matches!(e.kind, layout_syntax::ExprKind::Call { .. }) && call.is_none() {
                call = Some(e);
            }
        });
        layout_db::position::evaluate_expr(db, at.item, call.unwrap())
    };
    let count = |log: &Arc<Mutex<Vec<String>>>| {
        let mut log = log.lock().unwrap();
        let n = log.iter().filter(|e| e.contains("expr_value")).count();
        log.clear();
        n
    };
    let first = value_of_call(&db);
    assert_eq!(first, Some(layout_db::Value::Int(0)));
    assert_eq!(count(&log), 1);
    assert_eq!(value_of_call(&db), first);
    assert_eq!(count(&log), 0);
    file.edit(&mut db, FILE.replace("let n = 3\n", "let n = 30\n"));
    assert_eq!(value_of_call(&db), first);
    assert_eq!(count(&log), 0);
}
