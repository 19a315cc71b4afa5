//! Editor features of layoutc as plain data: byte offsets into the file,
//! markdown strings and text edits. Nothing here knows LSP (layout-lsp
//! converts) or the terminal (layoutc prints); both ask these functions of
//! the same [`layout_db::Database`], so the CLI, the server and the tests
//! see one answer.
//!
//! The front ends come in by one door, [`analysis`]: an [`AnalysisHost`]
//! holds the database and the open documents and takes their edits; an
//! [`Analysis`] is one document on a snapshot and has a method per
//! feature. Behind it every feature is a function of the database, a
//! [`SourceFile`] and, where it is about a place, a byte offset. One
//! module per feature:
//! [`hover`], [`navigation`] (definition, references, highlight, rename),
//! [`symbols`] (document symbols, folding), [`completion`],
//! [`signature_help`], [`semantic_tokens`], [`inlay_hints`],
//! [`code_actions`], [`formatting`], [`diagnostics`]; [`coalesce`] explains
//! a `coalesced_blocked` value step by step; [`present`] draws
//! values for hovers and `layoutc show`, [`picture`] is the picture of one
//! value that `layoutc render` draws, and [`line_index`] maps offsets
//! to lines and UTF-16 columns.

pub mod analysis;
pub mod answer;
pub mod coalesce;
pub mod code_actions;
pub mod completion;
pub mod diagnostics;
pub mod docs;
pub mod formatting;
pub mod hover;
pub mod inlay_hints;
pub mod line_index;
pub mod mlir_ops;
pub mod navigation;
pub mod picture;
pub mod present;
pub mod semantic_tokens;
pub mod signature_help;
pub mod symbols;

pub use layout_db::salsa::Database as Db;
// What a front end (the language server, the command line) needs of the
// database besides the features: one door in.
pub use analysis::{Analysis, AnalysisHost};
pub use layout_db::{Database, STACK_BYTES, Severity, SourceFile, decode_source, salsa};
pub use layout_syntax::Span;
pub use line_index::{LineCol, LineIndex};

/// The checker's results as a front end reads them: the report and its
/// diagnostics, the declared values, the kernel summaries.
pub mod checked {
    pub use layout_db::kernel::{BufferKind, PairedWith, SharedOp};
    pub use layout_db::value::{
        CuteObject, SolveKind, SolveOutcome, SwizzleOutcome, TilingOutcome, location_text,
    };
    pub use layout_db::{
        Code, Diagnostic, FileReport, KernelSummary, NamedValue, Value, capped_diagnostics,
        item_values, source_position,
    };
}

/// The algebra's types that values carry, as a front end prints them.
pub mod algebra {
    pub use layout_algebra::bank::{Direction, padded_offset};
    pub use layout_algebra::cute::Layout;
    pub use layout_algebra::cute::tiled::{Operand, Side};
    pub use layout_algebra::xla::XlaShape;
    pub use layout_algebra::{LinearLayout, Result};
}

/// The syntax of `.lay` files and dumps, for a front end that rewrites or
/// translates text (`fmt`, `import`, `solve --write`).
pub mod syntax {
    pub use layout_syntax::dump::SectionChoice;
    pub use layout_syntax::format::format;
    pub use layout_syntax::gluon::constructor_text;
    pub use layout_syntax::lexer::{Token, lex};
    pub use layout_syntax::{ExprKind, ItemKind, Location, parse};
}

/// Replace the text of `span` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

/// `offset` moved back to the start of the character it falls in, and
/// into the text: callers may pass any offset.
/// How many `solve` blocks the file has (what a check of it will run the
/// solver for): the server reports progress when there are any.
pub fn solve_block_count(db: &dyn Db, file: SourceFile) -> usize {
    file.item_list(db)
        .iter()
        .filter(|&&item| {
            layout_db::parse_item(db, item)
                .item
                .as_ref()
                .is_some_and(|i| matches!(i.kind, layout_syntax::ItemKind::Solve { .. }))
        })
        .count()
}

pub(crate) fn char_floor(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Where the identifier-like word (ASCII letters, digits, `_`) that ends
/// at `end` starts (`end` when there is none).
pub(crate) fn word_start(text: &str, end: usize) -> usize {
    text[..end]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(end, |(i, _)| i)
}

/// A name under the cursor: where it is written and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NameAt {
    /// As looked up (`#mma` for an alias).
    pub name: String,
    /// The name's text in the file.
    pub span: Span,
    pub resolution: layout_db::Resolution,
    /// Whether this is the declaration itself.
    pub is_declaration: bool,
}

/// The name (a use or a declaration) that covers `offset`.
pub(crate) fn name_at(db: &dyn Db, file: SourceFile, offset: usize) -> Option<NameAt> {
    let at = layout_db::item_at(db, file, offset)?;
    let rel = at.relative(offset);
    if let Some((name, span)) = declared_name(db, at.item)
        && span.contains(rel)
    {
        return Some(NameAt {
            resolution: layout_db::resolve(db, file, &name),
            name,
            span: at.to_file(span),
            is_declaration: true,
        });
    }
    let r = layout_db::name_refs(db, at.item)
        .iter()
        .find(|r| r.span.contains(rel))?;
    Some(NameAt {
        name: r.name.clone(),
        span: at.to_file(r.span),
        resolution: layout_db::resolve(db, file, &r.name),
        is_declaration: false,
    })
}

/// The name an item declares (`#x` for an alias) and the span of its text
/// relative to the item (for an alias, the `#` is part of it when the
/// source writes it there).
pub(crate) fn declared_name(db: &dyn Db, item: layout_db::SourceItem) -> Option<(String, Span)> {
    let parsed = layout_db::parse_item(db, item);
    let it = parsed.item.as_ref()?;
    let full = it.declared_name()?;
    let ident = it.name()?;
    let mut span = ident.span;
    let text = item.text(db);
    if full.starts_with('#') && span.start > 0 && text.as_bytes().get(span.start - 1) == Some(&b'#')
    {
        span.start -= 1;
    }
    Some((full, span))
}

/// Every declaration of `name` in the file: the name's span and the
/// item's range, in file order.
pub(crate) fn declarations(db: &dyn Db, file: SourceFile, name: &str) -> Vec<(Span, Span)> {
    layout_db::item_ranges(db, file)
        .into_iter()
        .filter_map(|at| {
            let (n, span) = declared_name(db, at.item)?;
            (n == name).then(|| (at.to_file(span), at.range))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod fixture {
    use super::*;

    /// A database holding `text` with the cursor marker `$0` removed, and
    /// the marker's offset.
    pub fn with_cursor(text: &str) -> (Database, SourceFile, usize) {
        let offset = text.find("$0").expect("fixture has a $0 cursor");
        let clean = text.replacen("$0", "", 1);
        let (db, file) = open(&clean);
        (db, file, offset)
    }

    /// A file of the repository's corpus (`ttgir/flash_attention_fwd_sm90.ttgir`).
    pub fn corpus(rel: &str) -> String {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus");
        std::fs::read_to_string(format!("{root}/{rel}")).unwrap()
    }

    pub fn open(text: &str) -> (Database, SourceFile) {
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, "test.lay".into(), text.to_string());
        (db, file)
    }

    /// `text` with each span marked `[[...]]`, for snapshots of ranges.
    pub fn mark(text: &str, spans: &[Span]) -> String {
        let mut spans: Vec<Span> = spans.to_vec();
        spans.sort();
        let mut out = String::new();
        let mut at = 0;
        for s in spans {
            if s.start < at {
                continue;
            }
            out += &text[at..s.start];
            out += "[[";
            out += &text[s.start..s.end];
            out += "]]";
            at = s.end;
        }
        out += &text[at..];
        out
    }
}
