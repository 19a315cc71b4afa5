//! Formatting with the CLI's formatter (`layoutc fmt`). The formatter only
//! rewrites the space between tokens, so its answer is given as small
//! edits of whitespace runs: an editor keeps the cursor and marks, and a
//! range is formatted by keeping the edits inside it. A text that does not
//! parse is left alone (the formatter never guesses).

use crate::{Db, SourceFile, Span, TextEdit};

/// The edits that format the whole document.
pub fn format(db: &dyn Db, file: SourceFile) -> Vec<TextEdit> {
    let text = file.text(db);
    match layout_syntax::format::format(text) {
        Ok(formatted) if formatted != text => {
            whitespace_edits(text, &formatted).unwrap_or_else(|| {
                vec![TextEdit {
                    span: Span::new(0, text.len()),
                    new_text: formatted,
                }]
            })
        }
        _ => Vec::new(),
    }
}

/// The edits that format the whitespace touching `range`.
pub fn format_range(db: &dyn Db, file: SourceFile, range: Span) -> Vec<TextEdit> {
    let text = file.text(db);
    let Ok(formatted) = layout_syntax::format::format(text) else {
        return Vec::new();
    };
    whitespace_edits(text, &formatted)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.span.end >= range.start && e.span.start <= range.end)
        .collect()
}

/// `old` -> `new` as replacements of whitespace runs, or `None` when the
/// two differ in anything but whitespace.
fn whitespace_edits(old: &str, new: &str) -> Option<Vec<TextEdit>> {
    let ws = |b: u8| b == b' ' || b == b'\t' || b == b'\n' || b == b'\r';
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut edits = Vec::new();
    loop {
        let (si, sj) = (i, j);
        while i < a.len() && ws(a[i]) {
            i += 1;
        }
        while j < b.len() && ws(b[j]) {
            j += 1;
        }
        if old[si..i] != new[sj..j] {
            edits.push(TextEdit {
                span: Span::new(si, i),
                new_text: new[sj..j].to_string(),
            });
        }
        if i == a.len() && j == b.len() {
            return Some(edits);
        }
        if i == a.len() || j == b.len() || a[i] != b[j] {
            return None;
        }
        while i < a.len() && j < b.len() && !ws(a[i]) && a[i] == b[j] {
            i += 1;
            j += 1;
        }
        let a_more = i < a.len() && !ws(a[i]);
        let b_more = j < b.len() && !ws(b[j]);
        if a_more && b_more {
            return None; // a non-whitespace difference
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn apply(text: &str, edits: &[TextEdit]) -> String {
        let mut t = text.to_string();
        for e in edits.iter().rev() {
            t.replace_range(e.span.start..e.span.end, &e.new_text);
        }
        t
    }

    #[test]
    fn formatting_is_the_cli_formatter_as_whitespace_edits() {
        let text = "let   n=3\ncheck n==3\n";
        let (db, file) = fixture::open(text);
        let edits = format(&db, file);
        assert_eq!(apply(text, &edits), "let n = 3\ncheck n == 3\n");
        assert_eq!(edits.len(), 5, "{edits:?}");
        let (db, file) = fixture::open("let n = 3\n");
        assert!(format(&db, file).is_empty());
    }

    #[test]
    fn a_range_formats_only_its_lines() {
        let text = "let   n=3\ncheck n==3\n";
        let (db, file) = fixture::open(text);
        let second_line = Span::new(10, 20);
        assert_eq!(
            apply(text, &format_range(&db, file, second_line)),
            "let   n=3\ncheck n == 3\n"
        );
    }

    #[test]
    fn whitespace_edits_of_every_example_rebuild_the_formatted_file() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "lay") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Examples are formatted; unformat them by squeezing spaces.
            let messy = text.replace(" = ", "=").replace(", ", ",");
            let Ok(formatted) = layout_syntax::format::format(&messy) else {
                continue;
            };
            let edits = whitespace_edits(&messy, &formatted);
            let edits =
                edits.unwrap_or_else(|| panic!("{} changes more than spaces", path.display()));
            assert_eq!(apply(&messy, &edits), formatted, "{}", path.display());
        }
    }
}
