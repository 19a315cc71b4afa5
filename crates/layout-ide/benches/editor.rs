//! What an editor user waits for, on a 5,000-line file: a hover (median
//! and p99 over many places), the re-check after typing inside one
//! declaration, and the memory after 10,000 edits.
//!
//! `cargo bench -p layout-ide --bench editor` (figures in docs/performance.md).

use std::time::{Duration, Instant};

use layout_db::{Database, SourceFile, check_file};
use layout_test_support::specs::editor_file as file;

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test` runs benches with no
    // such flag and should stay quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let blocks = if quick { 20 } else { 500 };
    let text = file(blocks);
    let lines = text.lines().count();
    let mut db = Database::default();
    let file_input = SourceFile::open(&mut db, "bench.lay".into(), text.clone());
    let start = Instant::now();
    let report = check_file(&db, file_input);
    assert_eq!(
        report.checks,
        report.checks_passed,
        "{:?}",
        report.diagnostics.first()
    );
    let first = start.elapsed();

    // Hovers: on every name use of the file's checks, in a fixed order.
    let mut places: Vec<usize> = text.match_indices("check t").map(|(i, _)| i + 7).collect();
    places.extend(text.match_indices("#b").map(|(i, _)| i + 1));
    let mut hovers = Vec::new();
    for &p in places.iter().cycle().take(if quick { 50 } else { 2000 }) {
        let t = Instant::now();
        let h = layout_ide::hover::hover(&db, file_input, p);
        hovers.push(t.elapsed());
        assert!(h.is_some(), "no hover at {p}");
    }
    let (hover_median, hover_p99) = percentiles(hovers);

    // Re-check after an edit inside one declaration (`let n7 = 7` -> 8, 9, ...).
    let target = format!("let n{} = {}\n", blocks / 2, blocks / 2);
    let at = text.find(&target).unwrap();
    let mut current = text.clone();
    let mut rechecks = Vec::new();
    let edits = if quick { 20 } else { 200 };
    for k in 0..edits {
        let new_line = format!("let n{} = {}\n", blocks / 2, 1000 + k);
        let end = at + current[at..].find('\n').unwrap() + 1;
        current.replace_range(at..end, &new_line);
        let t = Instant::now();
        file_input.edit(&mut db, current.clone());
        let r = check_file(&db, file_input);
        rechecks.push(t.elapsed());
        assert_eq!(r.checks - r.checks_passed, 1);
    }
    let (recheck_median, recheck_p99) = percentiles(rechecks);

    // Memory over many edits: it must not grow with the number of edits.
    let before = rss_kib();
    let many = if quick { 100 } else { 10_000 };
    for k in 0..many {
        let new_line = format!("let n{} = {}\n", blocks / 2, k % 97);
        let end = at + current[at..].find('\n').unwrap() + 1;
        current.replace_range(at..end, &new_line);
        file_input.edit(&mut db, current.clone());
        let _ = check_file(&db, file_input);
    }
    let after = rss_kib();

    println!("{lines}-line file: first check {first:.2?}");
    println!("hover: median {hover_median:.2?}, p99 {hover_p99:.2?}");
    println!("re-check after an edit: median {recheck_median:.2?}, p99 {recheck_p99:.2?}");
    println!("resident memory: {before} KiB before {many} more edits, {after} KiB after");
}
