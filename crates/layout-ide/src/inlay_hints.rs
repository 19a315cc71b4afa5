//! Inlay hints: after a layout's name, its shape (`in -> out`); after a
//! `let` whose value is computed, the value; after a pasted shared-memory
//! access or a conversion, what it costs.

use layout_db::{Value, evaluate_item, item_ranges, parse_item};
use layout_syntax::{ExprKind, ItemKind};

use crate::{Db, SourceFile, declared_name, present};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Shown just after this byte offset.
    pub offset: usize,
    pub label: String,
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
                "{} wavefronts, {} conflicts",
                a.wavefronts, a.conflicts
            )),
            _ => None,
        };
        let offset = after_name.unwrap_or_else(|| at.to_file(item.span).end);
        if let Some(label) = label {
            out.push(InlayHint {
                offset,
                label: format!(": {label}"),
            });
        }
    }
    out
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

    #[test]
    fn hints_show_shapes_computed_integers_and_costs() {
        let text = r#"#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
layout t = tensor<16x64xf16, #b>
let n = 3
let m = n * 4
layout c = cute (4,8):(8,1)
"#;
        let (db, file) = fixture::open(text);
        let mut shown = text.to_string();
        for h in inlay_hints(&db, file, None).iter().rev() {
            shown.insert_str(h.offset, &format!("«{}»", h.label));
        }
        expect![[r#"
            #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
            layout t«: register 8 x lane 32 x warp 4 -> 16x64» = tensor<16x64xf16, #b>
            let n = 3
            let m«: = 12» = n * 4
            layout c«: index 32 -> 32» = cute (4,8):(8,1)
        "#]].assert_eq(&shown);
    }
}
