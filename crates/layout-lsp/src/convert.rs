//! Between layout-ide's byte offsets and plain data and LSP's types
//! (positions in UTF-16 code units, the client's default encoding).

use layout_ide::{LineCol, LineIndex, Span};
use tower_lsp_server::ls_types as lsp;

pub fn offset(index: &LineIndex, text: &str, p: lsp::Position) -> usize {
    index.from_utf16(
        text,
        LineCol {
            line: p.line,
            col: p.character,
        },
    )
}

pub fn position(index: &LineIndex, text: &str, offset: usize) -> lsp::Position {
    let lc = index.to_utf16(text, offset);
    lsp::Position::new(lc.line, lc.col)
}

pub fn range(index: &LineIndex, text: &str, span: Span) -> lsp::Range {
    lsp::Range::new(
        position(index, text, span.start),
        position(index, text, span.end),
    )
}

pub fn span(index: &LineIndex, text: &str, r: lsp::Range) -> Span {
    Span::new(offset(index, text, r.start), offset(index, text, r.end))
}

pub fn text_edit(index: &LineIndex, text: &str, e: &layout_ide::TextEdit) -> lsp::TextEdit {
    lsp::TextEdit::new(range(index, text, e.span), e.new_text.clone())
}

/// layout-ide's Markdown, as Markdown or, for a client that reads only
/// plain text, without its markup.
pub fn markup(value: String, plain: bool) -> lsp::MarkupContent {
    if plain {
        lsp::MarkupContent {
            kind: lsp::MarkupKind::PlainText,
            value: plain_text(&value),
        }
    } else {
        markdown(value)
    }
}

/// Markdown's text without fences, emphasis, code marks or heading marks;
/// the fenced blocks (grids, tables) keep their lines as they are.
pub fn plain_text(markdown: &str) -> String {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push(line.to_string());
            continue;
        }
        // A heading's marks, not an alias's `#`.
        let hashes = line.len() - line.trim_start_matches('#').len();
        let line = match line[hashes..].strip_prefix(' ') {
            Some(title) if (1..=6).contains(&hashes) => title,
            _ => line,
        };
        let line = if line == "---" { "" } else { line };
        out.push(line.replace("**", "").replace('`', ""));
    }
    out.join("\n")
}

pub fn markdown(value: String) -> lsp::MarkupContent {
    lsp::MarkupContent {
        kind: lsp::MarkupKind::Markdown,
        value,
    }
}

/// A symbol and what it holds.
pub fn document_symbol(
    index: &LineIndex,
    text: &str,
    sym: layout_ide::symbols::Symbol,
) -> lsp::DocumentSymbol {
    let children: Vec<lsp::DocumentSymbol> = sym
        .children
        .into_iter()
        .map(|c| document_symbol(index, text, c))
        .collect();
    #[allow(deprecated)] // `deprecated` is a required field of the type
    lsp::DocumentSymbol {
        name: sym.name,
        detail: sym.detail,
        kind: symbol_kind(sym.kind),
        tags: None,
        deprecated: None,
        range: range(index, text, sym.full_span.to(sym.name_span)),
        selection_range: range(index, text, sym.name_span),
        children: (!children.is_empty()).then_some(children),
    }
}

pub fn symbol_kind(k: layout_ide::symbols::SymbolKind) -> lsp::SymbolKind {
    use layout_ide::symbols::SymbolKind as K;
    match k {
        K::Layout => lsp::SymbolKind::VARIABLE,
        K::Alias => lsp::SymbolKind::TYPE_PARAMETER,
        K::Let => lsp::SymbolKind::CONSTANT,
        K::Convert => lsp::SymbolKind::FUNCTION,
        K::Solve => lsp::SymbolKind::OBJECT,
        K::Target => lsp::SymbolKind::MODULE,
        K::Access => lsp::SymbolKind::EVENT,
        K::Operation => lsp::SymbolKind::OPERATOR,
        K::Function => lsp::SymbolKind::FUNCTION,
    }
}

pub fn completion_kind(k: layout_ide::completion::CompletionKind) -> lsp::CompletionItemKind {
    use layout_ide::completion::CompletionKind as K;
    match k {
        K::Keyword => lsp::CompletionItemKind::KEYWORD,
        K::EncodingKind => lsp::CompletionItemKind::CLASS,
        K::AttributeKey | K::SolveKey => lsp::CompletionItemKind::PROPERTY,
        K::Alias => lsp::CompletionItemKind::TYPE_PARAMETER,
        K::Name => lsp::CompletionItemKind::VARIABLE,
        K::Builtin => lsp::CompletionItemKind::FUNCTION,
        K::Preset => lsp::CompletionItemKind::CONSTANT,
    }
}

/// Semantic tokens in LSP's relative encoding. Tokens that span lines are
/// cut at the line break (clients reject multi-line tokens).
pub fn semantic_tokens(
    index: &LineIndex,
    text: &str,
    tokens: &[layout_ide::semantic_tokens::SemanticToken],
) -> Vec<lsp::SemanticToken> {
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for t in tokens {
        let start = index.to_utf16(text, t.span.start);
        let line_end = text[t.span.start..t.span.end]
            .find('\n')
            .map_or(t.span.end, |p| t.span.start + p);
        let end = index.to_utf16(text, line_end);
        let length = end.col.saturating_sub(start.col);
        if length == 0 {
            continue;
        }
        let delta_line = start.line - prev_line;
        let delta_start = if delta_line == 0 {
            start.col - prev_col
        } else {
            start.col
        };
        let kind = layout_ide::semantic_tokens::TokenKind::ALL
            .iter()
            .position(|k| *k == t.kind)
            .unwrap_or(0) as u32;
        let modifiers = u32::from(t.declaration) | (u32::from(t.builtin) << 1);
        out.push(lsp::SemanticToken {
            delta_line,
            delta_start,
            length,
            token_type: kind,
            token_modifiers_bitset: modifiers,
        });
        (prev_line, prev_col) = (start.line, start.col);
    }
    out
}

pub fn semantic_legend() -> lsp::SemanticTokensLegend {
    lsp::SemanticTokensLegend {
        token_types: layout_ide::semantic_tokens::TokenKind::ALL
            .iter()
            .map(|k| lsp::SemanticTokenType::new(k.lsp_name()))
            .collect(),
        token_modifiers: vec![
            lsp::SemanticTokenModifier::DECLARATION,
            lsp::SemanticTokenModifier::DEFAULT_LIBRARY,
        ],
    }
}

/// The edit from `old` to `new` semantic tokens: the tokens between their
/// common beginning and common end, replaced (offsets count `u32`s, five
/// per token).
pub fn tokens_delta(
    old: &[lsp::SemanticToken],
    new: &[lsp::SemanticToken],
) -> Vec<lsp::SemanticTokensEdit> {
    let same = |a: &lsp::SemanticToken, b: &lsp::SemanticToken| {
        (
            a.delta_line,
            a.delta_start,
            a.length,
            a.token_type,
            a.token_modifiers_bitset,
        ) == (
            b.delta_line,
            b.delta_start,
            b.length,
            b.token_type,
            b.token_modifiers_bitset,
        )
    };
    let prefix = old.iter().zip(new).take_while(|(a, b)| same(a, b)).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| same(a, b))
        .count();
    let removed = old.len() - prefix - suffix;
    let added = &new[prefix..new.len() - suffix];
    if removed == 0 && added.is_empty() {
        return Vec::new();
    }
    vec![lsp::SemanticTokensEdit {
        start: 5 * prefix as u32,
        delete_count: 5 * removed as u32,
        data: Some(added.to_vec()),
    }]
}
