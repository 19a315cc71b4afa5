//! The open documents and the database that holds them.
//!
//! Edits must be applied in arrival order. tower-lsp-server runs handlers
//! concurrently, but it polls each new handler once, in arrival order,
//! before the next message's; `didChange` applies its edits in that first
//! poll (under a plain mutex, with no `.await` before), so arrival order is
//! kept. Versions are not used for ordering: clients may skip numbers
//! (Neovim sends its change tick).

use std::collections::HashMap;
use std::sync::Arc;

use layout_ide::{Database, SourceFile};
use layout_ide::{LineCol, LineIndex};

use crate::query::InFlight;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

/// One open document as the last applied edit left it.
#[derive(Clone)]
pub struct Document {
    pub file: SourceFile,
    pub version: i32,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
}

#[derive(Default)]
pub struct Documents {
    pub db: Database,
    pub open: HashMap<Uri, Document>,
    /// The snapshots requests run on: an edit cancels them before it
    /// writes, since salsa's write waits until every snapshot is gone.
    pub in_flight: InFlight,
    /// The client's solver time limit (`initializationOptions` or
    /// settings: `solverTimeoutMs`), set on every open document.
    pub solver_timeout_ms: Option<u64>,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        self.in_flight.cancel_all();
        let file = match self.open.get(&uri) {
            Some(doc) => {
                doc.file.edit(&mut self.db, text.clone());
                doc.file
            }
            None => SourceFile::open(&mut self.db, uri.as_str().to_string(), text.clone()),
        };
        if *file.solver_timeout_ms(&self.db) != self.solver_timeout_ms {
            use layout_ide::salsa::Setter;
            file.set_solver_timeout_ms(&mut self.db)
                .to(self.solver_timeout_ms);
        }
        self.open.insert(
            uri,
            Document {
                file,
                version,
                index: Arc::new(LineIndex::new(&text)),
                text: text.into(),
            },
        );
    }

    /// A new solver time limit, for the open documents and those opened
    /// later.
    pub fn set_solver_timeout(&mut self, ms: Option<u64>) {
        use layout_ide::salsa::Setter;
        if self.solver_timeout_ms == ms {
            return;
        }
        self.in_flight.cancel_all();
        self.solver_timeout_ms = ms;
        for doc in self.open.values() {
            doc.file.set_solver_timeout_ms(&mut self.db).to(ms);
        }
    }

    /// Applies the changes of one `didChange`. Returns whether the
    /// document is open.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(doc) = self.open.get_mut(uri) else {
            return false;
        };
        self.in_flight.cancel_all();
        let mut text = doc.text.to_string();
        for c in &changes {
            apply(&mut text, c);
        }
        doc.version = version;
        doc.file.edit(&mut self.db, text.clone());
        doc.index = Arc::new(LineIndex::new(&text));
        doc.text = text.into();
        true
    }

    pub fn close(&mut self, uri: &Uri) {
        self.open.remove(uri);
    }
}

/// One content change: a whole new text, or a range replaced.
fn apply(text: &mut String, change: &TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text.clone(),
        Some(range) => {
            let index = LineIndex::new(text);
            let at = |p: tower_lsp_server::ls_types::Position| {
                index.from_utf16(
                    text,
                    LineCol {
                        line: p.line,
                        col: p.character,
                    },
                )
            };
            let (start, end) = (at(range.start), at(range.end));
            let (start, end) = (start.min(end), start.max(end));
            text.replace_range(start..end, &change.text);
        }
    }
}
