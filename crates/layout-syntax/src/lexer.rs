//! Tokens of a `.lay` file (logos). `//` comments and whitespace are
//! skipped; an unknown character is reported and skipped, so lexing never
//! fails.

use chumsky::span::SimpleSpan;

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

/// The raw token classes; [`lex`] turns them into [`Token`]s.
#[derive(logos::Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[\s]+")]
#[logos(skip r"//[^\n]*")]
enum Raw {
    #[regex("[0-9]+")]
    Int,
    #[regex(r#""[^"\n]*""#)]
    Str,
    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    #[token("#")]
    Hash,
    #[token("==")]
    #[token("!=")]
    #[token("<=")]
    #[token(">=")]
    #[token("->")]
    #[regex("[-+*/%]")]
    Op,
    #[regex(r"[()\[\]{}<>,:=.;]")]
    Ctrl,
}

/// The token a raw class and its text stand for; `None` for an integer
/// that does not fit in 64 bits.
fn token(raw: Raw, text: &str) -> Option<Token<'_>> {
    Some(match raw {
        Raw::Int => Token::Int(text.parse().ok()?),
        Raw::Str => Token::Str(&text[1..text.len() - 1]),
        Raw::Ident => Token::Ident(text),
        Raw::Hash => Token::Hash,
        Raw::Op => Token::Op(text),
        Raw::Ctrl => Token::Ctrl(text.chars().next().unwrap_or(' ')),
    })
}

/// Tokens of `src` and the characters that are not part of any token.
/// A stray character is reported and skipped, so lexing never fails.
pub fn lex(src: &str) -> (Vec<Spanned<Token<'_>>>, Vec<SyntaxError>) {
    use logos::Logos;
    let mut tokens = Vec::with_capacity(src.len() / 4);
    let mut errors = Vec::new();
    for (raw, range) in Raw::lexer(src).spanned() {
        let text = &src[range.clone()];
        let span = Span::new(range.start, range.end);
        let Ok(raw) = raw else {
            errors.push(SyntaxError {
                span,
                message: format!("unexpected character '{text}'"),
            });
            continue;
        };
        match token(raw, text) {
            Some(token) => tokens.push((token, (range.start..range.end).into())),
            None => errors.push(SyntaxError {
                span,
                message: "this integer does not fit in 64 bits".into(),
            }),
        }
    }
    (tokens, errors)
}

/// The tokens of `src` from byte `start` on, lazily, with their start
/// offsets; stray characters are skipped. For looking at the first tokens
/// of a line without lexing the whole file.
pub fn lex_from(
    src: &str,
    start: usize,
) -> impl Iterator<Item = (Token<'_>, std::ops::Range<usize>)> {
    use logos::Logos;
    let rest = &src[start..];
    Raw::lexer(rest).spanned().filter_map(move |(raw, range)| {
        let token = token(raw.ok()?, &rest[range.clone()])?;
        Some((token, start + range.start..start + range.end))
    })
}
