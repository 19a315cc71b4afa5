//! The open documents, in the analysis host that holds their database.
//!
//! Edits must be applied in arrival order. tower-lsp-server runs handlers
//! concurrently, but it polls each new handler once, in arrival order,
//! before the next message's; `didChange` applies its edits in that first
//! poll (under a plain mutex, with no `.await` before), so arrival order is
//! kept. Versions are not used for ordering: clients may skip numbers
//! (Neovim sends its change tick).

use std::collections::HashMap;

use layout_ide::{AnalysisHost, LineCol, LineIndex};

use crate::query::InFlight;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

/// The open documents: their texts live in the analysis host (keyed by
/// URI), their versions here.
#[derive(Default)]
pub struct Documents {
    pub host: AnalysisHost,
    /// The version of each open document, as the last applied edit left it.
    pub versions: HashMap<Uri, i32>,
    /// The snapshots requests run on: an edit cancels them before it
    /// writes, since salsa's write waits until every snapshot is gone.
    pub in_flight: InFlight,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        self.in_flight.cancel_all();
        self.host.open(uri.as_str(), text);
        self.versions.insert(uri, version);
    }

    /// A new solver time limit (the client's `solverTimeoutMs`), for the
    /// open documents and those opened later.
    pub fn set_solver_timeout(&mut self, ms: Option<u64>) {
        if self.host.solver_timeout() == ms {
            return;
        }
        self.in_flight.cancel_all();
        self.host.set_solver_timeout(ms);
    }

    /// Applies the changes of one `didChange`. Returns whether the
    /// document is open.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(old) = self.host.text(uri.as_str()) else {
            return false;
        };
        self.in_flight.cancel_all();
        let mut text = old.to_string();
        for c in &changes {
            apply(&mut text, c);
        }
        self.versions.insert(uri.clone(), version);
        self.host.edit(uri.as_str(), text)
    }

    pub fn close(&mut self, uri: &Uri) {
        self.host.close(uri.as_str());
        self.versions.remove(uri);
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.versions.get(uri).copied()
    }

    pub fn uris(&self) -> Vec<Uri> {
        self.versions.keys().cloned().collect()
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
