//! Tokens of a `.lay` file (logos). `//` comments and whitespace are
//! skipped; an unknown character is reported and skipped, so lexing never
//! fails.

use chumsky::span::SimpleSpan;

use crate::ast::{Span, SyntaxError, SyntaxErrorKind};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Token<'src> {
    Int(i64),
    /// A floating-point literal as MLIR prints it (`1.000000e+00`), or a
    /// hexadecimal one (`0xFF800000`): only pasted operations carry them.
    Number(&'src str),
    Str(&'src str),
    Ident(&'src str),
    /// An MLIR SSA value with its `%`: `%41`, `%c-1_i32`, `%acc_62#2`.
    Ssa(&'src str),
    /// `#`
    Hash,
    /// One of `( ) [ ] { } < > , : = . ;`, MLIR's `! @ ^ ?` or XLA's `~`
    Ctrl(char),
    /// `== != <= >= -> + - * / %`
    Op(&'src str),
}

impl std::fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Int(n) => write!(f, "{n}"),
            Token::Number(s) => write!(f, "{s}"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Ident(s) | Token::Ssa(s) => write!(f, "{s}"),
            Token::Hash => write!(f, "#"),
            Token::Ctrl(c) => write!(f, "{c}"),
            Token::Op(s) => write!(f, "{s}"),
        }
    }
}

pub type Spanned<T> = (T, SimpleSpan);

/// The raw token classes; [`lex`] turns them into [`Token`]s.
///
/// Whitespace and comments are skipped by [`raw_tokens`], not by logos, and
/// logos sees a bounded window of text: its generated matcher calls itself
/// once per byte of a match, which in an unoptimised build overflows the
/// stack on a long run of spaces.
#[derive(logos::Logos, Clone, Copy, Debug, PartialEq, Eq)]
enum Raw {
    #[regex("[0-9]+")]
    Int,
    #[regex(r"[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?")]
    #[regex("0x[0-9A-Fa-f]+")]
    Number,
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
    #[regex(r"[()\[\]{}<>,:=.;!@^?~]")]
    Ctrl,
}

/// The raw tokens of `src[start..]` with their ranges in `src`; a `%`
/// that begins an MLIR SSA name (`%c-1_i32`, `%acc#2`) is widened to cover
/// it. `Err` marks a stray character.
fn raw_tokens(
    src: &str,
    start: usize,
) -> impl Iterator<Item = (Result<Raw, ()>, std::ops::Range<usize>)> + '_ {
    use logos::Logos;
    let mut pos = start;
    std::iter::from_fn(move || {
        pos = skip_trivia(src, pos);
        if pos >= src.len() {
            return None;
        }
        let mut end = (pos + WINDOW).min(src.len());
        while !src.is_char_boundary(end) {
            end -= 1;
        }
        let mut lexer = Raw::lexer(&src[pos..end]);
        let raw = lexer.next()?;
        let mut range = pos + lexer.span().start..pos + lexer.span().end;
        if raw == Ok(Raw::Op) && lexer.slice() == "%" {
            range.end += ssa_name_length(src, range.start);
        }
        pos = range.end.max(pos + 1);
        Some((raw, range))
    })
}

/// The longest text logos matches at once (a longer token is cut).
const WINDOW: usize = 4096;

/// The first byte at or after `pos` that is not whitespace or inside a
/// `//` comment.
fn skip_trivia(src: &str, mut pos: usize) -> usize {
    let bytes = src.as_bytes();
    loop {
        let rest = &src[pos..];
        let trimmed = rest.trim_start();
        pos += rest.len() - trimmed.len();
        if bytes.get(pos..pos + 2) == Some(b"//") {
            pos = src[pos..].find('\n').map_or(src.len(), |n| pos + n);
        } else {
            return pos;
        }
    }
}

/// How many bytes after the `%` at `at` belong to an SSA name: none when
/// the `%` follows a value (`n%2` is a remainder) or is followed by a
/// space. MLIR's suffix-id is `[0-9]+` or `[A-Za-z$._-][A-Za-z0-9$._-]*`;
/// a result index `#2` may follow.
fn ssa_name_length(src: &str, at: usize) -> usize {
    let bytes = src.as_bytes();
    let continues_value = at > 0
        && matches!(bytes[at - 1], b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b')' | b']' | b'"');
    if continues_value {
        return 0;
    }
    let id = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'$' | b'.' | b'_' | b'-');
    let mut n = bytes[at + 1..].iter().take_while(|&&b| id(b)).count();
    if n == 0 {
        return 0;
    }
    let after = at + 1 + n;
    if bytes.get(after) == Some(&b'#') {
        let digits = bytes[after + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 {
            n += 1 + digits;
        }
    }
    n
}

/// The token a raw class and its text stand for; `None` for an integer
/// that does not fit in 64 bits.
fn token(raw: Raw, text: &str) -> Option<Token<'_>> {
    Some(match raw {
        Raw::Int => Token::Int(text.parse().ok()?),
        Raw::Number => Token::Number(text),
        Raw::Str => Token::Str(&text[1..text.len() - 1]),
        Raw::Ident => Token::Ident(text),
        Raw::Hash => Token::Hash,
        Raw::Op if text.len() > 1 && text.starts_with('%') => Token::Ssa(text),
        Raw::Op => Token::Op(text),
        Raw::Ctrl => Token::Ctrl(text.chars().next().unwrap_or(' ')),
    })
}

/// Tokens of `src` and the characters that are not part of any token.
/// A stray character is reported and skipped, so lexing never fails.
pub fn lex(src: &str) -> (Vec<Spanned<Token<'_>>>, Vec<SyntaxError>) {
    let mut tokens = Vec::with_capacity(src.len() / 4);
    let mut errors = Vec::new();
    for (raw, range) in raw_tokens(src, 0) {
        let text = &src[range.clone()];
        let span = Span::new(range.start, range.end);
        let Ok(raw) = raw else {
            errors.push(SyntaxError {
                span,
                message: format!("unexpected character '{text}'"),
                kind: SyntaxErrorKind::Unexpected,
            });
            continue;
        };
        match token(raw, text) {
            Some(token) => tokens.push((token, (range.start..range.end).into())),
            None => errors.push(SyntaxError {
                span,
                message: "this integer does not fit in 64 bits".into(),
                kind: SyntaxErrorKind::Unexpected,
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
    raw_tokens(src, start).filter_map(move |(raw, range)| {
        let token = token(raw.ok()?, &src[range.clone()])?;
        Some((token, range))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_of_anything_lex_without_exhausting_the_stack() {
        let text = format!(
            "{}// {}\nlet {} = 1",
            " \n".repeat(200_000),
            "c".repeat(300_000),
            "x".repeat(100_000),
        );
        let (tokens, errors) = lex(&text);
        assert!(errors.is_empty());
        assert_eq!(
            tokens.first().map(|t| t.0.clone()),
            Some(Token::Ident("let"))
        );
        assert_eq!(tokens.last().map(|t| t.0.clone()), Some(Token::Int(1)));
        // A 100 000-byte name is cut into tokens of at most 4 KB.
        let total: usize = tokens
            .iter()
            .filter(|t| matches!(t.0, Token::Ident(n) if n.starts_with('x')))
            .map(|t| t.1.end - t.1.start)
            .sum();
        assert_eq!(total, 100_000);
    }
}
