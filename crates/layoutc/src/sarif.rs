//! SARIF 2.1.0 for code scanning (`layoutc check --format sarif`): one
//! run, one rule per diagnostic code, one result per diagnostic. Only the
//! properties layoutc fills are typed here.

use layout_ide::LineIndex;
use layout_ide::Severity;
use serde::Serialize;

use crate::report::Checked;

#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help: Help,
    help_uri: String,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
    byte_offset: usize,
    byte_length: usize,
}

/// The log of one `check` run.
pub fn log(checked: &[Checked]) -> Log {
    let rules = layout_ide::checked::Code::ALL
        .iter()
        .map(|c| {
            let help = c.explanation();
            // The explanation is the documentation's first paragraph.
            let full = help.split("\n\n").next().unwrap_or(help).replace('\n', " ");
            Rule {
                id: c.as_str(),
                name: c.title(),
                short_description: Text {
                    text: c.title().to_string(),
                },
                full_description: Text { text: full },
                help: Help {
                    text: help,
                    markdown: help,
                },
                help_uri: format!(
                    "https://github.com/layoutc/layoutc/blob/main/docs/diagnostics.md#{}",
                    c.as_str().to_lowercase()
                ),
            }
        })
        .collect();
    let mut results = Vec::new();
    for c in checked {
        let index = LineIndex::new(&c.text);
        for d in &c.report.diagnostics {
            let (start_line, start_column) = index.line_col_chars(&c.text, d.span.start);
            let (end_line, end_column) = index.line_col_chars(&c.text, d.span.end);
            results.push(SarifResult {
                rule_id: d.code.as_str(),
                rule_index: layout_ide::checked::Code::ALL
                    .iter()
                    .position(|x| *x == d.code)
                    .expect("every code is in Code::ALL"),
                level: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                message: Text {
                    text: d.message_with_notes("note: "),
                },
                locations: [Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation { uri: uri(&c.path) },
                        region: Region {
                            start_line,
                            start_column,
                            end_line,
                            end_column,
                            byte_offset: d.span.start,
                            byte_length: d.span.end - d.span.start,
                        },
                    },
                }],
            });
        }
    }
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "layoutc",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: "https://github.com/layoutc/layoutc",
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
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
