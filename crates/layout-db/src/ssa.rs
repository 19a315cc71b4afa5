//! The SSA values of a pasted dump (`%41`, `%arg0`, `%acc_62#2`): where
//! each is defined and where it is used, for navigation, highlight, rename
//! and hover on every line of a dump, evaluated or not.
//!
//! MLIR names a value once per function (the printer numbers values per
//! isolated region, so two functions both have a `%0`), and prints a
//! value's definition before its uses (Triton's control flow is
//! structured). So a value's scope is its function, and its first
//! occurrence there is its definition: a result before `=`, a function or
//! block argument, an `scf.for` induction variable or iter_arg.

use layout_syntax::Span;
use layout_syntax::lexer::{Token, lex};

use crate::SourceFile;

/// One occurrence of a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SsaOccurrence {
    /// `%acc_62` for `%acc_62#2` too: the result number is not the name.
    pub name: String,
    /// The name's span in the file (without a `#2` result number).
    pub span: Span,
    /// Which function it is in, counted from the start of the file.
    pub scope: u32,
    pub is_definition: bool,
}

/// Every value occurrence of the analysed text, in file order.
#[salsa::tracked(returns(ref))]
pub fn ssa_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<SsaOccurrence> {
    occurrences(&file.analysed_text(db))
}

fn occurrences(text: &str) -> Vec<SsaOccurrence> {
    let (tokens, _) = lex(text);
    let mut scope = 0u32;
    let mut defined = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, (token, at)) in tokens.iter().enumerate() {
        match token {
            // `tt.func`, `llvm.func`, `func.func`: a new numbering.
            Token::Ident("func")
                if i >= 2
                    && tokens[i - 1].0 == Token::Ctrl('.')
                    && matches!(tokens[i - 2].0, Token::Ident(_)) =>
            {
                scope += 1;
                defined.clear();
            }
            Token::Ssa(text) => {
                let name = text.split_once('#').map_or(*text, |(base, _)| base);
                let is_definition = defined.insert(name.to_string());
                out.push(SsaOccurrence {
                    name: name.to_string(),
                    span: Span::new(at.start, at.start + name.len()),
                    scope,
                    is_definition,
                });
            }
            _ => {}
        }
    }
    out
}

/// The occurrence under `offset` (on the name or just after it).
pub fn ssa_at(db: &dyn salsa::Database, file: SourceFile, offset: usize) -> Option<&SsaOccurrence> {
    let values = ssa_values(db, file);
    let i = values.partition_point(|o| o.span.end < offset);
    values
        .get(i)
        .filter(|o| o.span.start <= offset && offset <= o.span.end)
}

/// Every occurrence of the value `at` names, its definition first.
pub fn same_value<'a>(
    db: &'a dyn salsa::Database,
    file: SourceFile,
    at: &SsaOccurrence,
) -> Vec<&'a SsaOccurrence> {
    ssa_values(db, file)
        .iter()
        .filter(|o| o.scope == at.scope && o.name == at.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_scoped_by_function_and_defined_first() {
        let text = "tt.func @a(%arg0: i32) {\n  %0 = arith.addi %arg0, %arg0 : i32\n  %r:2 = scf.for %i = %0 to %0 step %0 iter_args(%x = %0) -> (i32) {\n  }\n  tt.return %r#1 : i32\n}\ntt.func @b() {\n  %0 = arith.constant 1 : i32\n}\n";
        let found: Vec<String> = occurrences(text)
            .iter()
            .map(|o| {
                format!(
                    "{}{}@{}",
                    if o.is_definition { "def " } else { "" },
                    &text[o.span.start..o.span.end],
                    o.scope
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                "def %arg0@1",
                "def %0@1",
                "%arg0@1",
                "%arg0@1",
                "def %r@1",
                "def %i@1",
                "%0@1",
                "%0@1",
                "%0@1",
                "def %x@1",
                "%0@1",
                "%r@1",
                "def %0@2"
            ]
        );
    }
}
