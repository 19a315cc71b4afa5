//! The calls that count every element of a tensor (`bank_conflicts`,
//! `wavefronts`, `vectorisation`) are memoised on their own, by item and
//! span, so that the check that holds one, a hover on it and an inlay hint
//! beside it share one count. A count of a large padded layout takes
//! seconds: the editor must pay for it once per text of its item, not once
//! per request.

use layout_syntax::{Expr, ExprKind, Span};

use crate::context::{Ctx, Reported};
use crate::diagnostic::{Code, Diagnostic};
use crate::position::expr_in_tree;
use crate::{SourceItem, Value};

/// The builtins whose call counts one warp's shared-memory access.
pub(crate) const COUNTING_CALLS: [&str; 3] = ["wavefronts", "bank_conflicts", "vectorisation"];

/// A call's value and the diagnostics its evaluation reported.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CallOutcome {
    pub value: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Whether `e` is a counting call of `item`'s own tree (a call built for
/// a code action, or any expression outside the tree, is evaluated as it
/// comes: its span may name another expression of the tree).
pub(crate) fn is_memoised_call(db: &dyn salsa::Database, item: SourceItem, e: &Expr) -> bool {
    let ExprKind::Call { callee, .. } = &e.kind else {
        return false;
    };
    let ExprKind::Name(name) = &callee.kind else {
        return false;
    };
    COUNTING_CALLS.contains(&name.as_str())
        && expr_in_tree(db, item, e.span).is_some_and(|found| found == e)
}

/// The outcome of the counting call at `span` of `item`'s tree.
#[salsa::tracked(returns(ref))]
pub(crate) fn counting_call(db: &dyn salsa::Database, item: SourceItem, span: Span) -> CallOutcome {
    let Some(Expr {
        kind: ExprKind::Call { callee, args },
        ..
    }) = expr_in_tree(db, item, span)
    else {
        return CallOutcome {
            value: None,
            diagnostics: Vec::new(),
        };
    };
    let mut ctx = Ctx::new(db, item);
    let outcome = crate::cancel::interruptible(db, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.call(callee, args, span)
        }))
    });
    let value = match outcome {
        Ok(v) => v.ok(),
        Err(payload) if payload.is::<salsa::Cancelled>() => std::panic::resume_unwind(payload),
        Err(_) => {
            let _: Reported = ctx.cx.error(
                Code::Internal,
                span,
                "internal error while counting this access; please report it with this file",
            );
            None
        }
    };
    CallOutcome {
        value,
        diagnostics: ctx.cx.diags,
    }
}
