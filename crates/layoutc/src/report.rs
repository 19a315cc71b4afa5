//! `layoutc check`: evaluates files in parallel and reports diagnostics as
//! text (ariadne), JSON, SARIF 2.1.0 or GitHub workflow annotations.

use std::path::PathBuf;

use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use layout_db::{Database, Diagnostic, FileReport, Severity, SourceFile, check_file};
use layout_syntax::Span;
use layout_syntax::dump::SectionChoice;
use serde_json::{Value as Json, json};

use crate::files;
use crate::{CheckFormat, Usage};
use layout_ide::LineIndex;

/// One checked file.
pub struct Checked {
    pub path: PathBuf,
    pub text: String,
    pub report: FileReport,
    /// The named declarations and their values (only when asked for).
    pub values: Vec<layout_db::NamedValue>,
    /// The kernel summary of each `tt.func` of a dump (with the values).
    pub kernels: Vec<layout_db::KernelSummary>,
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
    let mut db = Database::default();
    let selection = match section {
        SectionChoice::LastTritonGpu => layout_syntax::dump::select(&text),
        chosen => layout_syntax::dump::select_with(&text, chosen)
            .map_err(|why| Usage(format!("{}: --section: {why}", path.display())))?,
    };
    let file =
        SourceFile::open_selecting(&mut db, path.display().to_string(), text.clone(), selection);
    if solver_timeout_ms.is_some() {
        use layout_db::salsa::Setter;
        file.set_solver_timeout_ms(&mut db).to(solver_timeout_ms);
    }
    let mut report = check_file(&db, file).clone();
    if let Some(d) = source.not_utf8 {
        // The first bad byte outside comments and strings is also a stray
        // character; E0002 already says so there.
        report
            .diagnostics
            .retain(|e| !(e.code == layout_db::Code::Syntax && e.span == d.span));
        report.diagnostics.insert(0, d);
        // A binary's text is left empty: it holds nothing because it was
        // not read, which E0002 says.
        report
            .diagnostics
            .retain(|e| e.code != layout_db::Code::NothingHere);
    }
    // What the command line shows of a file: the first hundred and a count.
    report.diagnostics = layout_db::capped_diagnostics(&report.diagnostics);
    let (values, kernels) = if with_values {
        (
            layout_db::named_values(&db, file),
            layout_db::kernel_summaries(&db, file).clone(),
        )
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
            let worker = std::thread::Builder::new().stack_size(layout_db::STACK_BYTES);
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
            serde_json::to_string_pretty(&sarif(&checked)).expect("JSON")
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
pub fn span_json(text: &str, index: &LineIndex, s: Span) -> Json {
    let (line, column) = index.line_col_chars(text, s.start);
    json!({"start": s.start, "end": s.end, "line": line, "column": column})
}

pub fn diagnostic_json(text: &str, index: &LineIndex, d: &Diagnostic) -> Json {
    let mut j = json!({
        "severity": d.severity.as_str(),
        "code": d.code.as_str(),
        "message": d.message,
        "span": span_json(text, index, d.span),
    });
    if !d.notes.is_empty() {
        j["notes"] = json!(d.notes);
    }
    if !d.labels.is_empty() {
        j["labels"] = Json::Array(
            d.labels
                .iter()
                .map(|(s, m)| json!({"message": m, "span": span_json(text, index, *s)}))
                .collect(),
        );
    }
    j
}

fn json_report(checked: &[Checked]) -> Json {
    let files: Vec<Json> = checked
        .iter()
        .map(|c| {
            let index = LineIndex::new(&c.text);
            json!({
                "file": c.path.display().to_string(),
                "checks": c.report.checks,
                "checks_passed": c.report.checks_passed,
                "diagnostics": c.report.diagnostics.iter().map(|d| diagnostic_json(&c.text, &index, d)).collect::<Vec<_>>(),
            })
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
    json!({"files": files, "errors": errors})
}

/// SARIF 2.1.0: one run, one rule per diagnostic code.
fn sarif(checked: &[Checked]) -> Json {
    let rules: Vec<Json> = layout_db::Code::ALL
        .iter()
        .map(|c| {
            let help = c.explanation();
            // The explanation is the documentation's first paragraph.
            let full = help.split("\n\n").next().unwrap_or(help).replace('\n', " ");
            json!({
                "id": c.as_str(),
                "name": c.title(),
                "shortDescription": {"text": c.title()},
                "fullDescription": {"text": full},
                "help": {"text": help, "markdown": help},
                "helpUri": format!("https://github.com/layoutc/layoutc/blob/main/docs/diagnostics.md#{}", c.as_str().to_lowercase()),
            })
        })
        .collect();
    let mut results = Vec::new();
    for c in checked {
        let index = LineIndex::new(&c.text);
        for d in &c.report.diagnostics {
            let (line, col) = index.line_col_chars(&c.text, d.span.start);
            let (end_line, end_col) = index.line_col_chars(&c.text, d.span.end);
            let text = d.message_with_notes("note: ");
            results.push(json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": layout_db::Code::ALL.iter().position(|x| *x == d.code),
                "level": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&c.path)},
                        "region": {
                            "startLine": line, "startColumn": col,
                            "endLine": end_line, "endColumn": end_col,
                            "byteOffset": d.span.start, "byteLength": d.span.end - d.span.start,
                        }
                    }
                }],
            }));
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "layoutc",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/layoutc/layoutc",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A path as a URI: a relative path as a relative reference (resolved
/// against the repository by code scanning), an absolute one as a `file://`
/// URI (SARIF forbids a relative reference that starts with `/`).
fn uri(path: &std::path::Path) -> String {
    if path.is_absolute()
        && let Ok(url) = url::Url::from_file_path(path)
    {
        return url.to_string();
    }
    // A relative reference: each segment percent-encoded as a URI path
    // segment, `/` between them.
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'#')
        .add(b'%')
        .add(b'<')
        .add(b'>')
        .add(b'?')
        .add(b'`')
        .add(b'{')
        .add(b'}')
        .add(b'/')
        .add(b'\\');
    let s = path.display().to_string().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    s.split('/')
        .map(|segment| percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
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

#[cfg(test)]
mod tests {
    use super::uri;
    use std::path::Path;

    /// Relative paths stay relative references, every segment escaped;
    /// absolute ones are `file://` URIs as the `url` crate writes them.
    #[test]
    fn paths_become_uris() {
        assert_eq!(uri(Path::new("./specs/a b#1.lay")), "specs/a%20b%231.lay");
        assert_eq!(uri(Path::new("kernels/ü.ttgir")), "kernels/%C3%BC.ttgir");
        assert_eq!(uri(Path::new("/tmp/x y.lay")), "file:///tmp/x%20y.lay");
    }
}
