//! Long computations that stop when their query is cancelled (an edit, or
//! an editor's `$/cancelRequest`, cancels the snapshot's salsa token), and
//! unwind as salsa's cancellation so that what they stopped at is never
//! memoised as an answer.

use layout_solve::Cancel;

/// Runs a search that polls the token through the solver's [`Cancel`].
pub(crate) fn cancellable<T>(db: &dyn salsa::Database, search: impl FnOnce(&Cancel) -> T) -> T {
    let token = db.cancellation_token();
    let cancel = Cancel::following(move || token.is_cancelled());
    let out = search(&cancel);
    if cancel.is_cancelled() {
        unwind_cancelled(db);
    }
    out
}

/// Runs an evaluation whose algebra polls the token
/// ([`layout_algebra::interrupt`]): counting every element of a large
/// tensor stops within a few milliseconds of an edit.
pub(crate) fn interruptible<T>(db: &dyn salsa::Database, evaluate: impl FnOnce() -> T) -> T {
    let token = db.cancellation_token();
    let (out, stopped) =
        layout_algebra::interrupt::with_poll(move || token.is_cancelled(), evaluate);
    if stopped {
        unwind_cancelled(db);
    }
    out
}

fn unwind_cancelled(db: &dyn salsa::Database) -> ! {
    db.unwind_if_revision_cancelled();
    // Salsa does not unwind a local cancellation inside a query with cycle
    // recovery (evaluation has one), so unwind here: the result of a
    // stopped computation is no answer and must not be memoised.
    std::panic::resume_unwind(Box::new(salsa::Cancelled::Local));
}
