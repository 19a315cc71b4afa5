//! Tokens of a `.lay` file (chumsky). `//` comments and whitespace are
//! skipped; an unknown character is reported and skipped, so lexing never
//! fails.

use chumsky::prelude::*;

use crate::ast::{Span, SyntaxError};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Token<'src> {
    Int(i64),
    Str(&'src str),
    Ident(&'src str),
    /// `#`
    Hash,
    /// One of `( ) [ ] { } < > , : = . ;`
    Ctrl(char),
    /// `== != <= >= -> + - * / %`
    Op(&'src str),
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Int(n) => write!(f, "{n}"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Ident(s) => write!(f, "{s}"),
            Token::Hash => write!(f, "#"),
            Token::Ctrl(c) => write!(f, "{c}"),
            Token::Op(s) => write!(f, "{s}"),
        }
    }
}

pub type Spanned<T> = (T, SimpleSpan);

fn lexer<'src>()
-> impl Parser<'src, &'src str, Vec<Spanned<Token<'src>>>, extra::Err<Rich<'src, char>>> {
    let int = text::int(10).to_slice().try_map(|s: &str, span| {
        s.parse::<i64>()
            .map(Token::Int)
            .map_err(|_| Rich::custom(span, "this integer does not fit in 64 bits"))
    });
    let string = just('"')
        .ignore_then(none_of("\"\n").repeated().to_slice())
        .then_ignore(just('"'))
        .map(Token::Str);
    let op = choice((just("=="), just("!="), just("<="), just(">="), just("->")))
        .or(one_of("+-*/%").to_slice())
        .map(Token::Op);
    let ctrl = one_of("()[]{}<>,:=.;").map(Token::Ctrl);
    let hash = just('#').to(Token::Hash);
    let ident = any()
        .filter(|c: &char| c.is_ascii_alphabetic() || *c == '_')
        .then(
            any()
                .filter(|c: &char| c.is_ascii_alphanumeric() || *c == '_')
                .repeated(),
        )
        .to_slice()
        .map(Token::Ident);
    let token = choice((int, string, op, ctrl, hash, ident));
    let comment = just("//")
        .then(any().and_is(just('\n').not()).repeated())
        .padded();
    token
        .map_with(|t, e| (t, e.span()))
        .padded_by(comment.repeated())
        .padded()
        .recover_with(skip_then_retry_until(any().ignored(), end()))
        .repeated()
        .collect()
}

/// Tokens of `src` and the characters that are not part of any token.
pub fn lex(src: &str) -> (Vec<Spanned<Token<'_>>>, Vec<SyntaxError>) {
    let (tokens, errors) = lexer().parse(src).into_output_errors();
    let errors = errors
        .into_iter()
        .map(|e| {
            let span = Span::new(e.span().start, e.span().end);
            let found = src.get(span.start..span.end).unwrap_or("");
            SyntaxError {
                span,
                message: format!("unexpected character '{found}'"),
            }
        })
        .collect();
    (tokens.unwrap_or_default(), errors)
}
