//! Positions in a file: which item holds an offset, and what the expression
//! under it evaluates to. Offsets are bytes from the start of the file;
//! items keep item-relative spans, so these functions do the shifting.

use layout_syntax::{Expr, ExprKind, Span};

use crate::context::Ctx;
use crate::names::for_each_expr;
use crate::{SourceFile, SourceItem, Value, parse_item};

/// One item of a file and the bytes it covers (from its first byte to the
/// next item's first byte, so every offset of the file is in some item).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemAt {
    pub index: usize,
    pub item: SourceItem,
    pub range: Span,
}

impl ItemAt {
    /// `span` (relative to the item) as a file span.
    pub fn to_file(&self, span: Span) -> Span {
        span.shift(self.range.start)
    }

    /// `offset` (in the file) relative to the item.
    pub fn relative(&self, offset: usize) -> usize {
        offset.saturating_sub(self.range.start)
    }
}

/// Every item of a file with its range, in file order.
pub fn item_ranges(db: &dyn salsa::Database, file: SourceFile) -> Vec<ItemAt> {
    let offsets = file.offsets(db);
    let end = file.text(db).len();
    file.items(db)
        .iter()
        .enumerate()
        .map(|(index, &item)| ItemAt {
            index,
            item,
            range: Span::new(
                offsets[index],
                offsets.get(index + 1).copied().unwrap_or(end),
            ),
        })
        .collect()
}

/// The item that covers `offset` (at a boundary, the item that starts
/// there; at the end of the file, the last item).
pub fn item_at(db: &dyn salsa::Database, file: SourceFile, offset: usize) -> Option<ItemAt> {
    let offsets = file.offsets(db);
    if offsets.is_empty() {
        return None;
    }
    let index = offsets.partition_point(|&s| s <= offset).saturating_sub(1);
    item_ranges(db, file).get(index).copied()
}

/// The innermost expression of an item whose span holds `offset` (relative
/// to the item), and whether it is a callee.
pub fn expr_at(item: &layout_syntax::Item, offset: usize) -> Option<(&Expr, bool)> {
    let mut best: Option<(&Expr, bool)> = None;
    // `for_each_expr` visits outer expressions first: the last hit that is
    // no larger than the one before is the innermost.
    for_each_expr(item, &mut |e, callee| {
        let len = |x: &Expr| x.span.end - x.span.start;
        if e.span.contains(offset) && best.is_none_or(|(b, _)| len(e) <= len(b)) {
            best = Some((e, callee));
        }
    });
    best
}

/// A sub-expression and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueAt {
    /// The expression's span in the file.
    pub span: Span,
    pub value: Value,
}

/// The value of the innermost expression under `offset` (a call argument,
/// a pasted literal, a name): for hovers and inlay hints. `None` where the
/// item does not parse or the expression has errors. Diagnostics of the
/// sub-expression are dropped: the item's own evaluation reports them.
pub fn value_at(db: &dyn salsa::Database, file: SourceFile, offset: usize) -> Option<ValueAt> {
    let at = item_at(db, file, offset)?;
    let parsed = parse_item(db, at.item);
    if !parsed.errors.is_empty() {
        return None;
    }
    let item = parsed.item.as_ref()?;
    let (expr, _) = expr_at(item, at.relative(offset))?;
    let value = evaluate_expr(db, at.item, expr)?;
    Some(ValueAt {
        span: at.to_file(expr.span),
        value,
    })
}

/// Evaluates one expression of `item`, as hovers, inlay hints and code
/// actions ask. An expression of the item's own tree is memoized by its
/// span (a repeated request, or one after an edit elsewhere, is not
/// recomputed: a bank-conflict count of a large padded layout takes
/// seconds); any other expression is evaluated as it comes.
pub fn evaluate_expr(db: &dyn salsa::Database, item: SourceItem, expr: &Expr) -> Option<Value> {
    match expr_in_tree(db, item, expr.span) {
        Some(found) if found == expr => expr_value(db, item, expr.span).clone(),
        _ => evaluate_now(db, item, expr),
    }
}

/// The outermost expression of `item`'s tree at `span`.
pub(crate) fn expr_in_tree(
    db: &dyn salsa::Database,
    item: SourceItem,
    span: Span,
) -> Option<&Expr> {
    let tree = parse_item(db, item).item.as_ref()?;
    let mut found = None;
    for_each_expr(tree, &mut |e, _| {
        if found.is_none() && e.span == span {
            found = Some(e);
        }
    });
    found
}

/// The value of the expression of `item`'s tree at `span` (relative to the
/// item), memoized.
#[salsa::tracked]
fn expr_value(db: &dyn salsa::Database, item: SourceItem, span: Span) -> Option<Value> {
    evaluate_now(db, item, expr_in_tree(db, item, span)?)
}

/// Evaluates `expr` outside any query of its own.
fn evaluate_now(db: &dyn salsa::Database, item: SourceItem, expr: &Expr) -> Option<Value> {
    let mut ctx = Ctx::new(db, item);
    let outcome = crate::cancel::interruptible(db, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.expr(expr)))
    });
    match outcome {
        Ok(v) => v.ok(),
        Err(payload) if payload.is::<salsa::Cancelled>() => std::panic::resume_unwind(payload),
        Err(_) => None,
    }
}

/// The shared-memory access an item counts: its value when it is a pasted
/// `local_alloc/local_store/local_load`, else the first `wavefronts(...)`,
/// `bank_conflicts(...)` or `vectorisation(...)` call in it (`let w =
/// wavefronts(...)`, `check bank_conflicts(...) == 0`), counted as that call
/// counts it. `None` when the item has none or it does not evaluate.
pub fn access_in_item(
    db: &dyn salsa::Database,
    item: SourceItem,
) -> Option<crate::access::CountedCall> {
    if let Some(Value::Access(a)) = &crate::evaluate_item(db, item).value {
        return Some(crate::access::CountedCall::from(&**a));
    }
    let parsed = parse_item(db, item);
    let tree = parsed.item.as_ref()?;
    let file = *item.file(db);
    let mut call = None;
    for_each_expr(tree, &mut |e, _| {
        if call.is_some() {
            return;
        }
        if let ExprKind::Call { callee, args } = &e.kind
            && let ExprKind::Name(name) = &callee.kind
            && crate::costly::COUNTING_CALLS.contains(&name.as_str())
            && !matches!(
                crate::resolve(db, file, name),
                crate::Resolution::Declared(_)
            )
        {
            call = Some((name.clone(), args, e.span));
        }
    });
    let (name, args, span) = call?;
    let builtin = crate::builtins::builtin(&name)?;
    let mut ctx = Ctx::new(db, item);
    let counted = crate::cancel::interruptible(db, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let bound = ctx.bound_args(builtin, args, span)?;
            crate::access::counted_call(&mut ctx.cx, &name, bound.values(), span)
        }))
    });
    match counted {
        Ok(c) => c.ok(),
        Err(payload) if payload.is::<salsa::Cancelled>() => std::panic::resume_unwind(payload),
        Err(_) => None,
    }
}
