//! The `.lay` language: tokens, the syntax tree and a parser that never
//! fails. [`parse`] returns every item it could read and one diagnostic per
//! problem; an item with an error does not stop the ones after it.

pub mod ast;
pub mod format;
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

/// One top-level item's source, found without parsing it: where its text
/// starts and ends, and the name it declares (`#name` for a Triton alias).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemSource {
    pub range: std::ops::Range<usize>,
    /// `layout`, `let`, `check`, `solve`, `target`, `module`, `#` (alias), or
    /// the first word of an item that starts with none of these.
    pub keyword: String,
    pub name: Option<String>,
}

/// Cuts a file into the texts of its items. Each item runs from its first
/// token to the next item's first token, so its text parses on its own and
/// an edit inside one item leaves the others' texts unchanged.
pub fn outline(src: &str) -> Vec<ItemSource> {
    use lexer::Token;
    let (tokens, _) = lexer::lex(src);
    let ranges = parser::split_items(src, &tokens);
    let mut items = Vec::with_capacity(ranges.len());
    for (k, range) in ranges.iter().enumerate() {
        let toks = &tokens[range.clone()];
        let Some((first, first_span)) = toks.first() else {
            continue;
        };
        let end = ranges
            .get(k + 1)
            .and_then(|r| tokens.get(r.start))
            .map_or(src.len(), |(_, s)| s.start);
        let word = |i: usize| match toks.get(i) {
            Some((Token::Ident(w), _)) => Some(w.to_string()),
            _ => None,
        };
        let (keyword, name) = match first {
            Token::Hash => ("#".to_string(), word(1).map(|n| format!("#{n}"))),
            Token::Ident(k) if matches!(*k, "layout" | "let" | "solve") => (k.to_string(), word(1)),
            Token::Ident(k) if *k == "target" => (k.to_string(), word(1)),
            Token::Ident(k) => (k.to_string(), None),
            _ => (src[first_span.start..first_span.end].to_string(), None),
        };
        items.push(ItemSource {
            range: first_span.start..end,
            keyword,
            name,
        });
    }
    items
}
