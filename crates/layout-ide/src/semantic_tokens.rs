//! Semantic tokens: the lexer's tokens classified with what the checker
//! knows. A name is a function when it resolves to a builtin, a variable
//! when it resolves to a declaration (with the `declaration` modifier
//! where it is declared); aliases are types, attribute keys properties.

use layout_db::{Resolution, item_ranges, name_refs, parse_item, resolve};
use layout_syntax::ItemKind;
use layout_syntax::lexer::{Token, lex};

/// The dialects whose operations a Triton dump holds.
const MLIR_DIALECTS: &[&str] = &[
    "tt",
    "ttg",
    "ttng",
    "triton_gpu",
    "scf",
    "arith",
    "math",
    "cf",
    "amdgpu",
    "gpu",
    "nvgpu",
    "nvg",
    "llvm",
    "func",
    "ub",
    "gluon",
];

use crate::{Db, SourceFile, Span, declared_name, docs};

/// The token types, in the order of the legend a client is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenKind {
    Keyword,
    Variable,
    Function,
    Type,
    Property,
    Number,
    String,
    Comment,
    Operator,
}

impl TokenKind {
    pub const ALL: [TokenKind; 9] = [
        TokenKind::Keyword,
        TokenKind::Variable,
        TokenKind::Function,
        TokenKind::Type,
        TokenKind::Property,
        TokenKind::Number,
        TokenKind::String,
        TokenKind::Comment,
        TokenKind::Operator,
    ];

    /// The name LSP's standard legend uses.
    pub fn lsp_name(self) -> &'static str {
        match self {
            TokenKind::Keyword => "keyword",
            TokenKind::Variable => "variable",
            TokenKind::Function => "function",
            TokenKind::Type => "type",
            TokenKind::Property => "property",
            TokenKind::Number => "number",
            TokenKind::String => "string",
            TokenKind::Comment => "comment",
            TokenKind::Operator => "operator",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SemanticToken {
    pub span: Span,
    pub kind: TokenKind,
    /// Where a name is declared.
    pub declaration: bool,
    /// A builtin of the language.
    pub builtin: bool,
}

/// The tokens of the whole file in order, none overlapping, none spanning
/// lines (a client needs both). Besides the names: attribute, solve and
/// target keys are properties; a dump's operation names are functions of
/// the default library, its `%values` variables (declared where defined).
pub fn semantic_tokens(db: &dyn Db, file: SourceFile) -> Vec<SemanticToken> {
    let text = file.text(db);
    // What the checker knows, by span.
    let mut names: std::collections::HashMap<usize, (Span, TokenKind, bool, bool)> =
        Default::default();
    for at in item_ranges(db, file) {
        if let Some((name, span)) = declared_name(db, at.item) {
            let kind = if name.starts_with('#') {
                TokenKind::Type
            } else {
                TokenKind::Variable
            };
            let span = at.to_file(span);
            names.insert(span.start, (span, kind, true, false));
        }
        for r in name_refs(db, at.item) {
            let span = at.to_file(r.span);
            let entry = match resolve(db, file, &r.name) {
                Resolution::Builtin(_) => (span, TokenKind::Function, false, true),
                _ if r.name.starts_with('#') => (span, TokenKind::Type, false, false),
                _ => (span, TokenKind::Variable, false, false),
            };
            names.insert(span.start, entry);
        }
        if let Some(item) = &parse_item(db, at.item).item {
            layout_db::names::for_each_expr(item, &mut |e, _| {
                if let layout_syntax::ExprKind::Attribute(a) = &e.kind {
                    attribute_keys(a, at.range.start, &mut names);
                }
            });
            // The keys of `solve` and `target` blocks.
            if let ItemKind::Solve { fields, .. } | ItemKind::Target { fields, .. } = &item.kind {
                for f in fields {
                    let s = at.to_file(f.key.span);
                    names.insert(s.start, (s, TokenKind::Property, false, false));
                }
            }
        }
    }
    // A dump's SSA values, declared where they are defined.
    for v in layout_db::ssa::ssa_values(db, file) {
        names.insert(
            v.span.start,
            (v.span, TokenKind::Variable, v.is_definition, false),
        );
    }
    let (tokens, _) = lex(text);
    let mut out = Vec::new();
    let mut last_end = 0;
    let mut skip_until = 0;
    for (i, (token, span)) in tokens.iter().enumerate() {
        let span = Span::new(span.start, span.end);
        // A pasted MLIR operation's name (`tt.load`, `ttg.local_alloc`,
        // `scf.for`): not after `#` (an attribute) or `!` (a type).
        if let (Token::Ident(dialect), Some((Token::Ctrl('.'), _)), Some((Token::Ident(_), op))) =
            (token, tokens.get(i + 1), tokens.get(i + 2))
            && MLIR_DIALECTS.contains(dialect)
            && !matches!(
                i.checked_sub(1).map(|j| &tokens[j].0),
                Some(Token::Hash | Token::Ctrl('!'))
            )
            && span.start >= skip_until
        {
            comments(text, last_end, span.start, &mut out);
            let whole = Span::new(span.start, op.end);
            out.push(SemanticToken {
                span: whole,
                kind: TokenKind::Function,
                declaration: false,
                builtin: true,
            });
            last_end = whole.end;
            skip_until = whole.end;
            continue;
        }
        if span.start < skip_until {
            continue;
        }
        comments(text, last_end, span.start, &mut out);
        last_end = span.end;
        if let Some(&(s, kind, declaration, builtin)) = names.get(&span.start) {
            out.push(SemanticToken {
                span: s,
                kind,
                declaration,
                builtin,
            });
            skip_until = s.end;
            last_end = last_end.max(s.end);
            continue;
        }
        let kind = match *token {
            Token::Int(_) | Token::Number(_) => TokenKind::Number,
            Token::Str(_) => TokenKind::String,
            Token::Op(_) => TokenKind::Operator,
            Token::Ident(w) if docs::keyword_doc(w).is_some() => TokenKind::Keyword,
            Token::Ident("ttg" | "triton_gpu") => TokenKind::Keyword,
            _ => continue,
        };
        out.push(SemanticToken {
            span,
            kind,
            declaration: false,
            builtin: false,
        });
    }
    comments(text, last_end, text.len(), &mut out);
    out
}

fn attribute_keys(
    a: &layout_syntax::TritonAttribute,
    shift: usize,
    names: &mut std::collections::HashMap<usize, (Span, TokenKind, bool, bool)>,
) {
    let kind = a.kind.span.shift(shift);
    names.insert(kind.start, (kind, TokenKind::Type, false, true));
    for e in &a.entries {
        let s = e.key.span.shift(shift);
        names.insert(s.start, (s, TokenKind::Property, false, false));
        if let layout_syntax::AttrValueKind::Attribute(inner) = &e.value.kind {
            attribute_keys(inner, shift, names);
        }
    }
}

/// `//` comments in the gap between two tokens (the lexer skips them).
fn comments(text: &str, from: usize, to: usize, out: &mut Vec<SemanticToken>) {
    let Some(gap) = text.get(from..to) else {
        return;
    };
    let mut at = 0;
    while let Some(p) = gap[at..].find("//") {
        let start = at + p;
        let end = gap[start..].find('\n').map_or(gap.len(), |e| start + e);
        out.push(SemanticToken {
            span: Span::new(from + start, from + end),
            kind: TokenKind::Comment,
            declaration: false,
            builtin: false,
        });
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture;

    /// `Variable decl \`%0\``: a token's kind, modifiers and text.
    fn describe(t: &SemanticToken, text: &str) -> String {
        format!(
            "{:?}{}{} `{}`",
            t.kind,
            if t.declaration { " decl" } else { "" },
            if t.builtin { " builtin" } else { "" },
            &text[t.span.start..t.span.end]
        )
    }

    #[test]
    fn a_dumps_operations_values_and_block_keys_are_classified() {
        let text = r#"#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func @k(%arg0: !tt.ptr<f16>) {
  %0 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<128x!tt.ptr<f16>, #blocked> // a comment
  %1 = ttg.convert_layout %0 : tensor<128x!tt.ptr<f16>, #blocked> -> tensor<128x!tt.ptr<f16>, #blocked>
}
solve s {
    kind = swizzle
    write = tensor<128xf16, #blocked>
}
"#;
        let (db, file) = fixture::open(text);
        let tokens = semantic_tokens(&db, file);
        let shown: Vec<String> = tokens
            .iter()
            .filter(|t| {
                matches!(
                    t.kind,
                    TokenKind::Function
                        | TokenKind::Variable
                        | TokenKind::Property
                        | TokenKind::Comment
                )
            })
            .filter(|t| !text[t.span.start..t.span.end].ends_with("PerThread"))
            .map(|t| describe(t, text))
            .collect();
        expect![[r#"
            Property `threadsPerWarp`
            Property `warpsPerCTA`
            Property `order`
            Function builtin `tt.func`
            Variable decl `%arg0`
            Variable decl `%0`
            Function builtin `tt.splat`
            Variable `%arg0`
            Comment `// a comment`
            Variable decl `%1`
            Function builtin `ttg.convert_layout`
            Variable `%0`
            Variable decl `s`
            Property `kind`
            Property `write`"#]]
        .assert_eq(&shown.join("\n"));
        // In order, none overlapping.
        assert!(tokens.windows(2).all(|w| w[0].span.end <= w[1].span.start));
    }

    #[test]
    fn names_are_classified_by_what_they_resolve_to() {
        let text = r#"// comment
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
let size = 3 // shadows the builtin
layout t = compose(tensor<128xf32, #b>, identity_1d(size, "x", "y"))
"#;
        let (db, file) = fixture::open(text);
        let lines: Vec<String> = semantic_tokens(&db, file)
            .iter()
            .map(|t| describe(t, text))
            .collect();
        expect![[r#"
            Comment `// comment`
            Type decl `#b`
            Keyword `ttg`
            Type builtin `blocked`
            Property `sizePerThread`
            Number `1`
            Property `threadsPerWarp`
            Number `32`
            Property `warpsPerCTA`
            Number `4`
            Property `order`
            Number `0`
            Keyword `let`
            Variable decl `size`
            Number `3`
            Comment `// shadows the builtin`
            Keyword `layout`
            Variable decl `t`
            Function builtin `compose`
            Keyword `tensor`
            Number `128`
            Type `#b`
            Function builtin `identity_1d`
            Variable `size`
            String `"x"`
            String `"y"`"#]]
        .assert_eq(&lines.join("\n"));
    }
}
