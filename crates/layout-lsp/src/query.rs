//! Running one request on a snapshot of the database, off the async
//! threads. A snapshot's queries unwind with `salsa::Cancelled` when an
//! edit arrives (the edit cancels every snapshot in flight first, so a
//! solve stops its search at once) or when the client cancels the request
//! (`$/cancelRequest` drops the handler, which cancels its snapshot): the
//! request is answered with `ContentModified` (the client asks again). Any
//! other panic is a bug in one request: it is logged and answered with an
//! internal error, and the server goes on.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use layout_ide::salsa::{CancellationToken, Cancelled};
use layout_ide::{Analysis, LineIndex};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

/// What a request reads: one document as it was, on a database snapshot.
pub struct Snapshot {
    pub analysis: Analysis,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
    pub version: i32,
    /// Listed among the snapshots in flight while this one lives.
    pub in_flight: InFlightEntry,
}

/// The cancellation tokens of the snapshots requests are running on, so
/// that an edit stops them before it waits for them to finish.
#[derive(Clone, Default)]
pub struct InFlight {
    tokens: Arc<Mutex<HashMap<u64, CancellationToken>>>,
    next: Arc<AtomicU64>,
}

impl InFlight {
    /// Lists `analysis`'s token until the returned entry is dropped.
    pub fn register(&self, analysis: &Analysis) -> InFlightEntry {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let token = analysis.cancellation_token();
        self.lock().insert(id, token.clone());
        InFlightEntry {
            id,
            token,
            set: self.clone(),
        }
    }

    /// Cancels every snapshot in flight.
    pub fn cancel_all(&self) {
        for token in self.lock().values() {
            token.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One snapshot's place in [`InFlight`].
pub struct InFlightEntry {
    id: u64,
    token: CancellationToken,
    set: InFlight,
}

impl Drop for InFlightEntry {
    fn drop(&mut self) {
        self.set.lock().remove(&self.id);
    }
}

/// What can be cancelled when its request is dropped unanswered.
pub trait Cancellable {
    fn token(&self) -> Option<CancellationToken>;
}

impl Cancellable for Snapshot {
    fn token(&self) -> Option<CancellationToken> {
        Some(self.in_flight.token.clone())
    }
}

impl Cancellable for () {
    fn token(&self) -> Option<CancellationToken> {
        None
    }
}

/// Cancels a token unless disarmed: dropped with its request future when
/// the client cancels the request.
struct CancelOnDrop(Option<CancellationToken>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// LSP's `ContentModified`: the answer would be for a text that is gone.
const CONTENT_MODIFIED: i64 = -32801;

pub async fn run<D: Cancellable + Send + 'static, T: Send + 'static>(
    snapshot: D,
    what: &'static str,
    f: impl FnOnce(&D) -> T + Send + 'static,
) -> Result<T> {
    let mut on_drop = CancelOnDrop(snapshot.token());
    let task = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| f(&snapshot)))
    });
    let finished = task.await;
    on_drop.0 = None;
    match finished {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(payload)) if payload.is::<Cancelled>() => Err(Error {
            code: ErrorCode::ServerError(CONTENT_MODIFIED),
            message: "the document changed".into(),
            data: None,
        }),
        Ok(Err(payload)) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            eprintln!("layoutc lsp: internal error in {what}: {why}");
            Err(Error {
                code: ErrorCode::InternalError,
                message: format!("internal error in {what}: {why}").into(),
                data: None,
            })
        }
        Err(e) => Err(Error {
            code: ErrorCode::InternalError,
            message: format!("{what} did not finish: {e}").into(),
            data: None,
        }),
    }
}
