//! Code actions. Rewrites into another notation are offered only when
//! exact, and exactness is checked, not assumed: the rewritten file is
//! evaluated and its value compared with the original's. Quick fixes
//! apply the suggestion of each diagnostic the selection touches (a
//! misspelt name, alias, function, key, encoding kind, preset, word or dim:
//! the diagnostic's "did you mean"), scale a
//! `#ttg.blocked`'s `threadsPerWarp` to the warp size (E0305), and pad a
//! size that must be a power of two to the next one (E0301).

use layout_algebra::triton::keys::{self, EncodingTag};
use layout_db::position::evaluate_expr;
use layout_db::{ItemAt, RefKind, Resolution, item_at, name_refs, parse_item, resolve};
use layout_syntax::{AttrValueKind, Expr, ExprKind, ItemKind, TritonAttribute};

use crate::{Database, Db, SourceFile, Span, TextEdit, present};

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
    /// The span of the diagnostic this fixes, if it fixes one.
    pub fixes: Option<Span>,
}

/// The actions for a selection (a cursor is an empty one): fixes for the
/// diagnostics it touches, and the rewrites of what is at its start.
pub fn code_actions(db: &dyn Db, file: SourceFile, range: Span) -> Vec<CodeAction> {
    let offset = range.start;
    let mut out = Vec::new();
    suggested_fixes(db, file, range, &mut out);
    warp_size_fix(db, file, offset, &mut out);
    power_of_two_fix(db, file, offset, &mut out);
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
            fixes: None,
        });
    }
}

/// The suggestion of each diagnostic that overlaps `range` ("did you
/// mean `blocked`?": a name, an alias, a function, an attribute key, a
/// solve or target key, an encoding kind, a preset, a word value, a dim),
/// as a fix of that diagnostic.
fn suggested_fixes(db: &dyn Db, file: SourceFile, range: Span, out: &mut Vec<CodeAction>) {
    let text = file.text(db);
    for d in &layout_db::check_file(db, file).diagnostics {
        let Some(fix) = &d.suggestion else {
            continue;
        };
        if d.span.end < range.start || d.span.start > range.end {
            continue;
        }
        // Only a word is replaced; a span that is more was not a typo.
        let current = &text[d.span.start..d.span.end];
        let is_word = !current.is_empty()
            && current
                .trim_start_matches('#')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !is_word {
            continue;
        }
        out.push(CodeAction {
            title: format!("Change to `{fix}`"),
            kind: ActionKind::QuickFix,
            edits: vec![TextEdit {
                span: d.span,
                new_text: fix.clone(),
            }],
            fixes: Some(d.span),
        });
    }
}

/// The `#ttg.blocked` under the cursor, or the one a `#alias` under the
/// cursor names: the attribute and the item that holds it.
fn blocked_at(db: &dyn Db, file: SourceFile, offset: usize) -> Option<(TritonAttribute, ItemAt)> {
    let at = item_at(db, file, offset)?;
    let rel = at.relative(offset);
    let item = parse_item(db, at.item).item.as_ref()?;
    let mut found = None;
    layout_db::names::for_each_expr(item, &mut |e, _| {
        if let ExprKind::Attribute(a) = &e.kind
            && is_kind(a, EncodingTag::Blocked)
            && e.span.contains(rel)
        {
            found = Some(a.clone());
        }
    });
    if let Some(a) = found {
        return Some((a, at));
    }
    let alias = name_refs(db, at.item)
        .iter()
        .find(|r| r.kind == RefKind::Alias && r.span.contains(rel))?
        .name
        .clone();
    let Resolution::Declared(decl) = resolve(db, file, &alias) else {
        return None;
    };
    let decl_at = layout_db::item_ranges(db, file)
        .into_iter()
        .find(|r| r.item == decl)?;
    match &parse_item(db, decl).item.as_ref()?.kind {
        ItemKind::Alias { value, .. } => match &value.kind {
            ExprKind::Attribute(a) if is_kind(a, EncodingTag::Blocked) => {
                Some((a.clone(), decl_at))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The integers of an attribute's list value.
fn int_list(v: &layout_syntax::AttrValue) -> Option<Vec<u64>> {
    match &v.kind {
        AttrValueKind::List(items) => items
            .iter()
            .map(|i| match i.kind {
                AttrValueKind::Int(n) => u64::try_from(n).ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `threadsPerWarp` scaled so that it multiplies to `warp`. Too few
/// threads: the slowest-varying dim (the last of `order`) takes the
/// missing factor, as Triton's own blocked builder gives the remaining
/// lanes to it. Too many: the dims give up the excess from the slowest
/// to the fastest, so the fastest dim (the one loads coalesce along)
/// keeps its threads as long as it can. `None` when no integer scaling
/// does it.
pub fn scale_threads_per_warp(threads: &[u64], order: &[usize], warp: u64) -> Option<Vec<u64>> {
    let product = threads.iter().try_fold(1u64, |p, &t| p.checked_mul(t))?;
    if product == 0 || product == warp || order.len() != threads.len() {
        return None;
    }
    let mut out = threads.to_vec();
    if warp.is_multiple_of(product) {
        out[*order.last()?] *= warp / product;
        return Some(out);
    }
    if product % warp != 0 {
        return None;
    }
    let mut excess = product / warp;
    for &d in order.iter().rev() {
        let g = gcd(out[d], excess);
        out[d] /= g;
        excess /= g;
    }
    (excess == 1).then_some(out)
}

/// Whether a pasted attribute is of this encoding kind (by the kinds
/// table, not by spelling its name here).
fn is_kind(a: &TritonAttribute, tag: EncodingTag) -> bool {
    keys::encoding_kind(&a.kind.name).is_some_and(|k| k.tag == tag)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// E0305 "threadsPerWarp multiplies to 16, but a warp has 32 threads": on
/// the `#ttg.blocked` (or an alias of it), scale `threadsPerWarp` to the
/// file's warp size.
fn warp_size_fix(db: &dyn Db, file: SourceFile, offset: usize, out: &mut Vec<CodeAction>) {
    let Some((a, at)) = blocked_at(db, file, offset) else {
        return;
    };
    let entry = |key: &str| a.entries.iter().find(|e| e.key.name == key);
    let Some(tpw) = entry("threadsPerWarp") else {
        return;
    };
    let Some(threads) = int_list(&tpw.value) else {
        return;
    };
    let order: Vec<usize> = match entry("order").and_then(|e| int_list(&e.value)) {
        Some(o) => o.into_iter().map(|d| d as usize).collect(),
        None => (0..threads.len()).rev().collect(),
    };
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if sorted != (0..threads.len()).collect::<Vec<_>>() {
        return; // E0306 first
    }
    let warp = layout_db::file_target(db, file).threads_per_warp() as u64;
    let Some(scaled) = scale_threads_per_warp(&threads, &order, warp) else {
        return;
    };
    let list = format!(
        "[{}]",
        scaled
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.push(CodeAction {
        title: format!("Scale threadsPerWarp to {list}: a warp has {warp} threads"),
        kind: ActionKind::QuickFix,
        edits: vec![TextEdit {
            span: at.to_file(tpw.value.span),
            new_text: list,
        }],
        fixes: None,
    });
}

/// E0301 "... must be a power of two, but is 6": pad the number written
/// in the diagnostic's span to the next power of two.
fn power_of_two_fix(db: &dyn Db, file: SourceFile, offset: usize, out: &mut Vec<CodeAction>) {
    let text = file.text(db);
    for d in &layout_db::check_file(db, file).diagnostics {
        if d.code != layout_db::Code::NotPowerOfTwo
            || !(d.span.start <= offset && offset <= d.span.end)
        {
            continue;
        }
        let Some(n) = d.not_power_of_two.filter(|n| !n.is_power_of_two()) else {
            continue;
        };
        let padded = n.next_power_of_two();
        let edits: Vec<TextEdit> = numbers_in(text, d.span)
            .into_iter()
            .filter(|(_, v)| *v == n)
            .map(|(span, _)| TextEdit {
                span,
                new_text: padded.to_string(),
            })
            .collect();
        if !edits.is_empty() {
            out.push(CodeAction {
                title: format!("Pad {n} to {padded}, the next power of two"),
                kind: ActionKind::QuickFix,
                edits,
                fixes: Some(d.span),
            });
        }
    }
}

/// The decimal numbers written in `span` of `text`: digit runs that are
/// not part of a name (`identity_1d`, `f16`), though a shape's `x` may
/// separate them (`48x64`).
fn numbers_in(text: &str, span: Span) -> Vec<(Span, u64)> {
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = span.start;
    while i < span.end.min(bytes.len()) {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let shape_x = |j: usize| bytes[j] == b'x' && j > 0 && bytes[j - 1].is_ascii_digit();
        let before_ok = start == 0 || !ident(bytes[start - 1]) || shape_x(start - 1);
        let after_ok = i >= bytes.len() || !ident(bytes[i]) || bytes[i] == b'x';
        if before_ok
            && after_ok
            && let Ok(v) = text[start..i].parse()
        {
            out.push((Span::new(start, i), v));
        }
    }
    out
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
                    let already = matches!(&enc.kind, ExprKind::Attribute(a) if is_kind(a, EncodingTag::Linear));
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
                fixes: None,
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
        let shown: Vec<String> = code_actions(&db, file, Span::new(offset, offset))
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

    /// Every "did you mean" of a diagnostic is a fix of it: the fixed text
    /// checks clean.
    #[test]
    fn every_suggestion_is_a_fix_that_checks_clean() {
        let cases = [
            "layout acc = identity_1d(4, \"i\", \"o\")\ncheck size(ac$0d) == 4\n",
            "#b = #ttg.blocekd$0<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n",
            "#b = #ttg.blocked<{sizePerThread = [1], threadPerWarp$0 = [32], warpsPerCTA = [4], order = [0]}>\n",
            "target = sm9$00x\n",
            "target t { num_wraps$0 = 4 }\n",
            "layout a = idenity_1d$0(4, \"i\", \"o\")\n",
            "#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\nsolve s {\n    kind = swizle$0\n    write = tensor<64x64xf16, #b>\n}\n",
            "#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\nsolve s {\n    kind = swizzle\n    wrte$0 = tensor<64x64xf16, #b>\n}\n",
        ];
        for case in cases {
            let (db, file, offset) = fixture::with_cursor(case);
            let fixes: Vec<CodeAction> = code_actions(&db, file, Span::new(offset, offset))
                .into_iter()
                .filter(|a| a.kind == ActionKind::QuickFix)
                .collect();
            assert_eq!(fixes.len(), 1, "{case}: {fixes:?}");
            let mut text = file.text(&db).to_string();
            for e in fixes[0].edits.iter().rev() {
                text.replace_range(e.span.start..e.span.end, &e.new_text);
            }
            let (db, fixed) = fixture::open(&text);
            let report = layout_db::check_file(&db, fixed);
            let errors: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == layout_db::Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{case} -> {text}: {errors:?}");
        }
        // A selection offers the fixes of every diagnostic it touches.
        let text = "layout acc = identity_1d(4, \"i\", \"o\")\nlayout blocked = acc\ncheck size(acd) == 4\ncheck size(blocekd) == 4\n";
        let (db, file) = fixture::open(text);
        let fixes = code_actions(&db, file, Span::new(0, text.len()));
        let titles: Vec<&str> = fixes.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Change to `acc`", "Change to `blocked`"],
            "{fixes:?}"
        );
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

    /// The file after the first quick fix, and its diagnostics' codes.
    fn fixed(text: &str) -> (String, Vec<&'static str>) {
        let (db, file, offset) = fixture::with_cursor(text);
        let action = code_actions(&db, file, Span::new(offset, offset))
            .into_iter()
            .find(|a| a.kind == ActionKind::QuickFix)
            .expect("a quick fix");
        let mut t = file.text(&db).to_string();
        for e in action.edits.iter().rev() {
            t.replace_range(e.span.start..e.span.end, &e.new_text);
        }
        let mut scratch = Database::default();
        let f = SourceFile::open(&mut scratch, "fixed.lay".into(), t.clone());
        let codes = layout_db::check_file(&scratch, f)
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        (t, codes)
    }

    #[test]
    fn threads_per_warp_scales_to_the_warp_size() {
        // Too few threads: the slowest dim (last of `order`) takes the rest.
        check(
            "target = gfx942\n#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\nlayout x = tensor<64x64xf16, #$0b>\n",
            expect![[r#"
                QuickFix Scale threadsPerWarp to [4, 16]: a warp has 64 threads
                target = gfx942
                #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
                layout x = tensor<64x64xf16, #b>
            "#]],
        );
        // Too many: the slowest dims give them up first.
        check(
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWa$0rp = [4, 16], warpsPerCTA = [4, 1], order = [0, 1]}>\nlayout x = tensor<64x64xf16, #b>\n",
            expect![[r#"
                QuickFix Scale threadsPerWarp to [4, 8]: a warp has 32 threads
                #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]}>
                layout x = tensor<64x64xf16, #b>
            "#]],
        );
        // Written inline, on the literal.
        check(
            "layout x = tensor<64xf16, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}$0>>\n",
            expect![[r#"
                QuickFix Scale threadsPerWarp to [32]: a warp has 32 threads
                layout x = tensor<64xf16, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
            "#]],
        );
        // Already right: nothing to fix.
        check(
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWa$0rp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\n",
            expect![[r#""#]],
        );
    }

    #[test]
    fn the_warp_size_fix_checks_clean() {
        for text in [
            "target = gfx942\n#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\nlayout x = tensor<64x64xf16, #$0b>\n",
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWa$0rp = [4, 16], warpsPerCTA = [4, 1], order = [0, 1]}>\nlayout x = tensor<64x64xf16, #b>\n",
            "target toy { warp_size = 16 }\n#b = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]}>\nlayout x = tensor<32x32xf32, #$0b>\n",
        ] {
            let (after, codes) = fixed(text);
            assert_eq!(codes, Vec::<&str>::new(), "{after}");
        }
    }

    #[test]
    fn scaling_threads_per_warp_is_deterministic() {
        let s = |t: &[u64], o: &[usize], w| scale_threads_per_warp(t, o, w);
        assert_eq!(s(&[2, 16], &[1, 0], 64), Some(vec![4, 16]));
        assert_eq!(s(&[8, 8], &[1, 0], 16), Some(vec![2, 8]));
        assert_eq!(s(&[4, 4, 4], &[2, 1, 0], 16), Some(vec![1, 4, 4]));
        assert_eq!(s(&[3, 16], &[1, 0], 32), None);
        assert_eq!(s(&[2, 16], &[1, 0], 32), None);
    }

    #[test]
    fn a_size_that_must_be_a_power_of_two_pads_to_the_next() {
        check(
            "layout a = identity_1d(6$0, \"i\", \"o\")\n",
            expect![[r#"
                QuickFix Pad 6 to 8, the next power of two
                layout a = identity_1d(8, "i", "o")
            "#]],
        );
        check(
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\nlayout x = tensor<48x6$04xf16, #b>\n",
            expect![[r#"
                QuickFix Pad 48 to 64, the next power of two
                #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
                layout x = tensor<64x64xf16, #b>
            "#]],
        );
        for text in [
            "layout a = identity_1d(6$0, \"i\", \"o\")\n",
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\nlayout x = tensor<48x6$04xf16, #b>\n",
        ] {
            let (after, codes) = fixed(text);
            assert!(!codes.contains(&"E0301"), "{after}: {codes:?}");
            assert_eq!(codes, Vec::<&str>::new(), "{after}");
        }
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
