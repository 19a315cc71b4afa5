//! What an editor user waits for from `layoutc lsp`, measured as a client
//! sees it: from the request (or the edit) on the server's stdin to the
//! answer (or the diagnostics) on its stdout, with the server's resident
//! memory. Two files: the 5,001-line file of the editor benchmark, and the
//! costly check of `benches/padded_4096.lay` (docs/performance.md).
//!
//! `cargo bench -p layoutc --bench server_round_trip`

use std::time::{Duration, Instant};

use layout_test_support::lsp_client::{Client, URI, pos};
use layout_test_support::specs::editor_file;
use serde_json::json;

const COSTLY: &str = include_str!("../../../benches/padded_4096.lay");

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// A line of the server's `/proc/PID/status` (`VmRSS`, `VmHWM`), in MiB.
fn memory_mib(client: &Client, field: &str) -> f64 {
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", client.child.id())).unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// Line and UTF-16 column of byte `offset` of an ASCII `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let col = offset - before.rfind('\n').map_or(0, |i| i + 1);
    (line, col)
}

fn hover(client: &mut Client, line: usize, character: usize) -> Duration {
    let t = Instant::now();
    let answer = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(line, character)}),
    );
    let took = t.elapsed();
    assert!(answer["result"]["contents"].is_object(), "{answer}");
    took
}

/// Replaces line `line` with `text` as one incremental change, and waits
/// for the diagnostics of `version`.
fn edit_line(client: &mut Client, version: i64, line: usize, text: &str) -> (Duration, usize) {
    let t = Instant::now();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": version},
               "contentChanges": [{"range": {"start": pos(line, 0), "end": pos(line + 1, 0)},
                                   "text": text}]}),
    );
    let diagnostics = client.diagnostics(version);
    (t.elapsed(), diagnostics.as_array().map_or(0, Vec::len))
}

fn large_file(binary: &str, quick: bool) {
    let blocks = if quick { 20 } else { 500 };
    let text = editor_file(blocks);
    let mut client = Client::start(binary);
    let t = Instant::now();
    client.open(URI, &text);
    assert_eq!(client.diagnostics(1), json!([]));
    let first = t.elapsed();

    let mut places: Vec<usize> = text.match_indices("check t").map(|(i, _)| i + 7).collect();
    places.extend(text.match_indices("#b").map(|(i, _)| i + 1));
    let hovers: Vec<Duration> = places
        .iter()
        .cycle()
        .take(if quick { 50 } else { 2000 })
        .map(|&p| {
            let (line, col) = line_col(&text, p);
            hover(&mut client, line, col)
        })
        .collect();
    let (hover_median, hover_p99) = percentiles(hovers);

    // Typing inside one declaration that a check uses: `let nK = K` -> 1000, 1001, ...
    let edited = text
        .lines()
        .position(|l| l == format!("let n{} = {}", blocks / 2, blocks / 2))
        .expect("the edited line");
    let edits = if quick { 20 } else { 5000 };
    let mut rss = vec![memory_mib(&client, "VmRSS")];
    let rechecks: Vec<Duration> = (0..edits)
        .map(|k| {
            let line = format!("let n{} = {}\n", blocks / 2, 1000 + k);
            let (took, errors) = edit_line(&mut client, 2 + k as i64, edited, &line);
            assert_eq!(errors, 1, "the check of m{} fails", blocks / 2);
            if (k + 1) % (edits / 4) == 0 {
                rss.push(memory_mib(&client, "VmRSS"));
            }
            took
        })
        .collect();
    let (recheck_median, recheck_p99) = percentiles(rechecks);
    println!("{}-line file, through the server:", text.lines().count());
    println!("  first diagnostics {first:.2?}");
    println!("  hover: median {hover_median:.2?}, p99 {hover_p99:.2?}");
    println!(
        "  diagnostics after an edit: median {recheck_median:.2?}, p99 {recheck_p99:.2?} ({edits} edits)"
    );
    let rss: Vec<String> = rss.iter().map(|m| format!("{m:.1}")).collect();
    println!(
        "  server resident memory (MiB) before the edits and after each quarter of them: {}",
        rss.join(", ")
    );
    client.shutdown();
}

fn costly_check(binary: &str) {
    let mut client = Client::start(binary);
    let t = Instant::now();
    client.open(URI, COSTLY);
    assert_eq!(client.diagnostics(1), json!([]));
    let first = t.elapsed();
    let check_line = COSTLY.lines().position(|l| l.starts_with("check")).unwrap();
    let t = Instant::now();
    let hints = client.inlay_labels(URI);
    let first_hints = t.elapsed();
    assert!(hints.contains("31"), "{hints}");
    let hover_check = hover(&mut client, check_line, 0);
    let (edit_elsewhere, _) = edit_line(&mut client, 2, 0, "// an edit elsewhere\n");
    // Five edits of the check itself, 100 ms apart, each while the last one counts.
    let mut version = 2;
    for expected in [32, 33, 34, 35, 30] {
        version += 1;
        let text = COSTLY.replace("== 31", &format!("== {expected}"));
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        if expected != 30 {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let t = Instant::now();
    let last = client.diagnostics(version);
    let after_last_edit = t.elapsed();
    assert_eq!(last.as_array().map(Vec::len), Some(1), "{last}");
    println!("benches/padded_4096.lay (a 4096x4096 padded bank_conflicts), through the server:");
    println!("  first diagnostics {first:.2?}");
    println!("  then the inlay hints {first_hints:.2?}, a hover on the check {hover_check:.2?}");
    println!("  diagnostics after an edit of another line {edit_elsewhere:.2?}");
    println!(
        "  five edits of the check, 100 ms apart: the last one's diagnostics {after_last_edit:.2?} after it"
    );
    println!(
        "  server peak resident memory {:.0} MiB",
        memory_mib(&client, "VmHWM")
    );
    client.shutdown();
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let binary = env!("CARGO_BIN_EXE_layoutc");
    large_file(binary, quick);
    costly_check(binary);
}
