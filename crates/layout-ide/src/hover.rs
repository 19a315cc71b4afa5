//! Hover: what the thing under the cursor is and does. On a name or a
//! pasted literal, its value drawn as `layoutc show` draws it (bases and a
//! truncated ownership grid), its sizes, injectivity and surjectivity, and
//! the other notations that state it exactly; on a `check`, both sides; on
//! a builtin, an attribute key or a kind, its documentation. A
//! `coalesced_blocked(...)` declaration or call also shows why Triton's
//! coalesce pass chose that layout, as `layoutc show` prints it
//! ([`coalesce`]).

use layout_db::{Resolution, Value, evaluate_item, item_at, parse_item};
use layout_syntax::{ExprKind, ItemKind, Span};

use crate::present::{self, Limits};
use crate::{Db, SourceFile, coalesce, docs, name_at};

/// A dump's SSA value: the line that defines it and how often it is used.
fn value_hover(db: &dyn Db, file: SourceFile, value: &layout_db::ssa::SsaOccurrence) -> Hover {
    let text = file.text(db);
    let all = layout_db::ssa::same_value(db, file, value);
    let uses = all.iter().filter(|o| !o.is_definition).count();
    let mut markdown = format!("**{}**", value.name);
    if let Some(def) = all.iter().find(|o| o.is_definition) {
        let start = text[..def.span.start].rfind('\n').map_or(0, |i| i + 1);
        let end = text[def.span.end..]
            .find('\n')
            .map_or(text.len(), |i| def.span.end + i);
        let line = text[..def.span.start].matches('\n').count() + 1;
        markdown += &format!(
            ", defined on line {line}, used {uses} time{}\n\n```mlir\n{}\n```",
            if uses == 1 { "" } else { "s" },
            text[start..end].trim()
        );
    }
    Hover {
        span: value.span,
        markdown,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// The text the hover is about.
    pub span: Span,
    pub markdown: String,
}

pub fn hover(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Hover> {
    if let Some(value) = layout_db::ssa::ssa_at(db, file, offset) {
        return Some(value_hover(db, file, value));
    }
    if let Some(n) = name_at(db, file, offset) {
        let markdown = match n.resolution {
            Resolution::Declared(item) => {
                let value = evaluate_item(db, item).value.as_ref();
                let mut md = match value {
                    Some(v) => value_markdown(&n.name, v),
                    None => format!("**{}**: has errors", n.name),
                };
                // `let load = coalesced_blocked(...)`: why this layout.
                if let Some(steps) = coalesce::explain_item(db, file, item) {
                    md += &coalesce_markdown(&steps);
                }
                md
            }
            Resolution::Builtin(sig) => {
                let mut md = builtin_markdown(sig);
                // On the callee of a `coalesced_blocked(...)` call: this call's steps.
                if let Some(steps) = coalesce_call_at(db, file, offset) {
                    md += "\n";
                    md += &coalesce_markdown(&steps);
                }
                md
            }
            Resolution::Unresolved => return None,
        };
        return Some(Hover {
            span: n.span,
            markdown,
        });
    }
    if let Some(h) = kernel_hover(db, file, offset) {
        return Some(h);
    }
    if let Some(h) = op_hover(db, file, offset) {
        return Some(h);
    }
    if let Some(h) = word_hover(db, file, offset) {
        return Some(h);
    }
    if let Some(h) = check_hover(db, file, offset) {
        return Some(h);
    }
    let at = layout_db::value_at(db, file, offset)?;
    let title = &file.text(db)[at.span.start..at.span.end];
    Some(Hover {
        span: at.span,
        markdown: value_markdown(&shorten(title), &at.value),
    })
}

/// A value as hover markdown: title, the drawing, facts, notations.
pub fn value_markdown(title: &str, v: &Value) -> String {
    let mut md = format!("**{title}**: {}\n", v.type_name());
    let drawing = present::value_text(v, Limits::HOVER);
    if !drawing.trim().is_empty() {
        md += &format!("\n```text\n{}```\n", drawing);
    }
    if let Some(l) = present::linear_of(v) {
        md += &format!("\n{}\n", present::linear_facts(&l));
    }
    if let Value::Conversion(c) = v {
        md += &format!(
            "\nkind: {}, scratch: {} bytes, rounds: {}, conflicts: {} read / {} write\n",
            c.kind.name(),
            c.scratch_bytes,
            c.rounds,
            c.read_conflicts,
            c.write_conflicts
        );
    }
    for (notation, text) in present::other_notations(v) {
        md += &format!("\n{notation}:\n```lay\n{text}\n```\n");
    }
    md
}

/// The coalesce explanation `layoutc show` prints, as a hover section.
fn coalesce_markdown(steps: &str) -> String {
    format!("\n```text\n{steps}```\n")
}

/// The explanation of the `coalesced_blocked(...)` call around `offset`.
fn coalesce_call_at(db: &dyn Db, file: SourceFile, offset: usize) -> Option<String> {
    let at = item_at(db, file, offset)?;
    let parsed = parse_item(db, at.item);
    let call = coalesce::call_at(parsed.item.as_ref()?, at.relative(offset))?;
    coalesce::explain_call(db, file, at.item, call)
}

/// A builtin's signature with types, its doc and each parameter's doc.
fn builtin_markdown(b: &layout_db::builtins::Builtin) -> String {
    let mut md = format!(
        "```lay\n{}\n```\n{}\n",
        crate::signature_help::signature_label(b),
        b.doc
    );
    let params = b.params();
    if !params.is_empty() {
        md += "\n";
    }
    for p in params {
        md += &format!("- `{}`: {}\n", p.name, p.doc);
    }
    md
}

/// Keywords, Triton attribute kinds and keys, `solve` keys.
fn word_hover(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Hover> {
    let at = item_at(db, file, offset)?;
    let text = file.text(db);
    let (start, end) = word_around(text, offset)?;
    let word = &text[start..end];
    let span = Span::new(start, end);
    let parsed = parse_item(db, at.item);
    let rel = at.relative(offset);
    if let Some(item) = &parsed.item {
        let mut found = None;
        layout_db::names::for_each_expr(item, &mut |e, _| {
            if let ExprKind::Attribute(a) = &e.kind {
                attribute_hover(a, rel, &mut found);
            }
        });
        if let Some(md) = found {
            return Some(Hover { span, markdown: md });
        }
        if let ItemKind::Solve { fields, .. } = &item.kind {
            for f in fields {
                if f.key.span.contains(rel) {
                    let key = layout_db::solve::SolveKey::named(&f.key.name)?.info();
                    return Some(Hover {
                        span,
                        markdown: format!("**{}** (solve key): {}", key.name, key.doc),
                    });
                }
            }
        }
    }
    let is_check_keyword = word == "check"
        && matches!(
            parsed.item.as_ref().map(|i| &i.kind),
            Some(ItemKind::Check { .. })
        );
    if is_check_keyword {
        return None; // `check_hover` shows both sides
    }
    let doc = docs::keyword_doc(word)?;
    Some(Hover {
        span,
        markdown: format!("**{word}**: {doc}"),
    })
}

fn attribute_hover(a: &layout_syntax::TritonAttribute, rel: usize, found: &mut Option<String>) {
    if a.kind.span.contains(rel) {
        let kind = a.kind.name.as_str();
        let mut md = format!("**#ttg.{kind}**");
        if let Some(d) = docs::kind_doc(kind) {
            md += &format!(": {d}");
        }
        if let Some(k) = docs::encoding_kind(kind) {
            let names = |keys: &mut dyn Iterator<Item = &layout_algebra::triton::keys::Key>| {
                keys.map(|k| k.name).collect::<Vec<_>>().join(", ")
            };
            md += &format!("\n\nkeys: {}", names(&mut k.required()));
            let optional = names(&mut k.optional());
            if !optional.is_empty() {
                md += &format!("; optional: {optional}");
            }
        }
        *found = Some(md);
        return;
    }
    for e in &a.entries {
        if e.key.span.contains(rel) {
            if let Some(k) = docs::key_doc(&a.kind.name, &e.key.name) {
                let required = if k.required { "required" } else { "optional" };
                *found = Some(format!(
                    "**{}** of #ttg.{}: `{}` ({required})\n\n{}",
                    k.name,
                    a.kind.name,
                    k.ty.name(),
                    k.doc
                ));
            }
            return;
        }
        if let layout_syntax::AttrValueKind::Attribute(inner) = &e.value.kind {
            attribute_hover(inner, rel, found);
        }
    }
}

/// On a `check` keyword or its comparison operator: both sides evaluated.
fn check_hover(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Hover> {
    let at = item_at(db, file, offset)?;
    let parsed = parse_item(db, at.item);
    let item = parsed.item.as_ref()?;
    let ItemKind::Check { expr } = &item.kind else {
        return None;
    };
    let rel = at.relative(offset);
    let on_keyword = rel < expr.span.start;
    let ExprKind::Binary { op, lhs, rhs } = &expr.kind else {
        return None;
    };
    let on_operator = rel >= lhs.span.end && rel <= rhs.span.start;
    if !on_keyword && !on_operator {
        return None;
    }
    let text = at.item.text(db);
    let side = |e: &layout_syntax::Expr| {
        let src = &text[e.span.start..e.span.end];
        match layout_db::position::evaluate_expr(db, at.item, e) {
            Some(v) => format!("`{}` = {}", shorten(src), shorten(&v.to_string())),
            None => format!("`{}` has errors", shorten(src)),
        }
    };
    let verdict = match &evaluate_item(db, at.item).value {
        Some(Value::Bool(true)) => "holds",
        Some(Value::Bool(false)) => "fails",
        _ => "cannot be evaluated",
    };
    Some(Hover {
        span: at.to_file(item.span),
        markdown: format!(
            "**check** {verdict}\n\n- left: {}\n- right: {}\n- operator: `{}`",
            side(lhs),
            side(rhs),
            op.symbol()
        ),
    })
}

/// The identifier-like word around `offset` (letters, digits, `_`).
pub(crate) fn word_around(text: &str, offset: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let offset = offset.min(text.len());
    let mut start = offset;
    while start > 0 && is_word(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_word(bytes[end]) {
        end += 1;
    }
    (start < end).then_some((start, end))
}

/// At most 60 characters of a source text or value, on one line.
fn shorten(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        format!("{}...", one_line.chars().take(57).collect::<String>())
    } else {
        one_line
    }
}

/// On a `tt.func` line of a dump: the kernel's shared memory, buffer by
/// buffer, as Triton's allocator lays it out.
/// A dump's operation name: what it does, and what layoutc counts for it
/// on this line (its shared memory and instructions, from the kernel
/// summary).
fn op_hover(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Hover> {
    let text = file.text(db);
    let (op, span) = crate::mlir_ops::op_at(text, offset)?;
    let mut md = format!("**{op}**");
    match crate::mlir_ops::op_doc(&op) {
        Some(doc) => md += &format!(": {doc}"),
        None => md += ": an operation layoutc does not count",
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    let counted = layout_db::kernel_summaries(db, file)
        .iter()
        .flat_map(|k| &k.ops)
        .find(|o| line_start <= o.span.start && o.span.start <= line_end);
    if let Some(o) = counted {
        md += "\n\n";
        if o.partition_offsets.len() > 1 {
            let at: Vec<String> = o.partition_offsets.iter().map(u64::to_string).collect();
            md += &format!(
                "shared memory: {} bytes, one piece in each of {} partitions, at offsets {}",
                o.shared_bytes,
                o.partition_offsets.len(),
                at.join(", ")
            );
        } else if o.op == "ttg.warp_specialize" {
            md += &format!(
                "shared memory: the values it hands its partitions, packed in {} bytes at offset {}",
                o.shared_bytes, o.offset
            );
        } else if o.kind == layout_db::kernel::BufferKind::Call {
            md += &format!(
                "shared memory: the callee's {} bytes, placed at offset {} while it runs",
                o.shared_bytes, o.offset
            );
        } else if o.shared_bytes > 0 {
            md += &format!(
                "shared memory: {} bytes at offset {}",
                o.shared_bytes, o.offset
            );
        } else {
            md += &format!("uses the shared-memory buffer at offset {}", o.offset);
        }
        if o.recorded_partition_offsets.len() > 1 {
            let at: Vec<String> = o
                .recorded_partition_offsets
                .iter()
                .map(u64::to_string)
                .collect();
            md += &format!(" (Triton's allocation: offsets {})", at.join(", "));
        } else if let Some((at, size)) = o.recorded {
            md += &format!(" (Triton's allocation: offset {at}");
            if let Some(size) = size {
                md += &format!(", {size} bytes");
            }
            md += ")";
        }
        if let Some(with) = o.paired_with {
            let line = text[..with.op.start].matches('\n').count() + 1;
            md += &format!("\n- {}", with.note(line));
        }
        for i in &o.instructions {
            md += &format!(
                "\n- {} x `{}`: {} wavefronts {}, {}",
                i.count,
                i.mnemonic,
                i.wavefronts,
                if i.one_thread {
                    "in all (one thread stores; every warp issues it)".to_string()
                } else if let Some(w) = i.owning_warps {
                    format!("per warp, in the {w} warp(s) that own elements (every warp issues it)")
                } else if let Some(w) = i.warps {
                    format!("per warp, in {w} warps (not the kernel's)")
                } else {
                    "per warp".to_string()
                },
                if i.conflicts == 0 {
                    "conflict-free".to_string()
                } else {
                    format!("{}-way conflicts", i.conflicts + 1)
                }
            );
        }
    }
    Some(Hover { span, markdown: md })
}

fn kernel_hover(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Hover> {
    let kernels = layout_db::kernel_summaries(db, file);
    let k = kernels
        .iter()
        .find(|k| k.span.start <= offset && offset <= k.span.end)?;
    let text = file.text(db);
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    let mut md = format!(
        "**kernel @{}**: {} bytes of shared memory",
        k.name, k.shared_bytes
    );
    if let Some(limit) = k.limit {
        md += &format!(" of {limit}");
    }
    if let Some(t) = &k.target {
        md += &format!(" on {t}");
    }
    if let Some(recorded) = k.recorded_shared_bytes {
        md += &format!(" (Triton's allocation: {recorded})");
    }
    md += "\n\n| line | op | bytes | offset | instructions |\n|---|---|---|---|---|\n";
    for o in &k.ops {
        let instructions: Vec<String> = o
            .instructions
            .iter()
            .map(|i| format!("{} x `{}`", i.count, i.mnemonic))
            .collect();
        let (bytes, at) = if o.partition_offsets.len() > 1 {
            let at: Vec<String> = o.partition_offsets.iter().map(u64::to_string).collect();
            (o.shared_bytes.to_string(), at.join(" + "))
        } else if o.shared_bytes > 0 {
            (o.shared_bytes.to_string(), o.offset.to_string())
        } else {
            ("-".into(), "-".into())
        };
        let instructions = match o.paired_with {
            Some(with) => with.note(line(with.op.start)),
            None => instructions.join(", "),
        };
        md += &format!(
            "| {} | `{}` | {bytes} | {at} | {instructions} |\n",
            line(o.span.start),
            o.op,
        );
    }
    if !k.complete {
        md += "\nThe dump ends inside this function: what follows the cut is not counted.\n";
    }
    Some(Hover {
        span: k.span,
        markdown: md,
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::fixture;

    fn check(text: &str, expect: Expect) {
        let (db, file, offset) = fixture::with_cursor(text);
        let actual = match hover(&db, file, offset) {
            Some(h) => format!(
                "{}\n---\n{}",
                &file.text(&db)[h.span.start..h.span.end],
                h.markdown
            ),
            None => "no hover".into(),
        };
        expect.assert_eq(&actual);
    }

    /// A corpus dump with the cursor put before the first `marker`.
    fn corpus_dump(file: &str, marker: &str) -> String {
        let path = format!(
            "{}/../../tests/corpus/kernels/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        text.replacen(marker, &format!("$0{marker}"), 1)
    }

    #[test]
    fn hover_on_a_kernel_with_partitioned_tensors_shows_every_piece() {
        check(
            &corpus_dump(
                "partitioned_pair_gfx1250.allocated.ttgir",
                "partitioned_pair(",
            ),
            expect![[r#"
                  tt.func public @partitioned_pair(%ptr: !tt.ptr<f32> loc("ptr"(#loc1)), %out: !tt.ptr<f32> loc("out"(#loc1))) attributes {noinline = false, ttg.global_scratch_memory_alignment = 1 : i32, ttg.global_scratch_memory_size = 0 : i32, ttg.profile_scratch_memory_alignment = 1 : i32, ttg.profile_scratch_memory_size = 0 : i32} {
                ---
                **kernel @partitioned_pair**: 98304 bytes of shared memory of 327680 on hip:gfx1250 (Triton's allocation: 98304)

                | line | op | bytes | offset | instructions |
                |---|---|---|---|---|
                | 20 | `ttg.local_alloc` | 32768 | 0 + 65536 |  |
                | 21 | `ttg.local_alloc` | 32768 | 16384 + 81920 |  |
                | 25 | `ttg.local_store` | - | - | 16 x `ds_store_b128` |
                | 30 | `ttg.local_store` | - | - | 16 x `ds_store_b128` |
                | 34 | `ttg.local_load` | - | - | 16 x `ds_load_b128` |
                | 35 | `ttg.local_load` | - | - | 16 x `ds_load_b128` |
            "#]],
        );
    }

    #[test]
    fn hover_on_a_call_and_a_warp_specialize_shows_what_they_hold() {
        check(
            &corpus_dump("call_reduce_sm80.allocated.ttgir", "tt.call"),
            expect![[r#"
                tt.call
                ---
                **tt.call**: calls a device function (its shared memory is the callee's)

                shared memory: the callee's 2048 bytes, placed at offset 0 while it runs (Triton's allocation: offset 0, 2048 bytes)"#]],
        );
        check(
            &corpus_dump("ws_reductions_sm90.allocated.ttgir", "ttg.warp_specialize"),
            expect![[r#"
                ttg.warp_specialize
                ---
                **ttg.warp_specialize**: runs partitions of the kernel in separate warp groups

                shared memory: the values it hands its partitions, packed in 32 bytes at offset 0 (Triton's allocation: offset 0, 32 bytes)"#]],
        );
    }

    #[test]
    fn hover_on_a_tensor_layout_name_shows_bases_owners_and_linear_form() {
        check(
            r#"#blocked = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
layout t = tensor<4x16xf32, #blocked>
check t$0(register = 1) == (dim0 = 0, dim1 = 1)
"#,
            expect![[r#"
                t
                ---
                **t**: a Triton tensor layout

                ```text
                  tensor<4x16xf32, #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>
                  in-dims:  register 2, lane 32, warp 1, block 1
                  out-dims: dim0 4, dim1 16
                  owner of each element (thread:register):
                    |     0     1     2     3    ..    12    13    14    15
                  0 |  T0:0  T0:1  T1:0  T1:1    ..  T6:0  T6:1  T7:0  T7:1
                  1 |  T8:0  T8:1  T9:0  T9:1    .. T14:0 T14:1 T15:0 T15:1
                  2 | T16:0 T16:1 T17:0 T17:1    .. T22:0 T22:1 T23:0 T23:1
                  3 | T24:0 T24:1 T25:0 T25:1    .. T30:0 T30:1 T31:0 T31:1
                  bases:
                    register      1 -> (0, 1)
                        lane      1 -> (0, 2)
                                  2 -> (0, 4)
                                  4 -> (0, 8)
                                  8 -> (1, 0)
                                 16 -> (2, 0)
                ```

                register 2, lane 32, warp 1, block 1 -> dim0 4, dim1 16

                injective: yes, surjective: yes

                Triton linear:
                ```lay
                #ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [], block = []}>
                ```
            "#]],
        );
    }

    #[test]
    fn hover_on_a_coalesced_blocked_call_explains_it_as_show_does() {
        let text = r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
let load = coalesced_$0blocked([64, 64], 32, [1, 64], [16, 16])
"#;
        check(
            text,
            expect![[r#"
                coalesced_blocked
                ---
                ```lay
                coalesced_blocked(shape: [int], bits: int, contiguity: [int], divisibility: [int], [num_warps: int], [threads_per_warp: int]) -> encoding
                ```
                Triton's coalesce pass: the blocked layout for a load or store

                - `shape`: the tensor shape
                - `bits`: bits per element
                - `contiguity`: per dim, how many consecutive pointers are contiguous (Triton's axis info)
                - `divisibility`: per dim, the largest power of two the first pointer's offset is divisible by, in bytes
                - `num_warps`: warps per CTA (the module's, else 4)
                - `threads_per_warp`: threads per warp (the target's, else 32)


                ```text
                  Triton's coalesce pass, step by step (seed 003):
                  1. order = [1, 0]: the dims sorted by contiguity [1, 64], most contiguous first
                  2. sizePerThread = [1, 4]: along dim 1, alignment allows min(16 bytes / 4 bytes per element, contiguity 64) = 4 elements, the 128-bit limit 4, and each of the 128 threads owns 32 elements on average; the least of these is 4
                  3. threadsPerWarp = [2, 16]: the 32 lanes fill the dims in order: dim 1 (64 / 4 = 16 positions) takes 16, dim 0 (64 / 1 = 64 positions) takes 2; the last dim takes the rest
                  4. warpsPerCTA = [4, 1]: the 4 warps go where the lanes left room, in the same order: dim 1 takes 1, dim 0 takes 4
                ```
            "#]],
        );
        // On the declared name (here and where it is used): the value and
        // the same steps, the text `layoutc show` prints.
        let text = text.replace("$0", "").replace("let load", "let lo$0ad");
        let (db, file, offset) = fixture::with_cursor(&text);
        let steps = coalesce::explain(&db, file, "load").unwrap();
        let h = hover(&db, file, offset).unwrap();
        assert!(h.markdown.starts_with("**load**: "), "{}", h.markdown);
        assert!(
            h.markdown.ends_with(&format!("\n\n```text\n{steps}```\n")),
            "{}",
            h.markdown
        );
    }

    #[test]
    fn hover_on_a_solve_block_shows_the_answer_its_cost_and_why() {
        check(
            r#"target = sm90
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
solve sm$0em {
    kind = swizzle
    write = tensor<8x64xf16, #blocked>
    family = cute
}
"#,
            expect![[r#"
                smem
                ---
                **smem**: a solve block and its answer

                ```text
                  swizzle in the cute family on sm90, optimal
                  answer: (8,64):(64,1)
                  as triton: #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
                  as nvmma: #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
                  as linear: #ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]]}, alignment = 16>
                  write tensor<8x64xf16, blocked>: 1 x st.shared.v4.b32, 4 wavefronts (4 without conflicts), 0 conflicts
                  total: 4 write + 0 read wavefronts per warp, 1024 bytes of shared memory
                  lower bound: 4 write + 0 read wavefronts
                  why: every one of the 142 cute layouts this tensor admits was scored; none costs fewer wavefronts
                  the shared layout (offset -> tensor):
                  in-dims:  offset 512, block 1
                  out-dims: dim0 8, dim1 64
                  shared-memory offset of each element:
                    |   0   1   2   3  ..  60  61  62  63
                  0 |   0   1   2   3  ..  60  61  62  63
                  1 |  64  65  66  67  .. 124 125 126 127
                  2 | 128 129 130 131  .. 188 189 190 191
                  3 | 192 193 194 195  .. 252 253 254 255
                  4 | 256 257 258 259  .. 316 317 318 319
                  5 | 320 321 322 323  .. 380 381 382 383
                  6 | 384 385 386 387  .. 444 445 446 447
                  7 | 448 449 450 451  .. 508 509 510 511
                  bases:
                      offset      1 -> (0, 1)
                                  2 -> (0, 2)
                                  4 -> (0, 4)
                                  8 -> (0, 8)
                                 16 -> (0, 16)
                                 32 -> (0, 32)
                                 64 -> (1, 0)
                                128 -> (2, 0)
                                256 -> (4, 0)
                ```
            "#]],
        );
    }

    #[test]
    fn hover_on_an_alias_reference_shows_the_encoding() {
        check(
            r#"#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
layout acc = tensor<32x16xf32, #m$0ma>
"#,
            expect![[r#"
                #mma
                ---
                **#mma**: a Triton encoding (not bound to a tensor shape)

                ```text
                  #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
                ```
            "#]],
        );
    }

    #[test]
    fn hover_on_a_pasted_cute_literal_shows_its_table_and_linear_form() {
        check(
            "layout t = compose(to_linear(cute (4,2)$0:(2,1)), identity_1d(8, \"index\", \"index\"))\n",
            expect![[r#"
                cute (4,2):(2,1)
                ---
                **cute (4,2):(2,1)**: a CuTe layout

                ```text
                  (4,2):(2,1)  (size 8, cosize 8)
                    |   0   1
                  0 |   0   1
                  1 |   2   3
                  2 |   4   5
                  3 |   6   7
                ```

                index 8 -> offset 8

                injective: yes, surjective: yes

                linear:
                ```lay
                linear { index: [[2], [4], [1]] } -> [offset: 8]
                ```
            "#]],
        );
    }

    #[test]
    fn hover_on_a_tiled_copy_shows_its_parts_and_who_holds_each_element() {
        check(
            "let c$0 = tiled_copy(copy_atom(\"UniversalCopy<uint64_t>\", \"half_t\"), cute (4,2):(2,1), cute (1,4))\n",
            expect![[r#"
                c
                ---
                **c**: a CuTe tiled copy

                ```text
                  TiledCopy of UniversalCopy<uint64_t> (half_t): 8 threads, tile (4,8)
                  Tiler_MN: (4,8)
                  TiledLayout_TV: ((2,4),4):((16,1),4)
                  LayoutS_TV: ((2,4),(4,1)):((16,1),(4,0))
                  LayoutD_TV: ((2,4),(4,1)):((16,1),(4,0))
                  source tile 4x8: thread and value of each element
                    |     0     1     2     3     4     5     6     7
                  0 | T0:V0 T0:V1 T0:V2 T0:V3 T1:V0 T1:V1 T1:V2 T1:V3
                  1 | T2:V0 T2:V1 T2:V2 T2:V3 T3:V0 T3:V1 T3:V2 T3:V3
                  2 | T4:V0 T4:V1 T4:V2 T4:V3 T5:V0 T5:V1 T5:V2 T5:V3
                  3 | T6:V0 T6:V1 T6:V2 T6:V3 T7:V0 T7:V1 T7:V2 T7:V3
                ```
            "#]],
        );
    }

    #[test]
    fn hover_on_a_check_shows_both_sides() {
        check(
            "let n = 3\nche$0ck n * 2 == 7\n",
            expect![[r#"
            check n * 2 == 7
            ---
            **check** fails

            - left: `n * 2` = 6
            - right: `7` = 7
            - operator: `==`"#]],
        );
    }

    #[test]
    fn hover_on_a_kernel_shows_its_shared_memory() {
        check(
            r#"#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @row_s$0um(%x: tensor<16x1024xf32, #blocked>) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x16x64xf32, #shared, #smem, mutable>
    %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<16x1024xf32, #blocked>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    ttg.local_dealloc %buf : !ttg.memdesc<2x16x64xf32, #shared, #smem, mutable>
    tt.return
  }
}
"#,
            expect![[r#"
                  tt.func public @row_sum(%x: tensor<16x1024xf32, #blocked>) {
                ---
                **kernel @row_sum**: 8320 bytes of shared memory of 232448 on cuda:90

                | line | op | bytes | offset | instructions |
                |---|---|---|---|---|
                | 6 | `ttg.local_alloc` | 8192 | 0 |  |
                | 7 | `tt.reduce` | 128 | 8192 | 4 x `st.shared.v4.b32`, 4 x `ld.shared.v4.b32` |
            "#]],
        );
    }

    #[test]
    fn hover_on_a_conversion_shows_kind_scratch_and_conflicts() {
        check(
            r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
convert epi$0logue = tensor<64x64xf16, #mma> -> tensor<64x64xf16, #rows>
"#,
            expect![[r#"
                epilogue
                ---
                **epilogue**: a layout conversion

                ```text
                  convert shared (16 bits): 4096 scratch bytes, 2 round(s), 4 x stmatrix.sync.aligned.m8n8.x4.shared.b16 (16 wavefronts) / 4 x ld.shared.v4.b32 (16 wavefronts), 0 read / 0 write extra per wavefront
                  scratch buffer (-> tensor):
                  in-dims:  vector 8, bank 8, segment 32, block 1, reps 2
                  out-dims: dim0 64, dim1 64
                  bases:
                      vector      1 -> (0, 1)
                                  2 -> (0, 2)
                                  4 -> (0, 4)
                        bank      1 -> (0, 8)
                                  2 -> (0, 16)
                                  4 -> (0, 32)
                     segment      1 -> (8, 0)
                                  2 -> (16, 0)
                                  4 -> (1, 8)
                                  8 -> (2, 16)
                                 16 -> (4, 32)
                        reps      1 -> (32, 0)
                ```

                kind: shared, scratch: 4096 bytes, rounds: 2, conflicts: 0 read / 0 write
            "#]],
        );
    }

    #[test]
    fn hover_on_a_builtin_shows_its_signature_and_doc() {
        check(
            "layout x = comp$0ose(a, b)\n",
            expect![[r#"
                compose
                ---
                ```lay
                compose(a: linear, b: linear) -> linear
                ```
                Triton's a.compose(b): b after a

                - `a`: the layout applied first
                - `b`: the layout applied to a's outputs (its in-dims are a's out-dims)
            "#]],
        );
    }

    /// An operation's name says what it does and, from the kernel summary,
    /// its shared memory: the allocator's offsets, which equal Triton's own
    /// (`allocation.offset` in the dump).
    /// Two loads whose reads gfx942 pairs (an unrolled convolution's two
    /// stages of weights): the second's hover says which line reads it.
    #[test]
    fn hover_on_a_load_whose_reads_another_pairs_names_that_line() {
        let text = fixture::corpus("kernels/conv_implicit_gemm_bf16_gfx942.ttgir");
        let (db, file) = fixture::open(&text);
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        let second = text.find("%b_77 = ttg.local_load").unwrap() + 8;
        let h = hover(&db, file, second).unwrap();
        let first = line_of("%b_74 = ttg.local_load");
        assert!(
            h.markdown
                .ends_with(&format!("\n- read by line {first}'s paired reads")),
            "{}",
            h.markdown
        );
        let h = hover(&db, file, text.find("%b_74 = ttg.local_load").unwrap() + 8).unwrap();
        assert!(
            h.markdown.contains("8 x `ds_read2st64_b64`"),
            "{}",
            h.markdown
        );
    }

    /// Two stores whose writes gfx942 pairs (attention backward's Q and dO
    /// tiles in the loop, picked by one stage index): the dO store's hover
    /// says which line writes it, the Q store's names the pairs.
    #[test]
    fn hover_on_a_store_whose_writes_another_pairs_names_that_line() {
        let text = fixture::corpus("kernels/attention_backward_staged_stores_gfx942.ttgir");
        let (db, file) = fixture::open(&text);
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        let second = text.find("ttg.local_store %do_120").unwrap() + 4;
        let h = hover(&db, file, second).unwrap();
        let first = line_of("ttg.local_store %q_114");
        assert!(
            h.markdown
                .ends_with(&format!("\n- written by line {first}'s paired writes")),
            "{}",
            h.markdown
        );
        let h = hover(&db, file, text.find("ttg.local_store %q_114").unwrap() + 4).unwrap();
        assert!(
            h.markdown.contains("1 x `ds_write2st64_b64`"),
            "{}",
            h.markdown
        );
    }

    /// A drained stage of gfx942's pipelined matmul: the B operand's reads
    /// after the loop pair by whole registers, and the load's hover lists
    /// what the compiled kernel issues there (its AMDGCN: one
    /// `ds_read2st64_b64` and six `ds_read_b64`), beside the loop's four
    /// pairs.
    #[test]
    fn hover_on_a_drained_stage_read_lists_its_whole_register_pairs() {
        let text = fixture::corpus("ttgir/matmul_fp16_gfx942.ttgir");
        let (db, file) = fixture::open(&text);
        // On the op's name.
        let op_at = |needle: &str| text.find(needle).unwrap() + needle.find("ttg").unwrap() + 1;
        let drained = hover(&db, file, op_at("%b_83 = ttg.local_load")).unwrap();
        assert!(
            drained.markdown.contains("\n- 1 x `ds_read2st64_b64`")
                && drained.markdown.contains("\n- 6 x `ds_read_b64`"),
            "{}",
            drained.markdown
        );
        let in_loop = hover(&db, file, op_at("%b_121 = ttg.local_load")).unwrap();
        assert!(
            in_loop.markdown.contains("\n- 4 x `ds_read2st64_b64`")
                && !in_loop.markdown.contains("ds_read_b64"),
            "{}",
            in_loop.markdown
        );
    }

    #[test]
    fn hover_on_an_operation_shows_its_doc_and_its_shared_memory() {
        let text = fixture::corpus("kernels/batched_dot_sm100.allocated.ttgir");
        let (db, file) = fixture::open(&text);
        for (line_has, bytes_at) in [
            ("%b_36 = ttg.local_alloc", "at offset 24576"),
            (
                "ttg.convert_layout %14",
                "8192 bytes at offset 0 (Triton's allocation: offset 0, 8192 bytes)",
            ),
        ] {
            let line = text.find(line_has).unwrap();
            let op = line + text[line..].find("ttg.").unwrap() + 5;
            let h = hover(&db, file, op).unwrap();
            assert!(h.markdown.starts_with("**ttg."), "{}", h.markdown);
            assert!(h.markdown.contains(bytes_at), "{line_has}: {}", h.markdown);
        }
        // An operation layoutc does not count says so.
        let at = text.find("tt.make_range").unwrap() + 4;
        let h = hover(&db, file, at).unwrap();
        assert!(
            h.markdown
                .starts_with("**tt.make_range**: the tensor [start, end)"),
            "{}",
            h.markdown
        );
    }

    #[test]
    fn hover_on_attribute_keys_and_kinds_shows_their_doc() {
        check(
            "#b = #ttg.blocked<{sizePerThread = [1], threads$0PerWarp = [32], warpsPerCTA = [1], order = [0]}>\n",
            expect![[r#"
                threadsPerWarp
                ---
                **threadsPerWarp** of #ttg.blocked: `[int]` (required)

                threads of a warp along each dim; multiplies to the warp size"#]],
        );
        check(
            "#b = #ttg.swizzled_sh$0ared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>\n",
            expect![[r#"
                swizzled_shared
                ---
                **#ttg.swizzled_shared**: shared memory with XOR swizzling: `vec` elements per phase step, `perPhase` rows per phase, `maxPhase` phases

                keys: vec, perPhase, maxPhase, order; optional: CGALayout, CTAsPerCGA, CTASplitNum, CTAOrder"#]],
        );
    }

    #[test]
    fn hover_on_a_user_name_that_shadows_a_builtin_shows_the_users_value() {
        check(
            "let size = 3\nlet y = si$0ze + 1\n",
            expect![[r#"
            size
            ---
            **size**: an integer

            ```text
              3
            ```
        "#]],
        );
    }
}
