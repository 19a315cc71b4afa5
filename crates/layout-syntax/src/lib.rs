//! The `.lay` language: tokens, the syntax tree and a parser that never
//! fails. [`parse`] returns every item it could read and one diagnostic per
//! problem; an item with an error does not stop the ones after it.

pub mod ast;
pub mod dump;
pub mod format;
pub mod gluon;
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
    parse_each(&[src]).pop().expect("one text, one parse")
}

/// Parses several texts (the items of a file, each on its own) with one
/// parser: building it is the costly part.
pub fn parse_each(texts: &[&str]) -> Vec<Parse> {
    let lexed: Vec<_> = texts.iter().map(|src| lexer::lex(src)).collect();
    let ranges: Vec<Vec<std::ops::Range<usize>>> = texts
        .iter()
        .zip(&lexed)
        .map(|(src, (tokens, _))| parser::split_items(src, tokens))
        .collect();
    let runs = texts
        .iter()
        .zip(&lexed)
        .zip(&ranges)
        .flat_map(|((src, (tokens, _)), ranges)| {
            ranges.iter().map(move |r| (*src, &tokens[r.clone()]))
        });
    let mut parsed = parser::parse_items(runs).into_iter();
    texts
        .iter()
        .zip(&lexed)
        .zip(&ranges)
        .map(|((_, (_, lex_errors)), ranges)| {
            let mut errors = lex_errors.clone();
            let mut items = Vec::with_capacity(ranges.len());
            for (item, item_errors) in parsed.by_ref().take(ranges.len()) {
                // A stray character already has its diagnostic; the parse
                // error it causes in the same item would only repeat it.
                if !lex_errors
                    .iter()
                    .any(|e| item.span.start <= e.span.start && e.span.end <= item.span.end)
                {
                    errors.extend(item_errors);
                }
                items.push(item);
            }
            errors.sort_by_key(|e| (e.span.start, e.span.end));
            Parse { items, errors }
        })
        .collect()
}

/// The name an item's text declares, read from its first tokens as the
/// outline reads it (`#name` for an alias), with the name's span: for an
/// item that does not parse, so that it is still listed by name.
pub fn declared_name(text: &str) -> Option<(String, Span)> {
    use lexer::Token;
    let mut tokens = lexer::lex_from(text, 0);
    let (first, first_range) = tokens.next()?;
    if let Token::Ssa(_) = first {
        // `%41 = ttg.convert_layout ...`: the outline's rule.
        let ahead: Vec<Token> = lexer::lex_from(text, 0).take(5).map(|(t, _)| t).collect();
        return parser::analysed_result_name(&ahead)
            .map(|name| (name, Span::new(first_range.start, first_range.end)));
    }
    let (second, range) = tokens.next()?;
    let span = Span::new(range.start, range.end);
    match (first, second) {
        (Token::Ident("layout" | "let" | "solve" | "convert" | "target"), Token::Ident(n)) => {
            Some((n.to_string(), span))
        }
        (Token::Hash, Token::Ident(n)) => {
            Some((format!("#{n}"), Span::new(span.start - 1, span.end)))
        }
        _ => None,
    }
}

/// One top-level item's source, found without parsing it: where its text
/// starts and ends, and the name it declares (`#name` for a Triton alias).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemSource {
    pub range: std::ops::Range<usize>,
    /// `layout`, `let`, `check`, `convert`, `solve`, `target`, `module`, `#`
    /// (alias), or
    /// the first word of an item that starts with none of these.
    pub keyword: String,
    pub name: Option<String>,
}

/// Cuts a file into the texts of its items. Each item runs from its first
/// token to the next item's first token, so its text parses on its own and
/// an edit inside one item leaves the others' texts unchanged.
///
/// Tokens never span lines, so only the first tokens of each line need
/// lexing: this reads a few tokens per line instead of the whole file, and
/// agrees with [`outline_by_tokens`] (a property test checks it).
pub fn outline(src: &str) -> Vec<ItemSource> {
    use lexer::Token;
    // Whether the token at `span`, the first of its line, starts an item.
    let starts_item = |tok: &Token, span: &std::ops::Range<usize>| {
        let line_start = src[..span.start].rfind('\n').map_or(0, |n| n + 1);
        let indented = span.start > line_start;
        if !parser::needs_lookahead_at(tok, indented) {
            return parser::starts_item(tok, None, None);
        }
        let mut after = lexer::lex_from(src, span.end).map(|(t, _)| t);
        let (second, third) = (after.next(), after.next());
        parser::starts_item_at(tok, second.as_ref(), third.as_ref(), indented)
    };
    // The token after `span` when it belongs to the same item: on the same
    // line, or on a later line that it does not start an item on.
    let next_in_item = |span: &std::ops::Range<usize>| {
        let (tok, next) = lexer::lex_from(src, span.end).next()?;
        let later_line = src[span.end..next.start].contains('\n');
        (!later_line || !starts_item(&tok, &next)).then_some(tok)
    };
    let mut starts: Vec<(usize, String, Option<String>)> = Vec::new();
    let mut line_start = 0;
    let mut first_token_seen = false;
    while line_start <= src.len() {
        let line_end = src[line_start..]
            .find('\n')
            .map_or(src.len(), |i| line_start + i);
        let first = lexer::lex_from(src, line_start).next();
        if let Some((_, span)) = &first
            && span.start > line_end
        {
            // Blank lines and comments up to the next token: go to its line
            // (a log with most of its text blanked out has long runs).
            line_start = src[..span.start].rfind('\n').map_or(0, |n| n + 1);
            continue;
        }
        if first.is_none() {
            break;
        }
        if let Some((tok, span)) = first
            && span.start < line_end
        {
            let is_start = starts_item(&tok, &span) || !first_token_seen;
            first_token_seen = true;
            if is_start {
                let (keyword, name) = match tok {
                    Token::Ident(k)
                        if matches!(k, "layout" | "let" | "solve" | "target" | "convert") =>
                    {
                        let name = match next_in_item(&span) {
                            Some(Token::Ident(n)) => Some(n.to_string()),
                            _ => None,
                        };
                        (k.to_string(), name)
                    }
                    Token::Ident(k) => (k.to_string(), None),
                    Token::Ssa(_) => {
                        let ahead: Vec<Token> = lexer::lex_from(src, span.start)
                            .take(5)
                            .map(|(t, _)| t)
                            .collect();
                        ("%".to_string(), parser::analysed_result_name(&ahead))
                    }
                    Token::Hash => {
                        let name = match next_in_item(&span) {
                            Some(Token::Ident(n)) => Some(format!("#{n}")),
                            _ => None,
                        };
                        ("#".to_string(), name)
                    }
                    _ => (src[span.clone()].to_string(), None),
                };
                starts.push((span.start, keyword, name));
            }
        }
        line_start = line_end + 1;
    }
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .map(|s| s.0)
        .chain([src.len()])
        .collect();
    starts
        .into_iter()
        .zip(ends)
        .map(|((start, keyword, name), end)| ItemSource {
            range: start..end,
            keyword,
            name,
        })
        .collect()
}

/// [`outline`] from the whole token stream: the reference it is tested
/// against.
#[doc(hidden)]
pub fn outline_by_tokens(src: &str) -> Vec<ItemSource> {
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
            Token::Ident(k) if matches!(*k, "layout" | "let" | "solve" | "convert") => {
                (k.to_string(), word(1))
            }
            Token::Ident(k) if *k == "target" => (k.to_string(), word(1)),
            Token::Ssa(_) => {
                let ahead: Vec<Token> = toks.iter().take(5).map(|(t, _)| t.clone()).collect();
                ("%".to_string(), parser::analysed_result_name(&ahead))
            }
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
