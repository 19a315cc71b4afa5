//! `layoutc solve`: every `solve` block of a file, answered — in words, or
//! as the JSON of CONTRACT §4 — and with `--write`, each answer recorded in
//! its block as `answer = ...` (atomically, the rest of the file as it was).

use std::path::{Path, PathBuf};

use layout_db::value::{SolveKind, SolveOutcome, SwizzleOutcome, TilingOutcome};
use layout_db::{NamedValue, Value};
use serde_json::{Value as Json, json};

use crate::files;
use crate::layout_json::linear_json;
use crate::report::{ariadne_report, check_text, diagnostic_json, source_cache};
use crate::{ShowFormat, Usage};
use layout_ide::LineIndex;
use layout_ide::present::solution_text;

pub fn solve(
    path: &str,
    format: ShowFormat,
    write: bool,
    timeout_ms: Option<u64>,
) -> Result<u8, Usage> {
    let source = files::read(Path::new(path))?;
    let progress = Progress::start(path, format);
    let checked = check_text(
        PathBuf::from(path),
        source,
        true,
        &layout_syntax::dump::SectionChoice::LastTritonGpu,
        timeout_ms,
    )?;
    progress.finish();
    let solved: Vec<(&NamedValue, &SolveOutcome)> = checked
        .values
        .iter()
        .filter_map(|v| match &v.value {
            Some(Value::Solve(s)) => Some((v, s.as_ref())),
            _ => None,
        })
        .collect();
    let index = LineIndex::new(&checked.text);
    let failed = checked.report.has_errors();
    match format {
        ShowFormat::Json => {
            let out = json!({
                "file": path,
                "solutions": solved.iter().map(|(v, s)| solution_json(v, s)).collect::<Vec<_>>(),
                "diagnostics": checked.report.diagnostics.iter().map(|d| diagnostic_json(&checked.text, &index, d)).collect::<Vec<_>>(),
            });
            crate::outln!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
        }
        ShowFormat::Text => {
            let mut out = String::new();
            if solved.is_empty() {
                out += &format!("{path}: no solve blocks\n");
            }
            for (v, s) in &solved {
                let (line, col) = index.line_col_chars(&checked.text, v.span.start);
                out += &format!(
                    "{} (line {line}:{col}): {}  solved in {} ms\n\n",
                    v.name,
                    solution_text(s),
                    solve_ms(s)
                );
            }
            let mut cache = source_cache(path, &checked.text);
            for d in &checked.report.diagnostics {
                out += &ariadne_report(&mut cache, d, false);
            }
            crate::out!("{out}");
        }
    }
    if write && !failed {
        let updated = record_answers(&checked.text, &solved);
        if updated != checked.text {
            crate::fmt_cmd::write_atomically(Path::new(path), &updated)
                .map_err(|e| Usage(format!("cannot write {path}: {e}")))?;
        }
    }
    Ok(u8::from(failed))
}

/// A spinner on stderr while a terminal waits for the search.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn start(path: &str, format: ShowFormat) -> Progress {
        use std::io::IsTerminal;
        if format == ShowFormat::Json || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new_spinner().with_message(format!("solving {path}"));
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
        Progress(Some(bar))
    }

    fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}

pub fn solve_ms(s: &SolveOutcome) -> f64 {
    (s.solve_time.0 as f64 / 100.0).round() / 10.0
}

fn solution_json(v: &NamedValue, s: &SolveOutcome) -> Json {
    let mut j = json!({"name": v.name});
    if let Json::Object(rest) = outcome_json(s) {
        j.as_object_mut().expect("object").extend(rest);
    }
    j
}

/// One answer as JSON (CONTRACT §4), without its name.
pub fn outcome_json(s: &SolveOutcome) -> Json {
    let mut j = json!({});
    match &s.kind {
        SolveKind::Swizzle(w) => {
            j["kind"] = json!("swizzle");
            j["status"] = json!(s.status.name());
            swizzle_json(&mut j, w);
        }
        SolveKind::Tiling(t) => {
            j["kind"] = json!("tiling");
            j["status"] = json!(s.status.name());
            tiling_json(&mut j, t);
        }
    }
    j["reason"] = json!(s.why);
    j["solve_ms"] = json!(solve_ms(s));
    j
}

/// The answer as a Gluon constructor (`ttgl.SwizzledSharedLayout(...)`),
/// from the first of its `#ttg` notations Gluon has a class for.
fn gluon_notation(notations: &[(String, String)]) -> Option<String> {
    notations.iter().find_map(|(_, text)| {
        if !text.starts_with("#ttg.") {
            return None;
        }
        let parsed = layout_syntax::parse(&format!("layout x = {text}\n"));
        match &parsed.items.first()?.kind {
            layout_syntax::ItemKind::Layout { value, .. } => match &value.kind {
                layout_syntax::ExprKind::Attribute(a) => layout_syntax::gluon::constructor_text(a),
                _ => None,
            },
            _ => None,
        }
    })
}

fn swizzle_json(j: &mut Json, w: &SwizzleOutcome) {
    j["family"] = json!(w.family.name());
    j["instructions"] = json!(w.instructions.name());
    j["machine"] = json!(w.machine);
    if let Some(answer) = &w.answer {
        j["linear"] = linear_json(&answer.layout);
        let mut notations: serde_json::Map<String, Json> = w
            .notations
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        if let Some(text) = gluon_notation(&w.notations) {
            notations.insert("gluon".into(), json!(text));
        }
        j["notations"] = Json::Object(notations);
        j["read_conflicts"] = json!(w.read_conflicts);
        j["write_conflicts"] = json!(w.write_conflicts);
        j["read_wavefronts"] = json!(w.read_wavefronts);
        j["write_wavefronts"] = json!(w.write_wavefronts);
        j["scratch_bytes"] = json!(w.scratch_bytes);
        j["accesses"] = json!(
            w.accesses
                .iter()
                .map(|a| {
                    let mut access = json!({
                        "access": a.label,
                        "instruction": a.opcode,
                        "instructions": a.instructions,
                        "wavefronts": a.wavefronts,
                        "ideal_wavefronts": a.ideal,
                        "conflicts": a.conflicts,
                    });
                    // A paired access the compiler pairs only in part.
                    if !a.mix.is_empty() {
                        access["mix"] = a
                            .mix
                            .iter()
                            .map(|(m, n)| (m.to_string(), json!(n)))
                            .collect::<serde_json::Map<_, _>>()
                            .into();
                    }
                    access
                })
                .collect::<Vec<_>>()
        );
    }
    if let Some((write, read)) = w.lower_bound {
        j["lower_bound"] = json!({"read_wavefronts": read, "write_wavefronts": write});
    }
    if let Some((write, read)) = w.baseline {
        j["triton"] = json!({"read_wavefronts": read, "write_wavefronts": write});
    }
}

fn tiling_json(j: &mut Json, t: &TilingOutcome) {
    if let Some(x) = &t.answer {
        j["xla"] = json!({
            "text": x.to_string(),
            "padded_elements": x.padded_elements(),
            "padded_bytes": x.padded_bytes(),
        });
        // Every order and format was scored: the least is the bound.
        j["lower_bound"] = json!({"padded_bytes": x.padded_bytes()});
    }
    j["candidates"] = json!(t.candidates);
}

/// Each block gets `answer = ...` (replacing an earlier one); nothing else
/// in the file changes.
fn record_answers(text: &str, solved: &[(&NamedValue, &SolveOutcome)]) -> String {
    let mut edits: Vec<layout_ide::TextEdit> = solved
        .iter()
        .filter_map(|(v, s)| {
            let answer = layout_ide::answer::answer_text(s)?;
            layout_ide::answer::record_edit(text, v.item_span, &answer)
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    let mut out = text.to_string();
    for e in edits {
        out.replace_range(e.span.start..e.span.end, &e.new_text);
    }
    out
}
