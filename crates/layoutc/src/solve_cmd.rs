//! `layoutc solve`: every `solve` block of a file, answered — in words, or
//! as the JSON of CONTRACT §4 — and with `--write`, each answer recorded in
//! its block as `answer = ...` (atomically, the rest of the file as it was).

use std::path::{Path, PathBuf};

use layout_ide::checked::{NamedValue, Value};
use layout_ide::checked::{SolveKind, SolveOutcome, SwizzleOutcome, TilingOutcome};

use crate::files;
use crate::json_schema as schema;
use crate::layout_json::linear_json;
use crate::report::{ariadne_report, check_text, diagnostics_json, source_cache};
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
        &layout_ide::syntax::SectionChoice::LastTritonGpu,
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
            let out = schema::SolveOutput {
                file: path.to_string(),
                solutions: solved
                    .iter()
                    .map(|(v, s)| outcome_json(Some(&v.name), s))
                    .collect(),
                diagnostics: diagnostics_json(&checked.text, &index, &checked.report),
            };
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

/// One answer as JSON (CONTRACT §4), with the block's name when it is
/// listed among `solve`'s solutions.
pub fn outcome_json(name: Option<&str>, s: &SolveOutcome) -> schema::Solution {
    let (kind, answer) = match &s.kind {
        SolveKind::Swizzle(w) => (
            "swizzle",
            schema::SolveAnswer::Swizzle(Box::new(swizzle_json(w))),
        ),
        SolveKind::Tiling(t) => ("tiling", schema::SolveAnswer::Tiling(tiling_json(t))),
    };
    schema::Solution {
        name: name.map(str::to_string),
        kind,
        status: s.status.name(),
        answer,
        reason: s.why.clone(),
        solve_ms: solve_ms(s),
    }
}

/// The answer as a Gluon constructor (`ttgl.SwizzledSharedLayout(...)`),
/// from the first of its `#ttg` notations Gluon has a class for.
fn gluon_notation(notations: &[(String, String)]) -> Option<String> {
    notations.iter().find_map(|(_, text)| {
        if !text.starts_with("#ttg.") {
            return None;
        }
        let parsed = layout_ide::syntax::parse(&format!("layout x = {text}\n"));
        match &parsed.items.first()?.kind {
            layout_ide::syntax::ItemKind::Layout { value, .. } => match &value.kind {
                layout_ide::syntax::ExprKind::Attribute(a) => {
                    layout_ide::syntax::constructor_text(a)
                }
                _ => None,
            },
            _ => None,
        }
    })
}

fn swizzle_json(w: &SwizzleOutcome) -> schema::Swizzle {
    let pair = |(write, read): (u64, u64)| schema::WavefrontPair {
        read_wavefronts: read,
        write_wavefronts: write,
    };
    schema::Swizzle {
        family: w.family.name(),
        instructions: w.instructions.name(),
        machine: w.machine.clone(),
        layout: w.answer.as_ref().map(|answer| {
            let mut notations: indexmap::IndexMap<String, String> =
                w.notations.iter().cloned().collect();
            if let Some(text) = gluon_notation(&w.notations) {
                notations.insert("gluon".into(), text);
            }
            schema::SwizzleLayout {
                linear: linear_json(&answer.layout),
                notations,
                read_conflicts: w.read_conflicts,
                write_conflicts: w.write_conflicts,
                read_wavefronts: w.read_wavefronts,
                write_wavefronts: w.write_wavefronts,
                scratch_bytes: w.scratch_bytes,
                accesses: w
                    .accesses
                    .iter()
                    .map(|a| schema::AccessCost {
                        access: a.label.clone(),
                        instruction: a.opcode.clone(),
                        instructions: a.instructions,
                        wavefronts: a.wavefronts,
                        ideal_wavefronts: a.ideal,
                        conflicts: a.conflicts,
                        mix: a.mix.iter().map(|(m, n)| (m.to_string(), *n)).collect(),
                    })
                    .collect(),
            }
        }),
        lower_bound: w.lower_bound.map(pair),
        triton: w.baseline.map(pair),
    }
}

/// An XLA shape with what its tiles pad it to.
pub fn xla_json(x: &layout_ide::algebra::XlaShape) -> schema::Xla {
    schema::Xla {
        text: x.to_string(),
        padded_elements: x.padded_elements(),
        padded_bytes: x.padded_bytes(),
        offsets: None,
    }
}

fn tiling_json(t: &TilingOutcome) -> schema::Tiling {
    schema::Tiling {
        xla: t.answer.as_ref().map(xla_json),
        // Every order and format was scored: the least is the bound.
        lower_bound: t.answer.as_ref().map(|x| schema::PaddedBytes {
            padded_bytes: x.padded_bytes(),
        }),
        candidates: t.candidates,
    }
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
