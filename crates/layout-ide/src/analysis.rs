//! The one door the front ends come in by, in the shape rust-analyzer
//! gives its IDE crate: an [`AnalysisHost`] owns the database and the open
//! documents and takes their edits; an [`Analysis`] is one document as an
//! edit left it, on a snapshot of that database, and answers every feature
//! (diagnostics, hover, navigation, completion, formatting, pictures ...)
//! in byte offsets and plain data.
//!
//! The command line opens one file ([`Analysis::new`], [`Analysis::open`]);
//! the language server keeps a host of every open document and runs each
//! request on an [`AnalysisHost::analysis`] snapshot. Both ask the same
//! methods, so a new editor feature is one module of this crate plus one
//! method here.

use std::collections::HashMap;
use std::sync::Arc;

use layout_db::salsa::{CancellationToken, Database as _, Setter};
use layout_db::{Database, FileReport, KernelSummary, NamedValue, SourceFile};
use layout_syntax::Span;
use layout_syntax::dump::{SectionChoice, select, select_with};

use crate::line_index::LineIndex;

/// One document as the host holds it.
#[derive(Clone)]
struct Document {
    file: SourceFile,
    text: Arc<str>,
    index: Arc<LineIndex>,
}

impl Document {
    fn new(file: SourceFile, text: String) -> Document {
        Document {
            file,
            index: Arc::new(LineIndex::new(&text)),
            text: text.into(),
        }
    }
}

/// The database and the documents open in it, by path (the server's
/// document URI). Edits go through here; reads go through [`Analysis`].
#[derive(Default)]
pub struct AnalysisHost {
    db: Database,
    documents: HashMap<String, Document>,
    /// The solver's time limit every document is checked with (the
    /// client's `solverTimeoutMs`), when one is set.
    solver_timeout_ms: Option<u64>,
}

impl AnalysisHost {
    /// A host over `db` (a database built with an event hook, for tests
    /// that count query executions).
    pub fn with_database(db: Database) -> AnalysisHost {
        AnalysisHost {
            db,
            ..AnalysisHost::default()
        }
    }

    /// Opens `path` with `text`, or gives an open one a new text (items
    /// whose text did not change keep their checked results).
    pub fn open(&mut self, path: &str, text: String) {
        let file = match self.documents.get(path) {
            Some(doc) => {
                doc.file.edit(&mut self.db, text.clone());
                doc.file
            }
            None => SourceFile::open(&mut self.db, path.to_string(), text.clone()),
        };
        if *file.solver_timeout_ms(&self.db) != self.solver_timeout_ms {
            file.set_solver_timeout_ms(&mut self.db)
                .to(self.solver_timeout_ms);
        }
        self.documents
            .insert(path.to_string(), Document::new(file, text));
    }

    /// Gives the open document `path` a new text; false when it is not open.
    pub fn edit(&mut self, path: &str, text: String) -> bool {
        let Some(doc) = self.documents.get_mut(path) else {
            return false;
        };
        doc.file.edit(&mut self.db, text.clone());
        *doc = Document::new(doc.file, text);
        true
    }

    pub fn close(&mut self, path: &str) {
        self.documents.remove(path);
    }

    /// The text of the open document `path`.
    pub fn text(&self, path: &str) -> Option<Arc<str>> {
        self.documents.get(path).map(|d| d.text.clone())
    }

    /// The solver's time limit the documents are checked with.
    pub fn solver_timeout(&self) -> Option<u64> {
        self.solver_timeout_ms
    }

    /// A new solver time limit, for the open documents and those opened
    /// later.
    pub fn set_solver_timeout(&mut self, ms: Option<u64>) {
        if self.solver_timeout_ms == ms {
            return;
        }
        self.solver_timeout_ms = ms;
        for doc in self.documents.values() {
            doc.file.set_solver_timeout_ms(&mut self.db).to(ms);
        }
    }

    /// The open document `path` as it is now, on a snapshot of the
    /// database: its queries unwind with `salsa::Cancelled` once the host
    /// takes an edit (see [`Analysis::cancellation_token`]).
    pub fn analysis(&self, path: &str) -> Option<Analysis> {
        let doc = self.documents.get(path)?;
        Some(Analysis {
            db: self.db.clone(),
            file: doc.file,
            text: doc.text.clone(),
            index: doc.index.clone(),
        })
    }
}

/// One document and a database to analyse it with.
pub struct Analysis {
    db: Database,
    file: SourceFile,
    text: Arc<str>,
    index: Arc<LineIndex>,
}

impl Analysis {
    /// `text` of `path` in a database of its own; of a dump of several
    /// passes, the last TritonGPU one (what `check` reads by default).
    pub fn new(path: String, text: String) -> Analysis {
        let mut host = AnalysisHost::default();
        host.open(&path, text);
        host.analysis(&path).expect("the file was just opened")
    }

    /// `text` of `path`, checking the section of a multi-pass dump that
    /// `section` chooses. `Err` says why the choice names no section.
    pub fn open(path: String, text: String, section: &SectionChoice) -> Result<Analysis, String> {
        let selection = match section {
            SectionChoice::LastTritonGpu => select(&text),
            chosen => select_with(&text, chosen)?,
        };
        let mut db = Database::default();
        let file = SourceFile::open_selecting(&mut db, path, text.clone(), selection);
        Ok(Analysis {
            db,
            file,
            index: Arc::new(LineIndex::new(&text)),
            text: text.into(),
        })
    }

    /// Every `solve` block's time limit replaced by `ms` (when given).
    /// For an analysis of its own (the command line's): a snapshot of a
    /// host takes its limit from the host.
    pub fn with_solver_timeout(mut self, ms: Option<u64>) -> Analysis {
        if ms.is_some() {
            self.file.set_solver_timeout_ms(&mut self.db).to(ms);
        }
        self
    }

    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    pub fn line_index(&self) -> &Arc<LineIndex> {
        &self.index
    }

    /// Cancels this analysis's queries from another thread (a request
    /// the client gave up on); the host's next edit cancels them too.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.db.cancellation_token()
    }

    /// The database and the file, for what reads the checker's queries
    /// directly (`layoutc import` walks a dump's values).
    pub fn parts(&self) -> (&Database, SourceFile) {
        (&self.db, self.file)
    }

    // The checker's results.

    /// Every diagnostic and check of the file (all of them: a front end
    /// caps what it shows with [`layout_db::capped_diagnostics`]).
    pub fn report(&self) -> FileReport {
        layout_db::check_file(&self.db, self.file).clone()
    }

    /// The values the file declares, in file order.
    pub fn named_values(&self) -> Vec<NamedValue> {
        layout_db::named_values(&self.db, self.file)
    }

    /// The shared-memory summary of each `tt.func` of a dump.
    pub fn kernels(&self) -> Vec<KernelSummary> {
        layout_db::kernel_summaries(&self.db, self.file).clone()
    }

    /// How `coalesced_blocked` chose the value `name`, step by step.
    pub fn coalesce_explanation(&self, name: &str) -> Option<String> {
        crate::coalesce::explain(&self.db, self.file, name)
    }

    /// How many `solve` blocks checking the file runs (a front end shows
    /// that as work in progress).
    pub fn solve_block_count(&self) -> usize {
        crate::solve_block_count(&self.db, self.file)
    }

    // Editor features, one per module of this crate.

    /// The diagnostics an editor shows (capped as the CLI caps them).
    pub fn diagnostics(&self) -> Vec<crate::diagnostics::EditorDiagnostic> {
        crate::diagnostics::diagnostics(&self.db, self.file)
    }

    pub fn hover(&self, offset: usize) -> Option<crate::hover::Hover> {
        crate::hover::hover(&self.db, self.file, offset)
    }

    pub fn definition(&self, offset: usize) -> Option<crate::navigation::NavTarget> {
        crate::navigation::definition(&self.db, self.file, offset)
    }

    /// The Python lines a dump's `loc(...)` at `offset` names.
    pub fn source_locations(&self, offset: usize) -> Vec<crate::navigation::SourceLocation> {
        crate::navigation::source_locations(&self.db, self.file, offset)
    }

    pub fn references(&self, offset: usize) -> Vec<crate::navigation::Occurrence> {
        crate::navigation::references(&self.db, self.file, offset)
    }

    pub fn highlight(&self, offset: usize) -> Vec<crate::navigation::Occurrence> {
        crate::navigation::highlight(&self.db, self.file, offset)
    }

    pub fn prepare_rename(&self, offset: usize) -> Result<Span, String> {
        crate::navigation::prepare_rename(&self.db, self.file, offset)
    }

    pub fn rename(&self, offset: usize, new_name: &str) -> Result<Vec<crate::TextEdit>, String> {
        crate::navigation::rename(&self.db, self.file, offset, new_name)
    }

    pub fn document_symbols(&self) -> Vec<crate::symbols::Symbol> {
        crate::symbols::document_symbols(&self.db, self.file)
    }

    /// Every symbol with the name of the one it is in.
    pub fn flat_symbols(&self) -> Vec<(crate::symbols::Symbol, Option<String>)> {
        crate::symbols::flat_symbols(&self.db, self.file)
    }

    pub fn folding_ranges(&self) -> Vec<crate::symbols::Fold> {
        crate::symbols::folding_ranges(&self.db, self.file)
    }

    pub fn completions(&self, offset: usize) -> Vec<crate::completion::CompletionItem> {
        crate::completion::completions(&self.db, self.file, offset)
    }

    pub fn signature_help(&self, offset: usize) -> Option<crate::signature_help::SignatureHelp> {
        crate::signature_help::signature_help(&self.db, self.file, offset)
    }

    pub fn semantic_tokens(&self) -> Vec<crate::semantic_tokens::SemanticToken> {
        crate::semantic_tokens::semantic_tokens(&self.db, self.file)
    }

    /// Inlay hints, of the items that meet `range` (all when `None`).
    pub fn inlay_hints(&self, range: Option<Span>) -> Vec<crate::inlay_hints::InlayHint> {
        crate::inlay_hints::inlay_hints(&self.db, self.file, range)
    }

    pub fn code_actions(&self, range: Span) -> Vec<crate::code_actions::CodeAction> {
        crate::code_actions::code_actions(&self.db, self.file, range)
    }

    /// The edits that format the whole file (none when it is formatted or
    /// does not parse).
    pub fn format(&self) -> Vec<crate::TextEdit> {
        crate::formatting::format(&self.db, self.file)
    }

    pub fn format_range(&self, range: Span) -> Vec<crate::TextEdit> {
        crate::formatting::format_range(&self.db, self.file, range)
    }

    /// The picture of the value `name` (`layoutc render`).
    pub fn picture(
        &self,
        name: &str,
    ) -> Result<crate::picture::Picture, crate::picture::PictureError> {
        crate::picture::picture(&self.db, self.file, name)
    }
}
