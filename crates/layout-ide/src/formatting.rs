//! Formatting with the CLI's formatter (`layoutc fmt`): one edit that
//! replaces the text, or none when the text is already formatted or does
//! not parse (the formatter never guesses).

use crate::{Db, SourceFile, Span, TextEdit};

pub fn format(db: &dyn Db, file: SourceFile) -> Vec<TextEdit> {
    let text = file.text(db);
    match layout_syntax::format::format(text) {
        Ok(formatted) if formatted != text => vec![TextEdit {
            span: Span::new(0, text.len()),
            new_text: formatted,
        }],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    #[test]
    fn formatting_is_the_cli_formatter() {
        let (db, file) = fixture::open("let   n=3\ncheck n==3\n");
        let edits = format(&db, file);
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].new_text, "let n = 3\ncheck n == 3\n");
        let (db, file) = fixture::open("let n = 3\n");
        assert!(format(&db, file).is_empty());
    }
}
