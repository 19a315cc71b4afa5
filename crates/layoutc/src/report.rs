//! `layoutc check`: evaluates files in parallel and reports diagnostics as
//! text (ariadne), JSON, SARIF 2.1.0 or GitHub workflow annotations.

use std::path::PathBuf;

use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use layout_ide::Severity;
use layout_ide::Span;
use layout_ide::checked::{Diagnostic, FileReport};
use layout_ide::syntax::SectionChoice;

use crate::files;
use crate::json_schema as schema;
use crate::{CheckFormat, Usage};
use layout_ide::LineIndex;

/// One checked file.
pub struct Checked {
    pub path: PathBuf,
    pub text: String,
    pub report: FileReport,
    /// The named declarations and their values (only when asked for).
    pub values: Vec<layout_ide::checked::NamedValue>,
    /// The kernel summary of each `tt.func` of a dump (with the values).
    pub kernels: Vec<layout_ide::checked::KernelSummary>,
}

/// Checks one file in a fresh database.
pub fn check_text(
    path: PathBuf,
    source: files::Source,
    with_values: bool,
    section: &SectionChoice,
    solver_timeout_ms: Option<u64>,
) -> Result<Checked, Usage> {
    let text = source.text;
    let analysis = layout_ide::Analysis::open(path.display().to_string(), text.clone(), section)
        .map_err(|why| Usage(format!("{}: --section: {why}", path.display())))?
        .with_solver_timeout(solver_timeout_ms);
    let mut report = analysis.report();
    if let Some(d) = source.not_utf8 {
        // The first bad byte outside comments and strings is also a stray
        // character; E0002 already says so there.
        report
            .diagnostics
            .retain(|e| !(e.code == layout_ide::checked::Code::Syntax && e.span == d.span));
        report.diagnostics.insert(0, d);
        // A binary's text is left empty: it holds nothing because it was
        // not read, which E0002 says.
        report
            .diagnostics
            .retain(|e| e.code != layout_ide::checked::Code::NothingHere);
    }
    // What the command line shows of a file: the first hundred and a count.
    report.diagnostics = layout_ide::checked::capped_diagnostics(&report.diagnostics);
    let (values, kernels) = if with_values {
        (analysis.named_values(), analysis.kernels())
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(Checked {
        path,
        text,
        report,
        values,
        kernels,
    })
}

/// Checks files on all cores; results come back in input order.
fn check_all(paths: Vec<PathBuf>, section: &SectionChoice) -> Result<Vec<Checked>, Usage> {
    let texts: Vec<(PathBuf, files::Source)> = paths
        .into_iter()
        .map(|p| files::read(&p).map(|t| (p, t)))
        .collect::<Result<_, _>>()?;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(texts.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<Checked, Usage>>> = (0..texts.len()).map(|_| None).collect();
    let slots = std::sync::Mutex::new(&mut results);
    let progress = crate::progress::FileProgress::start(texts.len());
    let work = || {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((p, t)) = texts.get(i) else { break };
            let c = check_text(p.clone(), t.clone(), false, section, None);
            progress.checked(p);
            if let Ok(mut slots) = slots.lock() {
                slots[i] = Some(c);
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            let worker = std::thread::Builder::new().stack_size(layout_ide::STACK_BYTES);
            if worker.spawn_scoped(s, work).is_err() {
                break;
            }
        }
    });
    // Whatever no worker took (none could start) is checked here.
    work();
    progress.finish();
    results.into_iter().flatten().collect()
}

pub fn check(
    paths: &[String],
    format: CheckFormat,
    color: bool,
    section: &SectionChoice,
) -> Result<u8, Usage> {
    let files = files::expand(paths)?;
    let checked = check_all(files, section)?;
    let failed = checked.iter().any(|c| c.report.has_errors());
    match format {
        CheckFormat::Text => crate::out!("{}", text_report(&checked, color)),
        CheckFormat::Json => crate::outln!(
            "{}",
            serde_json::to_string_pretty(&json_report(&checked)).expect("JSON")
        ),
        CheckFormat::Sarif => crate::outln!(
            "{}",
            serde_json::to_string_pretty(&crate::sarif::log(&checked)).expect("JSON")
        ),
        CheckFormat::Github => crate::out!("{}", github(&checked)),
    }
    Ok(u8::from(failed))
}

/// A file as ariadne reads it: made once per file, since ariadne indexes
/// the lines of the whole text when it is made.
pub type SourceCache<'a> = (&'a str, Source<&'a str>);

pub fn source_cache<'a>(path: &'a str, text: &'a str) -> SourceCache<'a> {
    (path, Source::from(text))
}

/// A diagnostic as ariadne draws it, with byte offsets.
pub fn ariadne_report(cache: &mut SourceCache, d: &Diagnostic, color: bool) -> String {
    let path = cache.0;
    let text: &str = cache.1.text();
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let clamp =
        |s: Span| s.start.min(text.len())..s.end.min(text.len()).max(s.start.min(text.len()));
    let mut report = Report::build(kind, (path, clamp(d.span)))
        .with_config(
            Config::default()
                .with_index_type(IndexType::Byte)
                .with_color(color),
        )
        .with_code(d.code.as_str())
        .with_message(&d.message)
        .with_label(Label::new((path, clamp(d.span))).with_message(d.code.title()));
    for (s, m) in &d.labels {
        report = report.with_label(Label::new((path, clamp(*s))).with_message(m));
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    let mut out = Vec::new();
    let _ = report.finish().write(&mut *cache, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn text_report(checked: &[Checked], color: bool) -> String {
    let mut out = String::new();
    for c in checked {
        let path = c.path.display().to_string();
        let mut cache = source_cache(&path, &c.text);
        for d in &c.report.diagnostics {
            out += &ariadne_report(&mut cache, d, color);
        }
    }
    let summary = Summary::of(checked);
    if summary.errors > 0 {
        out += "`layoutc explain CODE` tells more about a code, with an example.\n";
    }
    out += &format!(
        "{} {summary}\n",
        if summary.errors == 0 {
            "ok:"
        } else {
            "failed:"
        }
    );
    out
}

/// What a run of `check` found, for the last line of text and GitHub output.
struct Summary {
    files: usize,
    checks: usize,
    passed: usize,
    errors: usize,
    warnings: usize,
}

impl Summary {
    fn of(checked: &[Checked]) -> Summary {
        let count = |severity| {
            checked
                .iter()
                .flat_map(|c| &c.report.diagnostics)
                .filter(|d| d.severity == severity)
                .count()
        };
        Summary {
            files: checked.len(),
            checks: checked.iter().map(|c| c.report.checks).sum(),
            passed: checked.iter().map(|c| c.report.checks_passed).sum(),
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} file{}: {} of {} check{} passed, {} error{}",
            self.files,
            plural(self.files),
            self.passed,
            self.checks,
            plural(self.checks),
            self.errors,
            plural(self.errors)
        )?;
        if self.warnings > 0 {
            write!(f, ", {} warning{}", self.warnings, plural(self.warnings))?;
        }
        Ok(())
    }
}

/// `{"start", "end", "line", "column"}` (1-based line and column).
pub fn span_json(text: &str, index: &LineIndex, s: Span) -> schema::Span {
    let (line, column) = index.line_col_chars(text, s.start);
    schema::Span {
        start: s.start,
        end: s.end,
        line,
        column,
    }
}

pub fn diagnostic_json(text: &str, index: &LineIndex, d: &Diagnostic) -> schema::Diagnostic {
    schema::Diagnostic {
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: d.message.clone(),
        span: span_json(text, index, d.span),
        notes: d.notes.clone(),
        labels: d
            .labels
            .iter()
            .map(|(s, m)| schema::Label {
                message: m.clone(),
                span: span_json(text, index, *s),
            })
            .collect(),
    }
}

/// Every diagnostic of a report, as JSON.
pub fn diagnostics_json(
    text: &str,
    index: &LineIndex,
    report: &FileReport,
) -> Vec<schema::Diagnostic> {
    report
        .diagnostics
        .iter()
        .map(|d| diagnostic_json(text, index, d))
        .collect()
}

fn json_report(checked: &[Checked]) -> schema::CheckOutput {
    let files = checked
        .iter()
        .map(|c| {
            let index = LineIndex::new(&c.text);
            schema::CheckedFile {
                file: c.path.display().to_string(),
                checks: c.report.checks,
                checks_passed: c.report.checks_passed,
                diagnostics: diagnostics_json(&c.text, &index, &c.report),
            }
        })
        .collect();
    let errors: usize = checked
        .iter()
        .map(|c| {
            c.report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
        })
        .sum();
    schema::CheckOutput { files, errors }
}

/// `::error file=...,line=...::message` lines for GitHub Actions.
fn github(checked: &[Checked]) -> String {
    fn data(s: &str) -> String {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    }
    fn property(s: &str) -> String {
        data(s).replace(':', "%3A").replace(',', "%2C")
    }
    let mut out = String::new();
    for c in checked {
        let index = LineIndex::new(&c.text);
        for d in &c.report.diagnostics {
            let (line, col) = index.line_col_chars(&c.text, d.span.start);
            let (end_line, end_col) = index.line_col_chars(&c.text, d.span.end);
            let message = d.message_with_notes("note: ");
            out += &format!(
                "::{} file={},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}\n",
                d.severity.as_str(),
                property(&c.path.display().to_string()),
                property(&format!("{} {}", d.code.as_str(), d.code.title())),
                data(&message)
            );
        }
    }
    // The run's outcome, shown on the workflow's summary page.
    let summary = Summary::of(checked);
    out += &format!(
        "::notice title=layoutc {}::{}\n",
        if summary.errors == 0 {
            "passed"
        } else {
            "failed"
        },
        data(&summary.to_string())
    );
    out
}
