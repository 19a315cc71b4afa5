//! The incremental checker of `.lay` files.
//!
//! A file is cut into items by text ([`SourceFile::open`],
//! [`SourceFile::edit`]); each item is a salsa input ([`SourceItem`]) parsed
//! and evaluated on its own, with spans relative to the item's start. An
//! edit inside one item changes only that item's input, so the others'
//! parses and values are reused — even when the edit moves them — and only
//! declarations that use the edited one are evaluated again. [`check_file`]
//! puts the pieces together, shifting each item's diagnostics to file
//! offsets.

mod access;
pub mod builtins;
mod cancel;
mod context;
mod costly;
pub mod diagnostic;
mod encoding;
mod eval;
pub mod kernel;
pub mod names;
pub mod position;
pub mod round_trip;
pub mod solve;
pub mod ssa;
pub mod target;
pub mod value;

use std::sync::{Arc, Mutex};

use layout_syntax::{Item, ItemKind, Span, SyntaxError};

/// The salsa this database is built on: callers need its `Cancelled` and
/// `Database` trait.
pub use salsa;

pub use access::CountedCall;
pub use diagnostic::{Code, Diagnostic, Severity, decode_source, documentation};
pub use encoding::kind_names as encoding_kind_names;
pub use kernel::{
    BufferKind, KernelSummary, PairedWith, SharedOp, Unmeasured, UnmeasuredReason, kernel_summaries,
};
pub use names::{NameRef, RefKind, Resolution, name_refs, resolve};
pub use position::{ItemAt, ValueAt, access_in_item, item_at, item_ranges, value_at};
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
        Database::with_events(move |event| {
            if let salsa::EventKind::WillExecute { .. } = event.kind
                && let Ok(mut log) = log.lock()
            {
                log.push(format!("{:?}", event.kind));
            }
        })
    }

    /// A database that shows every salsa event to `callback` (tests of
    /// incrementality and cancellation). Clones share the callback.
    pub fn with_events(callback: impl Fn(&salsa::Event) + Send + Sync + 'static) -> Database {
        Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                callback(&event)
            }))),
        }
    }
}

/// One `.lay` file, held as its items: open it with [`SourceFile::open`]
/// and edit it with [`SourceFile::edit`], which cut the text into items and
/// touch only the items whose text changed.
///
/// Durability does the rest. Items read from disk are `HIGH`; an item the
/// user edits becomes `LOW`. Salsa revalidates a memo that depends only on
/// `HIGH` inputs without walking its dependencies, so after an edit the
/// checker revisits the edited items and their users, not the whole file
/// (docs/performance.md has the figures). The first edit of an item costs
/// one full revalidation, as does a change of the names or of the item
/// list; later edits of the same item are cheap.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: String,
    /// The whole text (no query reads it: queries read items).
    #[returns(ref)]
    source: String,
    /// The items in file order.
    #[returns(ref)]
    items: Vec<SourceItem>,
    /// Where each item starts (`LOW`: most edits move items).
    #[returns(ref)]
    offsets: Vec<usize>,
    /// Every declared name with its item, in file order.
    #[returns(ref)]
    names: Vec<(String, SourceItem)>,
    /// The `module` and `target` items, which set the file's target.
    #[returns(ref)]
    target_items: Vec<SourceItem>,
    /// The dump analysed when the file holds several (an
    /// `MLIR_ENABLE_DUMP` log, pasted dumps): the rest is blanked out.
    #[returns(ref)]
    pub selection: Option<layout_syntax::dump::Selection>,
    /// The solver's time limit for every solve block, in place of the
    /// blocks' own `timeout` (`layoutc solve --timeout`, the editor's
    /// setting); `None` leaves each block's.
    pub solver_timeout_ms: Option<u64>,
}

/// One item's text: the key of its parse and evaluation.
#[salsa::input(debug)]
pub struct SourceItem {
    pub file: SourceFile,
    #[returns(ref)]
    pub text: String,
    /// The item's tree, when it was parsed together with the whole file
    /// (one parser for every item of a file opened from disk); `None` after
    /// an edit, when [`parse_item`] parses the text alone.
    #[returns(ref)]
    preparsed: Option<ParsedItem>,
}

impl SourceFile {
    /// A file as read from disk: every item `HIGH`.
    pub fn open(db: &mut Database, path: String, text: String) -> SourceFile {
        let selection = layout_syntax::dump::select(&text);
        SourceFile::open_selecting(db, path, text, selection)
    }

    /// A file read at a dump the caller chose (`layoutc --section`) when it
    /// holds several.
    pub fn open_selecting(
        db: &mut Database,
        path: String,
        text: String,
        selection: Option<layout_syntax::dump::Selection>,
    ) -> SourceFile {
        use salsa::{Durability, Setter};
        let original = text;
        let text = match &selection {
            Some(s) => layout_syntax::dump::blank_outside(&original, &s.range),
            None => original.clone(),
        };
        let outline = layout_syntax::outline(&text);
        let file = SourceFile::builder(
            path,
            String::new(),
            vec![],
            vec![],
            vec![],
            vec![],
            selection,
            None,
        )
        .durability(Durability::HIGH)
        .source_durability(Durability::LOW)
        .offsets_durability(Durability::LOW)
        .new(db);
        // An item names its file, so the file's item fields are filled in
        // once it exists (nothing has read them yet).
        let texts: Vec<&str> = outline.iter().map(|o| &text[o.range.clone()]).collect();
        let parses = layout_syntax::parse_each(&texts);
        let items: Vec<SourceItem> = texts
            .iter()
            .zip(parses)
            .map(|(t, parse)| {
                SourceItem::builder(file, t.to_string(), Some(ParsedItem::from(parse)))
                    .durability(Durability::HIGH)
                    .new(db)
            })
            .collect();
        let (names, target_items) = file_facts(&outline, &items);
        file.set_offsets(db)
            .to(outline.iter().map(|o| o.range.start).collect());
        file.set_items(db).to(items);
        file.set_names(db).to(names);
        file.set_target_items(db).to(target_items);
        file.set_source(db).to(original);
        file
    }

    /// The file's text now.
    pub fn text(self, db: &dyn salsa::Database) -> &str {
        self.source(db)
    }

    /// The file's items in file order.
    pub fn item_list(self, db: &dyn salsa::Database) -> &[SourceItem] {
        self.items(db)
    }

    /// Every declared name (`#x` for aliases) with its item, in file order.
    pub fn declared_names(self, db: &dyn salsa::Database) -> &[(String, SourceItem)] {
        self.names(db)
    }

    /// Replaces the file's text. Items are matched by text from both ends
    /// of the file; the items between are paired in order (an item whose
    /// text changed keeps its identity and becomes `LOW`), and new ones are
    /// made for the rest.
    pub fn edit(self, db: &mut Database, text: String) {
        use salsa::{Durability, Setter};
        // Items are matched on the analysed texts, old and new.
        let original = text;
        let old_text = self.analysed_text(db).into_owned();
        let (analysed, selection) = layout_syntax::dump::analysed_text(&original);
        let text = analysed.into_owned();
        if *self.selection(db) != selection {
            self.set_selection(db).to(selection);
        }
        let old_items = self.items(db).clone();
        let old_offsets = self.offsets(db).clone();
        let old_range =
            |k: usize| old_offsets[k]..old_offsets.get(k + 1).copied().unwrap_or(old_text.len());
        let outline = layout_syntax::outline(&text);
        let new_text = |k: usize| &text[outline[k].range.clone()];
        let (n_old, n_new) = (old_items.len(), outline.len());
        let mut front = 0;
        while front < n_old.min(n_new) && old_text[old_range(front)] == *new_text(front) {
            front += 1;
        }
        let mut back = 0;
        while back < (n_old - front).min(n_new - front)
            && old_text[old_range(n_old - 1 - back)] == *new_text(n_new - 1 - back)
        {
            back += 1;
        }
        let mut items = Vec::with_capacity(n_new);
        items.extend_from_slice(&old_items[..front]);
        let reusable = &old_items[front..n_old - back];
        for k in front..n_new - back {
            let item = match reusable.get(k - front) {
                Some(&item) => {
                    if old_text[old_range(front + (k - front))] != *new_text(k) {
                        item.set_text(db)
                            .with_durability(Durability::LOW)
                            .to(new_text(k).to_string());
                        if item.preparsed(db).is_some() {
                            item.set_preparsed(db)
                                .with_durability(Durability::LOW)
                                .to(None);
                        }
                    }
                    item
                }
                None => SourceItem::new(db, self, new_text(k).to_string(), None),
            };
            items.push(item);
        }
        items.extend_from_slice(&old_items[n_old - back..]);
        let (names, target_items) = file_facts(&outline, &items);
        let offsets: Vec<usize> = outline.iter().map(|o| o.range.start).collect();
        if *self.items(db) != items {
            self.set_items(db)
                .with_durability(Durability::HIGH)
                .to(items);
        }
        if *self.names(db) != names {
            self.set_names(db)
                .with_durability(Durability::HIGH)
                .to(names);
        }
        if *self.target_items(db) != target_items {
            self.set_target_items(db)
                .with_durability(Durability::HIGH)
                .to(target_items);
        }
        if *self.offsets(db) != offsets {
            self.set_offsets(db).to(offsets);
        }
        self.set_source(db).to(original);
    }

    /// The text the checker reads: the file's, with everything outside
    /// the analysed dump blanked out when it holds several (offsets and
    /// lines unchanged).
    pub fn analysed_text(self, db: &dyn salsa::Database) -> std::borrow::Cow<'_, str> {
        match blanked_source(db, self) {
            Some(blanked) => blanked.as_str().into(),
            None => self.source(db).as_str().into(),
        }
    }
}

/// A file of several dumps with all but the analysed one blanked out,
/// made once per edit: every query of the file reads it.
#[salsa::tracked(returns(ref))]
fn blanked_source(db: &dyn salsa::Database, file: SourceFile) -> Option<String> {
    file.selection(db)
        .as_ref()
        .map(|s| layout_syntax::dump::blank_outside(file.source(db), &s.range))
}

/// The declared names and the target items of a file's outline.
fn file_facts(
    outline: &[layout_syntax::ItemSource],
    items: &[SourceItem],
) -> (Vec<(String, SourceItem)>, Vec<SourceItem>) {
    let mut names = Vec::new();
    let mut target_items = Vec::new();
    for (o, &item) in outline.iter().zip(items) {
        if let Some(n) = &o.name {
            names.push((n.clone(), item));
        }
        if o.keyword == "module" || o.keyword == "target" {
            target_items.push(item);
        }
    }
    (names, target_items)
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

impl From<layout_syntax::Parse> for ParsedItem {
    fn from(mut parse: layout_syntax::Parse) -> ParsedItem {
        ParsedItem {
            item: (!parse.items.is_empty()).then(|| parse.items.swap_remove(0)),
            errors: parse.errors,
        }
    }
}

#[salsa::tracked(returns(ref))]
pub fn parse_item(db: &dyn salsa::Database, key: SourceItem) -> ParsedItem {
    match key.preparsed(db) {
        Some(parsed) => parsed.clone(),
        None => layout_syntax::parse(key.text(db)).into(),
    }
}

/// Where each name is declared: the item of its first declaration. A
/// lookup depends on this table only; its result, and so the users of a
/// name, change only when the declaration it finds changes.
#[salsa::tracked(returns(ref))]
pub fn name_table(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> std::collections::HashMap<String, SourceItem> {
    let mut table = std::collections::HashMap::new();
    for (name, item) in file.names(db) {
        table.entry(name.clone()).or_insert(*item);
    }
    table
}

/// The item that declares `name` (the first, if there are several).
#[salsa::tracked]
pub fn lookup<'db>(db: &'db dyn salsa::Database, name: DeclName<'db>) -> Option<SourceItem> {
    name_table(db, *name.file(db))
        .get(name.name(db).as_str())
        .copied()
}

/// The names an item uses, in order of first use (from [`name_refs`]).
#[salsa::tracked(returns(ref))]
pub fn references(db: &dyn salsa::Database, key: SourceItem) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in name_refs(db, key) {
        if !names.contains(&r.name) {
            names.push(r.name.clone());
        }
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
    /// The item's span (relative to the item, so its start is 0 unless a
    /// comment comes first).
    pub span: Span,
    /// The declared name (`#x` for aliases), its span and the item's span.
    pub declares: Option<(String, Span, Span)>,
    /// A `module ... {` line whose `}` comes later in the file.
    pub opens_module: bool,
}

impl ItemSyntax {
    /// `text` is read only when the item does not parse, so that an item
    /// that parses depends on its tree, not its text.
    fn of<'t>(parsed: &ParsedItem, text: impl FnOnce() -> &'t str) -> ItemSyntax {
        let declares = match &parsed.item {
            // An item that does not parse still declares its name (CONTRACT
            // §3: every named declaration is listed, without a value).
            None
            | Some(Item {
                kind: ItemKind::Error,
                ..
            }) => {
                let text = text();
                layout_syntax::declared_name(text)
                    .map(|(name, span)| (name, span, Span::new(0, text.trim_end().len())))
            }
            Some(item) => item
                .declared_name()
                .and_then(|full| Some((full, item.name()?.span, item.span))),
        };
        ItemSyntax {
            errors: parsed.errors.clone(),
            span: parsed.item.as_ref().map_or(Span::default(), |i| i.span),
            is_check: matches!(
                parsed.item.as_ref().map(|i| &i.kind),
                Some(ItemKind::Check { .. })
            ),
            declares,
            opens_module: matches!(
                parsed.item.as_ref().map(|i| &i.kind),
                Some(ItemKind::Module { body: Some(b), .. }) if b.end - b.start == 1
            ),
        }
    }
}

/// Evaluates one item: resolves its names (evaluating what they name),
/// computes its value and type-checks it.
#[salsa::tracked(returns(ref), cycle_result = evaluate_item_on_cycle)]
pub fn evaluate_item(db: &dyn salsa::Database, key: SourceItem) -> Evaluated {
    eval::evaluate(db, key)
}

fn evaluate_item_on_cycle(db: &dyn salsa::Database, _id: salsa::Id, key: SourceItem) -> Evaluated {
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

/// Triton's bank-conflict measure of an access: the key of
/// [`bank_conflicts_of`], so that a spec asking the same question of many
/// declarations computes it once.
#[salsa::interned(debug)]
pub struct BankQuery<'db> {
    #[returns(ref)]
    pub distributed: layout_algebra::LinearLayout,
    #[returns(ref)]
    pub shared: layout_algebra::LinearLayout,
    pub element_bits: u32,
    #[returns(ref)]
    pub target: layout_algebra::bank::BankTarget,
}

#[salsa::tracked(returns(ref))]
pub fn bank_conflicts_of<'db>(
    db: &'db dyn salsa::Database,
    q: BankQuery<'db>,
) -> Result<u64, layout_algebra::LayoutError> {
    layout_algebra::bank::bank_conflicts(
        q.distributed(db),
        q.shared(db),
        *q.element_bits(db),
        q.target(db),
    )
}

/// Two CuTe layouts to compose: the key of [`cute_composition`].
#[salsa::interned(debug)]
pub struct CuteCompositionQuery<'db> {
    #[returns(ref)]
    pub a: layout_algebra::cute::Layout,
    #[returns(ref)]
    pub b: layout_algebra::cute::Layout,
}

/// `composition(a, b)` of two CuTe layouts (memoized: specs repeat them).
#[salsa::tracked(returns(ref))]
pub fn cute_composition<'db>(
    db: &'db dyn salsa::Database,
    q: CuteCompositionQuery<'db>,
) -> Result<layout_algebra::cute::Layout, layout_algebra::LayoutError> {
    q.a(db).compose(q.b(db))
}

/// The machine the file describes: module attributes and `target` items.
#[salsa::tracked(returns(ref))]
pub fn file_target(db: &dyn salsa::Database, file: SourceFile) -> TargetFacts {
    let mut facts = TargetFacts::default();
    for &item in file.target_items(db) {
        if let Some(Value::Target(t)) = &evaluate_item(db, item).value {
            facts.merge(t);
        }
    }
    facts
}

/// The first source position (`file:line:column`) an MLIR location names,
/// following the file's `#loc` aliases: for a pasted line, the kernel's
/// Python line.
pub fn source_position(
    db: &dyn salsa::Database,
    file: SourceFile,
    location: &layout_syntax::Location,
) -> Option<String> {
    fn walk(
        db: &dyn salsa::Database,
        file: SourceFile,
        l: &layout_syntax::Location,
        depth: usize,
    ) -> Option<String> {
        use layout_syntax::Location as L;
        if depth > 16 {
            return None; // aliases that name each other
        }
        match l {
            L::File { file, line, column } => Some(format!("{file}:{line}:{column}")),
            L::Alias(name) => {
                let decl = DeclName::new(db, file, format!("#{name}"));
                match declared_value(db, decl) {
                    Some(Some(Value::Location(inner))) => walk(db, file, inner, depth + 1),
                    _ => None,
                }
            }
            L::Named { child, .. } => child.as_ref().and_then(|c| walk(db, file, c, depth + 1)),
            L::CallSite { callee, caller } => {
                walk(db, file, callee, depth + 1).or_else(|| walk(db, file, caller, depth + 1))
            }
            L::Fused(ls) => ls.iter().find_map(|x| walk(db, file, x, depth + 1)),
            L::Unknown => None,
        }
    }
    walk(db, file, location, 0)
}

/// A named declaration's place, for `show` and hovers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedItem {
    pub name: String,
    /// The name's span in the file.
    pub span: Span,
    /// The whole declaration's span in the file.
    pub item_span: Span,
    /// The item's index in the file's items.
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
    // The machine as stated so far, and where each fact was stated.
    let mut stated: Vec<(TargetFacts, Span)> = Vec::new();
    let offsets = file.offsets(db);
    // `module ... {` lines whose `}` has not come yet: a later item may
    // close them.
    let mut open_modules = 0usize;
    for (index, &item) in file.items(db).iter().enumerate() {
        let evaluated = evaluate_item(db, item);
        let syntax = &evaluated.syntax;
        let shift = offsets[index];
        open_modules += usize::from(syntax.opens_module);
        for e in &syntax.errors {
            if e.kind == layout_syntax::SyntaxErrorKind::UnopenedCloser && open_modules > 0 {
                open_modules -= 1;
                continue;
            }
            let code = match e.kind {
                layout_syntax::SyntaxErrorKind::TooDeep => Code::TooDeep,
                _ => Code::Syntax,
            };
            report.diagnostics.push(Diagnostic::error(
                code,
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
        if let Some(Value::Target(facts)) = &evaluated.value {
            let span = syntax.span.shift(shift);
            if let Some(d) = target::contradiction(&stated, facts, span) {
                report.diagnostics.push(d);
            }
            stated.push(((**facts).clone(), span));
        }
        if syntax.is_check {
            report.checks += 1;
            if evaluated.value == Some(Value::Bool(true)) {
                report.checks_passed += 1;
            }
        }
        if let Some((full, name_span, item_span)) = &syntax.declares {
            let span = name_span.shift(shift);
            // SSA names are scoped to their function in MLIR: a dump with two
            // functions may reuse `%0` (a use finds the first).
            let ssa = full.starts_with('%');
            let duplicate = match first_definition.get(full.as_str()) {
                Some(_) if ssa => false,
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
        .extend(kernel::diagnostics(kernel_summaries(db, file)));
    report.diagnostics.extend(whole_file_diagnostics(db, file));
    report
        .diagnostics
        .sort_by_key(|d| (d.span.start, d.span.end, d.code));
    report.diagnostics = one_per_broken_dependency(std::mem::take(&mut report.diagnostics));
    report
}

/// One E0106 per declaration that has errors, at its first use, labelling
/// the other uses: its own error already says what is wrong, and one more
/// error per use would bury it.
fn one_per_broken_dependency(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut first_use: std::collections::HashMap<String, usize> = Default::default();
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
    for d in diagnostics {
        let Some(name) = d.broken_dependency.clone() else {
            out.push(d);
            continue;
        };
        match first_use.get(&name) {
            Some(&at) => {
                let first = &mut out[at];
                first.labels.push((d.span, "also uses it".into()));
                let uses = first.labels.len() + 1;
                first.message =
                    format!("`{name}` has errors, so its {uses} uses cannot be evaluated");
            }
            None => {
                first_use.insert(name, out.len());
                out.push(d);
            }
        }
    }
    out
}

/// The stack a thread that checks files should have. Parsing and
/// evaluating recurse once per level of an item's nesting, which the parser
/// bounds ([`layout_syntax::parser::MAX_NESTING`]); a level costs up to a
/// few hundred KiB of stack in an unoptimised build, more than the 2 MiB a
/// spawned thread gets by default. The CLI and the server run their work on
/// threads of this size (untouched pages cost no memory).
pub const STACK_BYTES: usize = 64 << 20;

/// The most diagnostics one file reports: past the first hundred, a file
/// is not what its extension says (or is badly broken), and more lines
/// only bury the first ones.
pub const DIAGNOSTIC_LIMIT: usize = 100;

/// The first [`DIAGNOSTIC_LIMIT`] diagnostics of a file, and one that says
/// how many more there were, by code: what the command line and the
/// language server show (the report itself keeps them all).
pub fn capped_diagnostics(all: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut diagnostics = all.to_vec();
    if diagnostics.len() <= DIAGNOSTIC_LIMIT {
        return diagnostics;
    }
    let rest = diagnostics.split_off(DIAGNOSTIC_LIMIT);
    let mut by_code: Vec<(Code, usize)> = Vec::new();
    for d in &rest {
        match by_code.iter_mut().find(|(c, _)| *c == d.code) {
            Some((_, n)) => *n += 1,
            None => by_code.push((d.code, 1)),
        }
    }
    by_code.sort();
    let counts: Vec<String> = by_code
        .iter()
        .map(|(c, n)| format!("{n} x {}", c.as_str()))
        .collect();
    let at = rest[0].span;
    diagnostics.push(
        Diagnostic::warning(
            Code::TooManyDiagnostics,
            at,
            format!(
                "{} more diagnostics from here on are not shown ({}): the first {DIAGNOSTIC_LIMIT} are",
                rest.len(),
                counts.join(", ")
            ),
        )
        .with_note("fix the first ones, or check that this is the file you meant"),
    );
    diagnostics
}

/// Every item of a file, named or not, with its span in the file and its
/// value (`None` when it has errors): a pasted `ttg.local_store` has an
/// analysis but no name.
pub fn item_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<(Span, Option<Value>)> {
    let offsets = file.offsets(db);
    file.items(db)
        .iter()
        .zip(offsets)
        .map(|(&item, &offset)| {
            let evaluated = evaluate_item(db, item);
            (evaluated.syntax.span.shift(offset), evaluated.value.clone())
        })
        .collect()
}

/// Every named declaration of a file with its value, in file order.
pub fn named_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<NamedValue> {
    let items = file.items(db);
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
                evaluate_item(db, items[it.outline_index]).value.clone()
            },
        })
        .collect()
}

/// What a file as a whole says: which of several dumps is analysed, and
/// that an empty file holds nothing.
fn whole_file_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    use layout_syntax::dump::SelectionKind;
    let mut out = Vec::new();
    if let Some(s) = file.selection(db) {
        let span = Span::new(s.header.start, s.header.end);
        let which = if s.chosen {
            format!("dump {}, as asked", s.number)
        } else {
            format!("the last TritonGPU one (dump {})", s.number)
        };
        let message = match s.kind {
            SelectionKind::Log => format!(
                "this is an MLIR_ENABLE_DUMP log of {} dumps: layoutc analyses {which}, the module printed before {}",
                s.dumps,
                s.pass.as_deref().unwrap_or("the lowering")
            ),
            SelectionKind::Modules => {
                format!(
                    "this file holds {} dumps: layoutc analyses {which}, here",
                    s.dumps
                )
            }
        };
        out.push(
            Diagnostic::warning(Code::SeveralDumps, span, message)
                .with_note("`--section PASS` or `--section N` picks another dump; names are file-wide, so one is analysed at a time"),
        );
    }
    let blank = file.items(db).is_empty()
        || file.source(db).lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with("//")
        });
    if blank && file.selection(db).is_none() {
        out.push(Diagnostic::warning(
            Code::NothingHere,
            Span::new(0, 0),
            "the file holds nothing to check: no declaration, no dump",
        ));
    }
    out
}
