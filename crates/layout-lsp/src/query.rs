//! Running one request on a snapshot of the database, off the async
//! threads. A snapshot's queries unwind with `salsa::Cancelled` when an
//! edit arrives: the request is answered with `ContentModified` (the
//! client asks again). Any other panic is a bug in one request: it is
//! logged and answered with an internal error, and the server goes on.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use layout_db::salsa::Cancelled;
use layout_db::{Database, SourceFile};
use layout_ide::LineIndex;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

/// What a request reads: a database snapshot and one document as it was.
pub struct Snapshot {
    pub db: Database,
    pub file: SourceFile,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
    pub version: i32,
}

/// LSP's `ContentModified`: the answer would be for a text that is gone.
const CONTENT_MODIFIED: i64 = -32801;

pub async fn run<D: Send + 'static, T: Send + 'static>(
    snapshot: D,
    what: &'static str,
    f: impl FnOnce(&D) -> T + Send + 'static,
) -> Result<T> {
    let task = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| f(&snapshot)))
    });
    match task.await {
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
