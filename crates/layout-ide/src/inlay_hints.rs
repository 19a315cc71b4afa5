//! Inlay hints: after a layout's name, its shape (`in -> out`); after a
//! `let` whose value is computed, the value; after a pasted shared-memory
//! access or a conversion, what it costs. Inside an item, after each side
//! of a `check`'s comparison that is computed (`size(t) * 2`), its value;
//! after a `wavefronts`, `bank_conflicts` or `vectorisation` call, its
//! count in words (`= 16 wavefronts`, `= 1 (2-way)`). Sub-expressions are
//! evaluated with layout-db's `evaluate_expr`, as hovers are.

use layout_db::position::evaluate_expr;
use layout_db::{Resolution, SourceItem, Value, evaluate_item, item_ranges, parse_item, resolve};
use layout_syntax::{BinaryOp, Expr, ExprKind, Item, ItemKind};

use crate::{Db, SourceFile, declared_name, present};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Shown just after this byte offset.
    pub offset: usize,
    pub label: String,
    /// A value after an expression (`= 32`), set apart from the text before
    /// it; a shape after a name is not.
    pub padding_left: bool,
}

/// Hints for the items that overlap `range` (all when `None`).
pub fn inlay_hints(db: &dyn Db, file: SourceFile, range: Option<crate::Span>) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for at in item_ranges(db, file) {
        if range.is_some_and(|r| at.range.end < r.start || at.range.start > r.end) {
            continue;
        }
        let Some(item) = &parse_item(db, at.item).item else {
            continue;
        };
        let Some(value) = &evaluate_item(db, at.item).value else {
            continue;
        };
        for (e, label) in sub_expression_hints(db, file, at.item, item) {
            out.push(InlayHint {
                offset: at.to_file(e.span).end,
                label,
                padding_left: true,
            });
        }
        let after_name = declared_name(db, at.item).map(|(_, s)| at.to_file(s).end);
        let label = match (&item.kind, value) {
            (ItemKind::Layout { .. }, v) => present::linear_of(v).map(|l| shape(&l)),
            (ItemKind::Let { value: e, .. }, Value::Int(n)) => {
                (!matches!(e.kind, ExprKind::Int(_))).then(|| format!("= {n}"))
            }
            (ItemKind::Convert { .. }, Value::Conversion(c)) => {
                Some(format!("{}, {} B scratch", c.kind.name(), c.scratch_bytes))
            }
            (ItemKind::MemoryOp { .. }, Value::Access(a)) => Some(format!(
                "{} wavefronts, {}-way ({} x {})",
                a.wavefronts,
                a.conflicts + 1,
                a.instructions,
                a.instruction
            )),
            _ => None,
        };
        let offset = after_name.unwrap_or_else(|| at.to_file(item.span).end);
        if let Some(label) = label {
            out.push(InlayHint {
                offset,
                label: format!(": {label}"),
                padding_left: false,
            });
        }
    }
    out
}

/// The computed sides of a `check`'s comparisons, and the bank-model
/// calls anywhere in the item (except a `let`'s whole value, which is
/// hinted after its name), each with its label. Literals get none.
fn sub_expression_hints<'a>(
    db: &dyn Db,
    file: SourceFile,
    key: SourceItem,
    item: &'a Item,
) -> Vec<(&'a Expr, String)> {
    let mut sides: Vec<&Expr> = Vec::new();
    if let ItemKind::Check { expr } = &item.kind {
        comparison_sides(expr, &mut sides);
    }
    let whole_value = match &item.kind {
        ItemKind::Let { value, .. } => Some(value.span),
        _ => None,
    };
    let mut calls: Vec<(&Expr, &str)> = Vec::new();
    layout_db::names::for_each_expr(item, &mut |e, _| {
        if let ExprKind::Call { callee, .. } = &e.kind
            && let ExprKind::Name(n) = &callee.kind
        {
            let counted = matches!(
                n.as_str(),
                "wavefronts" | "bank_conflicts" | "vectorisation"
            );
            if counted
                && Some(e.span) != whole_value
                && matches!(resolve(db, file, n), Resolution::Builtin(_))
            {
                calls.push((e, n.as_str()));
            }
        }
    });
    let mut out = Vec::new();
    for (e, name) in &calls {
        if let Some(Value::Int(n)) = evaluate_expr(db, key, e) {
            let label = match *name {
                "wavefronts" => format!("= {n} wavefronts"),
                "bank_conflicts" => format!("= {n} ({}-way)", n + 1),
                _ => format!("= {n} elements"),
            };
            out.push((*e, label));
        }
    }
    for e in sides {
        if out.iter().any(|(c, _)| c.span == e.span) {
            continue;
        }
        let shown = match evaluate_expr(db, key, e) {
            Some(v @ (Value::Int(_) | Value::Bool(_) | Value::Str(_))) => v.to_string(),
            _ => continue,
        };
        out.push((e, format!("= {shown}")));
    }
    out.sort_by_key(|(e, _)| e.span.end);
    out
}

/// The operands of the comparisons of a `check` (through `and`, `or`,
/// `not`) that are computed, not written as literals.
fn comparison_sides<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            lhs,
            rhs,
        } => {
            comparison_sides(lhs, out);
            comparison_sides(rhs, out);
        }
        ExprKind::Not(x) => comparison_sides(x, out),
        ExprKind::Binary {
            op:
                BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
            lhs,
            rhs,
        } => {
            for side in [lhs, rhs] {
                if matches!(
                    side.kind,
                    ExprKind::Call { .. } | ExprKind::Binary { .. } | ExprKind::Neg(_)
                ) {
                    out.push(side);
                }
            }
        }
        _ => {}
    }
}

/// `register 4 x lane 32 -> 32 x 16`.
fn shape(l: &layout_algebra::LinearLayout) -> String {
    let ins: Vec<String> = l
        .in_dims()
        .iter()
        .filter(|(_, s)| *s > 1)
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    let outs: Vec<String> = l.out_dims().iter().map(|(_, s)| s.to_string()).collect();
    format!("{} -> {}", ins.join(" x "), outs.join("x"))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture;

    fn with_hints(db: &crate::Database, file: SourceFile, text: &str) -> String {
        let mut shown = text.to_string();
        // Hints at the same offset keep their order.
        let mut hints = inlay_hints(db, file, None);
        hints.sort_by_key(|h| h.offset);
        for h in hints.iter().rev() {
            shown.insert_str(h.offset, &format!("«{}»", h.label));
        }
        shown
    }

    #[test]
    fn hints_show_shapes_computed_integers_and_costs() {
        let text = r#"#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
layout t = tensor<16x64xf16, #b>
let n = 3
let m = n * 4
layout c = cute (4,8):(8,1)
"#;
        let (db, file) = fixture::open(text);
        let shown = with_hints(&db, file, text);
        expect![[r#"
            #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
            layout t«: register 8 x lane 32 x warp 4 -> 16x64» = tensor<16x64xf16, #b>
            let n = 3
            let m«: = 12» = n * 4
            layout c«: index 32 -> 32» = cute (4,8):(8,1)
        "#]].assert_eq(&shown);
    }

    #[test]
    fn computed_check_sides_and_bank_counts_show_their_values() {
        let text = r#"target = sm90
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
layout t = tensor<64x64xf16, #b>
layout s = tensor<64x64xf16, #s>
let n = size(t) * 2
check size(t) == 64 * 64 and wavefronts(t, s) >= 16
let c = bank_conflicts(t, s) + 0
check not (rank(t) == 3)
"#;
        let (db, file) = fixture::open(text);
        expect![[r#"
            target = sm90
            #b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
            #s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
            layout t«: register 32 x lane 32 x warp 4 -> 64x64» = tensor<64x64xf16, #b>
            layout s«: offset 4096 -> 64x64» = tensor<64x64xf16, #s>
            let n«: = 8192» = size(t) * 2
            check size(t)«= 4096» == 64 * 64«= 4096» and wavefronts(t, s)«= 16 wavefronts» >= 16
            let c«: = 0» = bank_conflicts(t, s)«= 0 (1-way)» + 0
            check not (rank(t)«= 2» == 3)
        "#]].assert_eq(&with_hints(&db, file, text));
    }

    #[test]
    fn a_pasted_access_shows_its_wavefronts_and_ways() {
        let text = r#"target = sm90
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
%a = ttg.local_alloc %x : (tensor<64x64xf16, #b>) -> !ttg.memdesc<64x64xf16, #s, #smem, mutable>
"#;
        let (db, file) = fixture::open(text);
        expect![[r#"
            target = sm90
            #b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
            #s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
            #smem = #ttg.shared_memory
            %a«: 16 wavefronts, 1-way (4 x st.shared.v4.b32)» = ttg.local_alloc %x : (tensor<64x64xf16, #b>) -> !ttg.memdesc<64x64xf16, #s, #smem, mutable>
        "#]].assert_eq(&with_hints(&db, file, text));
    }
}
