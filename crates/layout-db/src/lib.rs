//! The incremental checker of `.lay` files.
//!
//! A file is a salsa input. It is cut into items by text ([`file_outline`]);
//! each item's text is interned ([`ItemKey`]) and parsed and evaluated on its
//! own, with spans relative to the item's start. An edit inside one item
//! changes only that item's key, so the others' parses and values are reused
//! — even when the edit moves them — and only declarations that use the
//! edited one are evaluated again. [`check_file`] puts the pieces together,
//! shifting each item's diagnostics to file offsets.

pub mod builtins;
pub mod diagnostic;
mod encoding;
mod eval;
pub mod target;
pub mod value;

use std::sync::{Arc, Mutex};

use layout_syntax::{Item, ItemKind, Span, SyntaxError};

pub use diagnostic::{Code, Diagnostic, Severity};
pub use target::TargetFacts;
pub use value::Value;

/// The database of the checker and the language server.
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
}

#[salsa::db]
impl salsa::Database for Database {}

impl Database {
    /// A database that records which queries run (for tests of
    /// incrementality): each entry is the `Debug` form of a salsa
    /// `WillExecute` event.
    pub fn with_execution_log(log: Arc<Mutex<Vec<String>>>) -> Database {
        Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { .. } = event.kind {
                    if let Ok(mut log) = log.lock() {
                        log.push(format!("{:?}", event.kind));
                    }
                }
            }))),
        }
    }
}

/// One `.lay` file.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub text: String,
}

/// An item's text within a file: the key of its parse and evaluation.
#[salsa::interned(debug)]
pub struct ItemKey<'db> {
    pub file: SourceFile,
    #[returns(ref)]
    pub text: String,
}

/// An item's place in its file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, salsa::SalsaValue)]
pub struct OutlineItem<'db> {
    pub offset: usize,
    pub keyword: String,
    pub name: Option<String>,
    /// The item's text, interned: the key of its parse and evaluation.
    pub key: ItemKey<'db>,
}

/// The items of a file, cut by text (cheap: one lexing pass); each item's
/// text is interned once here and the key shared by every other query.
#[salsa::tracked(returns(ref))]
pub fn file_outline<'db>(db: &'db dyn salsa::Database, file: SourceFile) -> Vec<OutlineItem<'db>> {
    let text = file.text(db);
    layout_syntax::outline(text)
        .into_iter()
        .map(|i| OutlineItem {
            offset: i.range.start,
            keyword: i.keyword,
            name: i.name,
            key: ItemKey::new(db, file, &text[i.range]),
        })
        .collect()
}

/// A declared name within a file (`acc`, `#blocked`).
#[salsa::interned(debug)]
pub struct DeclName<'db> {
    pub file: SourceFile,
    #[returns(ref)]
    pub name: String,
}

/// An item's syntax tree, spans relative to the item's start.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParsedItem {
    pub item: Option<Item>,
    pub errors: Vec<SyntaxError>,
}

#[salsa::tracked(returns(ref))]
pub fn parse_item<'db>(db: &'db dyn salsa::Database, key: ItemKey<'db>) -> ParsedItem {
    let mut parse = layout_syntax::parse(key.text(db));
    ParsedItem {
        item: (!parse.items.is_empty()).then(|| parse.items.swap_remove(0)),
        errors: parse.errors,
    }
}

/// Where each name is declared: the key of its first declaration. A lookup
/// depends on this table only; its result, and so the users of a name,
/// change only when the declaration it finds changes.
#[salsa::tracked(returns(ref))]
pub fn name_table<'db>(
    db: &'db dyn salsa::Database,
    file: SourceFile,
) -> std::collections::HashMap<String, ItemKey<'db>> {
    let mut table = std::collections::HashMap::new();
    for item in file_outline(db, file) {
        if let Some(n) = &item.name {
            table.entry(n.clone()).or_insert(item.key);
        }
    }
    table
}

/// The item that declares `name` (the first, if there are several).
#[salsa::tracked]
pub fn lookup<'db>(db: &'db dyn salsa::Database, name: DeclName<'db>) -> Option<ItemKey<'db>> {
    name_table(db, *name.file(db))
        .get(name.name(db).as_str())
        .copied()
}

/// The names an item uses, in order of first use.
#[salsa::tracked(returns(ref))]
pub fn references<'db>(db: &'db dyn salsa::Database, key: ItemKey<'db>) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(item) = &parse_item(db, key).item {
        eval::collect_references(item, &mut names);
    }
    names
}

/// The result of evaluating one item, spans relative to the item's start.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Evaluated {
    pub value: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the file report needs of the item's syntax, so that it depends
    /// on this query alone.
    pub syntax: ItemSyntax,
}

/// An item's syntax errors and shape, spans relative to the item.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ItemSyntax {
    pub errors: Vec<SyntaxError>,
    pub is_check: bool,
    /// The declared name (`#x` for aliases), its span and the item's span.
    pub declares: Option<(String, Span, Span)>,
}

impl ItemSyntax {
    fn of(parsed: &ParsedItem) -> ItemSyntax {
        let declares = parsed
            .item
            .as_ref()
            .and_then(|item| Some((item.declared_name()?, item.name()?.span, item.span)));
        ItemSyntax {
            errors: parsed.errors.clone(),
            is_check: matches!(
                parsed.item.as_ref().map(|i| &i.kind),
                Some(ItemKind::Check { .. })
            ),
            declares,
        }
    }
}

/// Evaluates one item: resolves its names (evaluating what they name),
/// computes its value and type-checks it.
#[salsa::tracked(returns(ref), cycle_result = evaluate_item_on_cycle)]
pub fn evaluate_item<'db>(db: &'db dyn salsa::Database, key: ItemKey<'db>) -> Evaluated {
    eval::evaluate(db, key)
}

fn evaluate_item_on_cycle<'db>(
    db: &'db dyn salsa::Database,
    _id: salsa::Id,
    key: ItemKey<'db>,
) -> Evaluated {
    eval::cycle_fallback(db, key)
}

/// What a name stands for: `None` when nothing declares it, `Some(None)`
/// when its declaration has errors. A query of its own so that users of a
/// name depend on its value, not its text: a comment edit inside a
/// declaration does not re-evaluate the declarations that use it.
#[salsa::tracked(returns(ref), cycle_result = declared_value_on_cycle)]
pub fn declared_value<'db>(
    db: &'db dyn salsa::Database,
    name: DeclName<'db>,
) -> Option<Option<Value>> {
    lookup(db, name).map(|key| evaluate_item(db, key).value.clone())
}

fn declared_value_on_cycle<'db>(
    _db: &'db dyn salsa::Database,
    _id: salsa::Id,
    _name: DeclName<'db>,
) -> Option<Option<Value>> {
    Some(None)
}

/// A Triton encoding applied to a tensor shape: the key of
/// [`encoding_layout`], so that a file full of tensors with the same few
/// encodings converts each pair once.
#[salsa::interned(debug)]
pub struct EncodingOnShape<'db> {
    #[returns(ref)]
    pub encoding: layout_algebra::triton::Encoding,
    #[returns(ref)]
    pub shape: Vec<u32>,
}

/// The linear layout of an encoding over a shape (memoized).
#[salsa::tracked(returns(ref))]
pub fn encoding_layout<'db>(
    db: &'db dyn salsa::Database,
    key: EncodingOnShape<'db>,
) -> Result<layout_algebra::LinearLayout, layout_algebra::LayoutError> {
    key.encoding(db).to_linear_layout(key.shape(db))
}

/// The machine the file describes: module attributes and `target` items.
#[salsa::tracked(returns(ref))]
pub fn file_target(db: &dyn salsa::Database, file: SourceFile) -> TargetFacts {
    let mut facts = TargetFacts::default();
    for item in file_outline(db, file) {
        if item.keyword == "module" || item.keyword == "target" {
            if let Some(Value::Target(t)) = &evaluate_item(db, item.key).value {
                facts.merge(t);
            }
        }
    }
    facts
}

/// A named declaration's place, for `show` and hovers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedItem {
    pub name: String,
    /// The name's span in the file.
    pub span: Span,
    /// The whole declaration's span in the file.
    pub item_span: Span,
    /// The item's index in [`file_outline`].
    pub outline_index: usize,
    /// A second definition of a name (error E0102): it has no value.
    pub duplicate: bool,
}

/// A named declaration with its value (`None` when it has errors).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedValue {
    pub name: String,
    pub span: Span,
    pub item_span: Span,
    pub value: Option<Value>,
}

/// Everything `layoutc check` reports for a file. Values stay in the
/// per-item queries (see [`named_values`]): the report is rebuilt after every
/// edit and should not copy them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileReport {
    pub items: Vec<NamedItem>,
    pub diagnostics: Vec<Diagnostic>,
    /// How many `check` items were evaluated, and how many held.
    pub checks: usize,
    pub checks_passed: usize,
}

impl FileReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Checks a whole file: syntax, names, values and every `check`.
#[salsa::tracked(returns(ref))]
pub fn check_file(db: &dyn salsa::Database, file: SourceFile) -> FileReport {
    let mut report = FileReport {
        items: Vec::new(),
        diagnostics: Vec::new(),
        checks: 0,
        checks_passed: 0,
    };
    let mut first_definition: std::collections::HashMap<&str, Span> = Default::default();
    for (index, outline) in file_outline(db, file).iter().enumerate() {
        let evaluated = evaluate_item(db, outline.key);
        let syntax = &evaluated.syntax;
        let shift = outline.offset;
        for e in &syntax.errors {
            report.diagnostics.push(Diagnostic::error(
                Code::Syntax,
                e.span.shift(shift),
                e.message.clone(),
            ));
        }
        report.diagnostics.extend(
            evaluated
                .diagnostics
                .iter()
                .map(|d| d.clone().shifted(shift)),
        );
        if syntax.is_check {
            report.checks += 1;
            if evaluated.value == Some(Value::Bool(true)) {
                report.checks_passed += 1;
            }
        }
        if let Some((full, name_span, item_span)) = &syntax.declares {
            let span = name_span.shift(shift);
            let duplicate = match first_definition.get(full.as_str()) {
                Some(first) => {
                    report.diagnostics.push(
                        Diagnostic::error(
                            Code::DuplicateName,
                            span,
                            format!("`{full}` is defined twice"),
                        )
                        .with_label(*first, "first defined here")
                        .with_note("names are file-wide; rename one of the two"),
                    );
                    true
                }
                None => {
                    first_definition.insert(full.as_str(), span);
                    false
                }
            };
            report.items.push(NamedItem {
                name: full.clone(),
                span,
                item_span: item_span.shift(shift),
                outline_index: index,
                duplicate,
            });
        }
    }
    report
        .diagnostics
        .sort_by_key(|d| (d.span.start, d.span.end, d.code));
    report
}

/// Every named declaration of a file with its value, in file order.
pub fn named_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<NamedValue> {
    let outline = file_outline(db, file);
    check_file(db, file)
        .items
        .iter()
        .map(|it| NamedValue {
            name: it.name.clone(),
            span: it.span,
            item_span: it.item_span,
            value: if it.duplicate {
                None
            } else {
                evaluate_item(db, outline[it.outline_index].key)
                    .value
                    .clone()
            },
        })
        .collect()
}
