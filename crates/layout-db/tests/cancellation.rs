//! A query cancelled by an edit (salsa unwinds it with `Cancelled`) is
//! computed again afterwards, not stored as an internal error: the
//! evaluation's panic guard lets cancellation through.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use layout_db::salsa::{self, Database as _, Durability};
use layout_db::{Database, SourceFile, check_file, named_values};

#[test]
fn a_cancelled_evaluation_is_recomputed_not_stored_as_an_error() {
    // The snapshot's first `declared_value` (inside the evaluation of `b`)
    // waits until the main thread has asked for a write, so the next query
    // it makes unwinds with `Cancelled::PendingWrite`.
    let flag_set = Arc::new(AtomicBool::new(false));
    let waited = Arc::new(AtomicBool::new(false));
    let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
    let started_tx = std::sync::Mutex::new(started_tx);
    let mut db = {
        let (flag_set, waited) = (flag_set.clone(), waited.clone());
        Database::with_events(move |event| match &event.kind {
            salsa::EventKind::DidSetCancellationFlag => flag_set.store(true, Ordering::SeqCst),
            salsa::EventKind::WillExecute { .. }
                if format!("{:?}", event.kind).contains("declared_value")
                    && !waited.swap(true, Ordering::SeqCst) =>
            {
                let _ = started_tx.lock().unwrap().send(());
                let deadline = Instant::now() + Duration::from_secs(20);
                while !flag_set.load(Ordering::SeqCst) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            _ => {}
        })
    };
    let text = "let a = 3\nlet b = a * 2\ncheck b == 6\n";
    let file = SourceFile::open(&mut db, "f.lay".into(), text.into());

    // Opening the file wrote inputs, which also raised the flag.
    flag_set.store(false, Ordering::SeqCst);
    let snapshot = db.clone();
    let worker = std::thread::spawn(move || {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            check_file(&snapshot, file).clone()
        }))
        .map_err(|c| c.to_string())
    });
    started_rx.recv().unwrap();
    // Blocks until the snapshot has unwound and been dropped.
    db.synthetic_write(Durability::LOW);
    let outcome = worker.join().unwrap();
    assert_eq!(
        outcome.err().as_deref(),
        Some("cancelled because of pending write")
    );

    let report = check_file(&db, file);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    assert_eq!(report.checks_passed, 1);
    let b = named_values(&db, file).into_iter().find(|v| v.name == "b");
    assert_eq!(b.and_then(|v| v.value), Some(layout_db::Value::Int(6)));
}

/// A solve that would search for seconds stops as soon as its snapshot's
/// token is cancelled (what the language server does before applying an
/// edit, or on `$/cancelRequest`): the search unwinds as salsa's
/// cancellation and is not kept as an answer, so the next revision runs
/// it again.
#[test]
fn a_cancelled_solve_stops_at_once_and_is_not_kept() {
    // A tile-size search over three prime dims: Z3 works until its time
    // limit unless cancelled.
    let text = "solve hard {\n    kind = tiling\n    array = xla f32[10007,10009,997]\n    tile_multiple = [1, 1, 1]\n    min_tile_elements = 1000000\n    max_tile_elements = 4000000\n    timeout = 4000\n}\n";
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut db = Database::with_execution_log(log.clone());
    let file = SourceFile::open(&mut db, "solve.lay".into(), text.into());
    let snapshot = db.clone();
    let token = snapshot.cancellation_token();
    let started = Instant::now();
    let worker = std::thread::spawn(move || {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            check_file(&snapshot, file).clone()
        }))
        .map_err(|c| c.to_string())
    });
    std::thread::sleep(Duration::from_millis(300));
    token.cancel();
    let outcome = worker.join().unwrap();
    let stopped_after = started.elapsed();
    assert!(outcome.is_err(), "the search finished instead of unwinding");
    assert!(
        stopped_after < Duration::from_millis(3500),
        "{stopped_after:?}"
    );

    // A new revision with no input changed: a kept answer would be reused;
    // instead the evaluation runs again, to its time limit.
    db.synthetic_write(Durability::LOW);
    log.lock().unwrap().clear();
    let values = named_values(&db, file);
    assert!(
        log.lock().unwrap().iter().any(|e| e.contains("evaluate")),
        "{:?}",
        log.lock().unwrap()
    );
    let Some(layout_db::Value::Solve(s)) = values
        .into_iter()
        .find(|v| v.name == "hard")
        .and_then(|v| v.value)
    else {
        panic!("no answer")
    };
    assert_eq!(s.status, layout_solve::Status::Timeout, "{}", s.why);
}

/// Counting the bank conflicts of a 4096x4096 padded tensor walks 16
/// million elements (seconds); an edit in the meantime stops the count
/// within milliseconds, through the algebra's poll
/// (`layout_algebra::interrupt`), and nothing of it is kept.
#[test]
fn a_cancelled_count_of_every_element_stops_at_once() {
    let text = "#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>\n\
        #pad = #ttg.padded_shared<[32:+1] {order = [1, 0], shape = [4096, 4096]}>\n\
        check bank_conflicts(tensor<4096x4096xf32, #col>, tensor<4096x4096xf32, #pad>) == 31\n";
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "big.lay".into(), text.into());
    let snapshot = db.clone();
    let token = snapshot.cancellation_token();
    let worker = std::thread::spawn(move || {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            check_file(&snapshot, file).clone()
        }))
        .map_err(|c| c.to_string())
    });
    std::thread::sleep(Duration::from_millis(200));
    let cancelled_at = Instant::now();
    token.cancel();
    let outcome = worker.join().unwrap();
    let stopped_after = cancelled_at.elapsed();
    assert!(
        outcome.is_err(),
        "the count finished instead of unwinding: {outcome:?}"
    );
    assert!(stopped_after < Duration::from_secs(1), "{stopped_after:?}");
}
