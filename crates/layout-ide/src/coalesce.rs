//! Why `coalesced_blocked(...)` chose its layout, step by step as seed 003
//! explains Triton's coalesce pass: the order from contiguity,
//! `sizePerThread` from alignment and the 128-bit limit, then
//! `threadsPerWarp` and `warpsPerCTA`. `layoutc show` prints it under the
//! value, and a hover on the declaration's name or on the call shows it:
//! both ask [`explain_call`].

use layout_algebra::triton::CgaLayout;
use layout_algebra::triton::coalesce::{AxisInfo, CoalesceRequest, CoalesceSteps, coalesce_steps};
use layout_db::{SourceItem, Value};
use layout_syntax::{Expr, ExprKind, ItemKind};

use crate::{Db, SourceFile};

/// The signature of `coalesced_blocked`, for binding named arguments.
const PARAMS: [&str; 6] = [
    "shape",
    "bits",
    "contiguity",
    "divisibility",
    "num_warps",
    "threads_per_warp",
];

/// The explanation of the declaration `name` when it is a call of
/// `coalesced_blocked` whose arguments evaluate; `None` otherwise.
pub fn explain(db: &dyn Db, file: SourceFile, name: &str) -> Option<String> {
    let nv = layout_db::named_values(db, file)
        .into_iter()
        .find(|v| v.name == name)?;
    let at = layout_db::item_at(db, file, nv.item_span.start)?;
    explain_item(db, file, at.item)
}

/// The explanation of a declaration whose value is a `coalesced_blocked`
/// call (`let load = coalesced_blocked(...)`).
pub fn explain_item(db: &dyn Db, file: SourceFile, item: SourceItem) -> Option<String> {
    let parsed = layout_db::parse_item(db, item).item.as_ref()?;
    let value = match &parsed.kind {
        ItemKind::Layout { value, .. } | ItemKind::Let { value, .. } => value,
        _ => return None,
    };
    explain_call(db, file, item, value)
}

/// The innermost `coalesced_blocked(...)` call of `item` around the
/// item-relative offset `rel`.
pub fn call_at(item: &layout_syntax::Item, rel: usize) -> Option<&Expr> {
    let mut found: Option<&Expr> = None;
    layout_db::names::for_each_expr(item, &mut |e, _| {
        if is_coalesce_call(e)
            && e.span.contains(rel)
            && found.is_none_or(|f| f.span.end - f.span.start > e.span.end - e.span.start)
        {
            found = Some(e);
        }
    });
    found
}

fn is_coalesce_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { callee, .. }
        if matches!(&callee.kind, ExprKind::Name(n) if n == "coalesced_blocked"))
}

/// The explanation of the call `call` (an expression of `item`) when it is
/// `coalesced_blocked(...)` and its arguments evaluate.
pub fn explain_call(
    db: &dyn Db,
    file: SourceFile,
    item: SourceItem,
    call: &Expr,
) -> Option<String> {
    if !is_coalesce_call(call) {
        return None;
    }
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    let mut bound: [Option<Value>; 6] = Default::default();
    for (i, arg) in args.iter().enumerate() {
        let slot = match &arg.name {
            Some(n) => PARAMS.iter().position(|p| *p == n.name)?,
            None => i,
        };
        *bound.get_mut(slot)? = Some(layout_db::position::evaluate_expr(db, item, &arg.value)?);
    }
    let list = |v: &Option<Value>| -> Option<Vec<u32>> {
        match v.as_ref()? {
            Value::List(items) | Value::Tuple(items) => items
                .iter()
                .map(|x| match x {
                    Value::Int(n) => u32::try_from(*n).ok(),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    };
    let int = |v: &Option<Value>| match v {
        Some(Value::Int(n)) => u32::try_from(*n).ok(),
        _ => None,
    };
    let facts = layout_db::file_target(db, file);
    let shape = list(&bound[0])?;
    let rank = shape.len();
    let req = CoalesceRequest {
        element_bits: int(&bound[1])?,
        pointer: AxisInfo {
            contiguity: list(&bound[2])?,
            divisibility: list(&bound[3])?,
        },
        same_order: Vec::new(),
        num_warps: int(&bound[4]).unwrap_or(facts.num_warps.unwrap_or(4)),
        threads_per_warp: int(&bound[5]).unwrap_or(facts.threads_per_warp()),
        cga: CgaLayout::single(rank),
        shape,
    };
    let steps = coalesce_steps(&req).ok()?;
    Some(steps_text(&req, &steps))
}

fn list(v: &[impl ToString]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The steps in words, with the numbers of this request.
pub fn steps_text(req: &CoalesceRequest, s: &CoalesceSteps) -> String {
    let b = &s.layout;
    let fast = s.order[0];
    let mut out = String::from("  Triton's coalesce pass, step by step (seed 003):\n");
    out += &format!(
        "  1. order = {}: the dims sorted by contiguity {}, most contiguous first\n",
        list(&s.order),
        list(&req.pointer.contiguity)
    );
    let per_thread = b.size_per_thread[fast];
    out += &format!(
        "  2. sizePerThread = {}: along dim {fast}, alignment allows min({} bytes / {} bytes per element, contiguity {}) = {} elements, the 128-bit limit {}, and each of the {} threads owns {} elements on average; the least of these is {}\n",
        list(&b.size_per_thread),
        s.divisibility,
        s.element_bytes,
        s.contiguity,
        s.alignment,
        s.vector_limit,
        req.num_warps * req.threads_per_warp,
        s.elements_per_thread,
        per_thread
    );
    let room = |d: usize| (req.shape[d] / b.size_per_thread[d]).max(1);
    let dims: Vec<String> = s
        .order
        .iter()
        .map(|&d| {
            format!(
                "dim {d} ({} / {} = {} positions) takes {}",
                req.shape[d],
                b.size_per_thread[d],
                room(d),
                b.threads_per_warp[d]
            )
        })
        .collect();
    out += &format!(
        "  3. threadsPerWarp = {}: the {} lanes fill the dims in order: {}; the last dim takes the rest\n",
        list(&b.threads_per_warp),
        req.threads_per_warp,
        dims.join(", ")
    );
    let dims: Vec<String> = s
        .order
        .iter()
        .map(|&d| format!("dim {d} takes {}", b.warps_per_cta[d]))
        .collect();
    out += &format!(
        "  4. warpsPerCTA = {}: the {} warps go where the lanes left room, in the same order: {}\n",
        list(&b.warps_per_cta),
        req.num_warps,
        dims.join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_db::Database;

    /// expect-test strips the common indentation of its snapshot.
    fn dedent(text: &str) -> String {
        text.lines()
            .map(|l| format!("{}\n", l.trim_start()))
            .collect()
    }

    #[test]
    fn seed_003s_load_is_explained_step_by_step() {
        let mut db = Database::default();
        let text = r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
let load = coalesced_blocked([64, 64], 32, [1, 64], [16, 16])
layout other = coalesced_blocked(shape = [64, 64], bits = 16, contiguity = [64, 1], divisibility = [4, 16], num_warps = 8)
layout plain = xla f32[4]
"#;
        let file = SourceFile::open(&mut db, "t.lay".into(), text.into());
        expect_test::expect![[r#"
              Triton's coalesce pass, step by step (seed 003):
              1. order = [1, 0]: the dims sorted by contiguity [1, 64], most contiguous first
              2. sizePerThread = [1, 4]: along dim 1, alignment allows min(16 bytes / 4 bytes per element, contiguity 64) = 4 elements, the 128-bit limit 4, and each of the 128 threads owns 32 elements on average; the least of these is 4
              3. threadsPerWarp = [2, 16]: the 32 lanes fill the dims in order: dim 1 (64 / 4 = 16 positions) takes 16, dim 0 (64 / 1 = 64 positions) takes 2; the last dim takes the rest
              4. warpsPerCTA = [4, 1]: the 4 warps go where the lanes left room, in the same order: dim 1 takes 1, dim 0 takes 4
        "#]]
        .assert_eq(&dedent(&explain(&db, file, "load").unwrap()));
        // Named arguments; 4-byte divisibility allows 2 f16 elements.
        let other = explain(&db, file, "other").unwrap();
        assert!(other.contains("sizePerThread = [2, 1]"), "{other}");
        assert!(
            other.contains("min(4 bytes / 2 bytes per element, contiguity 64) = 2"),
            "{other}"
        );
        assert!(other.contains("the 8 warps"), "{other}");
        assert_eq!(explain(&db, file, "plain"), None);
    }
}
