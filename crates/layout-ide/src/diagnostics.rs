//! The checker's diagnostics as an editor shows them: the same codes,
//! spans and messages as `layoutc check`, notes folded into the message,
//! labels as related information, and a link to the code's documentation.

use layout_db::{Severity, check_file};

use crate::{Db, SourceFile, Span};

/// Where docs/diagnostics.md is published; each code is a heading there.
pub const DIAGNOSTICS_DOC: &str =
    "https://github.com/layoutc/layoutc/blob/main/docs/diagnostics.md";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorDiagnostic {
    pub span: Span,
    pub severity: Severity,
    pub code: &'static str,
    /// The message, then each note on its own line.
    pub message: String,
    pub related: Vec<(Span, String)>,
    /// The code's section of docs/diagnostics.md.
    pub doc_url: String,
}

pub fn diagnostics(db: &dyn Db, file: SourceFile) -> Vec<EditorDiagnostic> {
    layout_db::capped_diagnostics(&check_file(db, file).diagnostics)
        .iter()
        .map(|d| {
            let message = d.message_with_notes("");
            EditorDiagnostic {
                span: d.span,
                severity: d.severity,
                code: d.code.as_str(),
                message,
                related: d.labels.clone(),
                doc_url: format!("{DIAGNOSTICS_DOC}#{}", d.code.as_str().to_lowercase()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture;

    #[test]
    fn diagnostics_carry_codes_notes_labels_and_links() {
        let (db, file) = fixture::open("let acc = 1\nlet acc = 2\nlet b = ac + 1\n");
        let lines: Vec<String> = diagnostics(&db, file)
            .iter()
            .map(|d| {
                format!(
                    "{} {} {:?} {:?} {}",
                    d.code, d.span, d.message, d.related, d.doc_url
                )
            })
            .collect();
        expect![[r#"
            E0102 16..19 "`acc` is defined twice\nnames are file-wide; rename one of the two" [(Span { start: 4, end: 7 }, "first defined here")] https://github.com/layoutc/layoutc/blob/main/docs/diagnostics.md#e0102
            E0101 32..34 "undefined name `ac`\ndid you mean `acc`?" [] https://github.com/layoutc/layoutc/blob/main/docs/diagnostics.md#e0101"#]].assert_eq(&lines.join("\n"));
    }
}
