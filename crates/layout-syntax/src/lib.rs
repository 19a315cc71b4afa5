//! The `.lay` language: tokens, the syntax tree and a parser that never
//! fails. [`parse`] returns every item it could read and one diagnostic per
//! problem; an item with an error does not stop the ones after it.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use ast::*;

/// The items of a file and the syntax errors found on the way.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Parse {
    pub items: Vec<Item>,
    pub errors: Vec<SyntaxError>,
}

/// Parses a whole `.lay` file.
pub fn parse(src: &str) -> Parse {
    let (tokens, mut errors) = lexer::lex(src);
    let lex_errors = errors.clone();
    let items = parser::split_items(src, &tokens)
        .into_iter()
        .map(|range| {
            let mut item_errors = Vec::new();
            let item = parser::parse_item(src, &tokens[range], &mut item_errors);
            // A stray character already has its diagnostic; the parse error it
            // causes in the same item would only repeat it.
            if !lex_errors
                .iter()
                .any(|e| item.span.start <= e.span.start && e.span.end <= item.span.end)
            {
                errors.extend(item_errors);
            }
            item
        })
        .collect();
    errors.sort_by_key(|e| (e.span.start, e.span.end));
    Parse { items, errors }
}
