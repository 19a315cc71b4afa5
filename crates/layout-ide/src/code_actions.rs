//! Code actions. Rewrites into another notation are offered only when
//! exact, and exactness is checked, not assumed: the rewritten file is
//! evaluated and its value compared with the original's. Quick fixes
//! replace a misspelt name or attribute key with the closest one that
//! exists (the same suggestion the diagnostic's note makes).

use layout_db::diagnostic::did_you_mean;
use layout_db::position::evaluate_expr;
use layout_db::{RefKind, Resolution, item_at, name_refs, parse_item, resolve};
use layout_syntax::{Expr, ExprKind};

use crate::{Database, Db, SourceFile, Span, TextEdit, docs, present};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionKind {
    QuickFix,
    Rewrite,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeAction {
    pub title: String,
    pub kind: ActionKind,
    pub edits: Vec<TextEdit>,
}

pub fn code_actions(db: &dyn Db, file: SourceFile, offset: usize) -> Vec<CodeAction> {
    let mut out = Vec::new();
    quick_fixes(db, file, offset, &mut out);
    rewrites(db, file, offset, &mut out);
    record_answer(db, file, offset, &mut out);
    out
}

/// In a `solve` block: write the solver's answer into it, as
/// `layoutc solve --write` does.
fn record_answer(db: &dyn Db, file: SourceFile, offset: usize, out: &mut Vec<CodeAction>) {
    let Some(at) = item_at(db, file, offset) else {
        return;
    };
    let Some(item) = &parse_item(db, at.item).item else {
        return;
    };
    if !matches!(item.kind, layout_syntax::ItemKind::Solve { .. }) {
        return;
    }
    let Some(layout_db::Value::Solve(solved)) = &layout_db::evaluate_item(db, at.item).value else {
        return;
    };
    let Some(answer) = crate::answer::answer_text(solved) else {
        return;
    };
    if let Some(edit) = crate::answer::record_edit(file.text(db), at.to_file(item.span), &answer) {
        out.push(CodeAction {
            title: format!("Record the solver's answer ({})", solved.status.name()),
            kind: ActionKind::Rewrite,
            edits: vec![edit],
        });
    }
}

fn quick_fixes(db: &dyn Db, file: SourceFile, offset: usize, out: &mut Vec<CodeAction>) {
    let Some(at) = item_at(db, file, offset) else {
        return;
    };
    let rel = at.relative(offset);
    for r in name_refs(db, at.item)
        .iter()
        .filter(|r| r.span.contains(rel))
    {
        if resolve(db, file, &r.name) != Resolution::Unresolved {
            continue;
        }
        let alias = r.name.starts_with('#');
        let mut candidates: Vec<&str> = file
            .declared_names(db)
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| n.starts_with('#') == alias)
            .collect();
        if r.kind == RefKind::Call {
            candidates.extend(layout_db::builtins::all().map(|b| b.name));
        }
        if let Some(fix) = did_you_mean(&r.name, candidates) {
            out.push(CodeAction {
                title: format!("Change to `{fix}`"),
                kind: ActionKind::QuickFix,
                edits: vec![TextEdit {
                    span: at.to_file(r.span),
                    new_text: fix,
                }],
            });
        }
    }
    // A Triton attribute key the kind does not take.
    let Some(item) = &parse_item(db, at.item).item else {
        return;
    };
    layout_db::names::for_each_expr(item, &mut |e, _| {
        let ExprKind::Attribute(a) = &e.kind else {
            return;
        };
        let Some(kind) = docs::encoding_kind(&a.kind.name) else {
            return;
        };
        for entry in &a.entries {
            let key = &entry.key;
            if !key.span.contains(rel) || kind.key(&key.name).is_some() {
                continue;
            }
            if let Some(fix) = did_you_mean(&key.name, kind.keys.iter().map(|k| k.name)) {
                out.push(CodeAction {
                    title: format!("Change to `{fix}`"),
                    kind: ActionKind::QuickFix,
                    edits: vec![TextEdit {
                        span: at.to_file(key.span),
                        new_text: fix,
                    }],
                });
            }
        }
    });
}

fn rewrites(db: &dyn Db, file: SourceFile, offset: usize, out: &mut Vec<CodeAction>) {
    let Some(at) = item_at(db, file, offset) else {
        return;
    };
    let rel = at.relative(offset);
    let parsed = parse_item(db, at.item);
    if !parsed.errors.is_empty() {
        return;
    }
    let Some(item) = &parsed.item else {
        return;
    };
    let mut candidates: Vec<(&Expr, String, Span)> = Vec::new(); // expr, title, span to replace
    layout_db::names::for_each_expr(item, &mut |e, _| {
        if !e.span.contains(rel) {
            return;
        }
        match &e.kind {
            ExprKind::Tensor(t) => {
                if let Some(enc) = &t.encoding {
                    let already =
                        matches!(&enc.kind, ExprKind::Attribute(a) if a.kind.name == "linear");
                    if !already {
                        candidates.push((
                            e,
                            "Rewrite the encoding as #ttg.linear".into(),
                            enc.span,
                        ));
                    }
                }
            }
            ExprKind::Cute(_) | ExprKind::Xla(_) => {
                candidates.push((e, "Rewrite as a linear layout literal".into(), e.span));
            }
            _ => {}
        }
    });
    let text = file.text(db);
    for (expr, title, replace) in candidates {
        let Some(value) = evaluate_expr(db, at.item, expr) else {
            continue;
        };
        let new_text = match &value {
            layout_db::Value::Tensor(t) if t.encoding.padding().is_empty() => {
                present::ttg_linear_text(&t.layout)
            }
            layout_db::Value::Cute(_)
            | layout_db::Value::Swizzled(_)
            | layout_db::Value::Xla(_) => {
                present::linear_of(&value).map(|l| layout_db::value::linear_literal(&l))
            }
            _ => None,
        };
        let Some(new_text) = new_text else {
            continue;
        };
        let edit = TextEdit {
            span: at.to_file(replace),
            new_text,
        };
        if rewrite_is_exact(text, &edit, at.to_file(expr.span).start, &value) {
            out.push(CodeAction {
                title,
                kind: ActionKind::Rewrite,
                edits: vec![edit],
            });
        }
    }
}

/// Applies `edit` to a copy of the file, evaluates the expression that now
/// starts at `start`, and compares its linear layout with the original's.
fn rewrite_is_exact(text: &str, edit: &TextEdit, start: usize, before: &layout_db::Value) -> bool {
    let mut new = text.to_string();
    new.replace_range(edit.span.start..edit.span.end, &edit.new_text);
    let mut scratch = Database::default();
    let file = SourceFile::open(&mut scratch, "rewrite.lay".into(), new);
    let Some(at) = item_at(&scratch, file, start) else {
        return false;
    };
    let parsed = parse_item(&scratch, at.item);
    let Some(item) = &parsed.item else {
        return false;
    };
    let rel = at.relative(start);
    let mut found = None;
    layout_db::names::for_each_expr(item, &mut |e, _| {
        if e.span.start == rel && found.is_none() {
            found = Some(e);
        }
    });
    let Some(after) = found.and_then(|e| evaluate_expr(&scratch, at.item, e)) else {
        return false;
    };
    match (present::linear_of(before), present::linear_of(&after)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::fixture;

    fn check(text: &str, expect: Expect) {
        let (db, file, offset) = fixture::with_cursor(text);
        let shown: Vec<String> = code_actions(&db, file, offset)
            .iter()
            .map(|a| {
                let mut t = file.text(&db).to_string();
                for e in a.edits.iter().rev() {
                    t.replace_range(e.span.start..e.span.end, &e.new_text);
                }
                format!("{:?} {}\n{}", a.kind, a.title, t)
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn a_solve_block_records_its_answer_and_then_offers_nothing() {
        let block = "target = sm90\n#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\nsolve s$0mem {\n    kind = swizzle\n    write = tensor<64x64xf16, #b>\n    family = triton // a comment stays\n}\n";
        check(
            block,
            expect![[r#"
                Rewrite Record the solver's answer (optimal)
                target = sm90
                #b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
                solve smem {
                    kind = swizzle
                    write = tensor<64x64xf16, #b>
                    family = triton // a comment stays
                    answer = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
                }
            "#]],
        );
        let recorded = "target = sm90\n#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\nsolve s$0mem {\n    kind = swizzle\n    write = tensor<64x64xf16, #b>\n    family = triton // a comment stays\n    answer = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>\n}\n";
        check(recorded, expect![[r#""#]]);
    }

    #[test]
    fn a_blocked_tensor_rewrites_exactly_as_ttg_linear() {
        check(
            "#b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>\nlayout t = tens$0or<4x16xf32, #b>\n",
            expect![[r#"
                Rewrite Rewrite the encoding as #ttg.linear
                #b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
                layout t = tensor<4x16xf32, #ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [], block = []}>>
            "#]],
        );
    }

    #[test]
    fn a_cute_layout_rewrites_as_a_linear_literal_only_when_exact() {
        check(
            "layout c = cute (4,$02):(2,1)\n",
            expect![[r#"
            Rewrite Rewrite as a linear layout literal
            layout c = linear { index: [[2], [4], [1]] } -> [offset: 8]
        "#]],
        );
        // Mixed radix: no linear form, no action.
        check("layout c = cute (3,$02):(2,1)\n", expect![[r#""#]]);
    }

    #[test]
    fn misspelt_names_and_keys_get_the_closest_fix() {
        check(
            "let count = 3\nlet m = cout$0 + 1\n",
            expect![[r#"
            QuickFix Change to `count`
            let count = 3
            let m = count + 1
        "#]],
        );
        check(
            "layout x = compsoe$0(a, b)\n",
            expect![[r#"
            QuickFix Change to `compose`
            layout x = compose(a, b)
        "#]],
        );
        check(
            "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWrap$0 = [32], warpsPerCTA = [1], order = [0]}>\n",
            expect![[r#"
                QuickFix Change to `threadsPerWarp`
                #b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
            "#]],
        );
    }
}
