//! Completion. What fits depends on where the cursor is, which is read
//! from the text before it (while typing, the item rarely parses):
//! after `#ttg.` the encoding kinds; inside `#ttg.KIND<{` the keys of that
//! kind not yet written; after `#` the file's aliases; after `target =`
//! the machine presets; at the start of a line in a `solve` block its
//! keys; elsewhere keywords, the file's names and the builtins with their
//! signatures.

use layout_algebra::triton::keys::KeyType;
use layout_db::item_at;

use crate::signature_help::signature_label;
use crate::{Db, SourceFile, Span, docs};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    Keyword,
    EncodingKind,
    AttributeKey,
    SolveKey,
    Alias,
    Name,
    Builtin,
    Preset,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// A short type or signature.
    pub detail: Option<String>,
    pub doc: Option<String>,
    /// The text to insert in place of `replace`.
    pub insert: String,
    /// The word being completed (empty at the cursor when there is none).
    pub replace: Span,
    /// `insert` with `$1`, `$2` placeholders (an encoding with its required
    /// keys); a client without snippets gets `insert`.
    pub snippet: Option<String>,
    /// Where the item sorts: the file's own names first, then the language's
    /// words, then builtins, each group by label.
    pub sort: String,
}

/// What starts an item at the beginning of a line; after `check `, or in an
/// expression, they do not fit.
const ITEM_KEYWORDS: &[&str] = &[
    "layout", "let", "check", "convert", "solve", "target", "module",
];

pub fn completions(db: &dyn Db, file: SourceFile, offset: usize) -> Vec<CompletionItem> {
    let text = file.text(db);
    let offset = crate::char_floor(text, offset);
    let word_start = crate::word_start(text, offset);
    let replace = Span::new(word_start, offset);
    let line_start = text[..word_start].rfind('\n').map_or(0, |p| p + 1);
    let line_before = &text[line_start..word_start];
    let item_before = item_at(db, file, offset)
        .map(|at| &text[at.range.start.min(word_start)..word_start])
        .unwrap_or(line_before);
    let item = |label: &str, kind, detail: Option<String>, doc: Option<String>| CompletionItem {
        label: label.to_string(),
        kind,
        detail,
        doc,
        insert: label.to_string(),
        replace,
        snippet: None,
        sort: format!("{}{label}", sort_group(kind)),
    };
    let mut out = Vec::new();

    if line_before.ends_with("#ttg.") || line_before.ends_with("#triton_gpu.") {
        for kind in layout_db::encoding_kind_names() {
            let mut it = item(
                kind,
                CompletionKind::EncodingKind,
                None,
                docs::kind_doc(kind).map(str::to_string),
            );
            it.snippet = encoding_snippet(kind);
            out.push(it);
        }
        return out;
    }
    if let Some(kind) = open_attribute(item_before) {
        let written = keys_written(item_before);
        if let Some(k) = docs::encoding_kind(kind) {
            for key in k.keys {
                if written.contains(&key.name) {
                    continue;
                }
                let required = if key.required { "" } else { " (optional)" };
                let mut it = item(
                    key.name,
                    CompletionKind::AttributeKey,
                    Some(format!("{}{required}", key.ty.name())),
                    Some(key.doc.to_string()),
                );
                it.insert = format!("{} = ", key.name);
                out.push(it);
            }
        }
        return out;
    }
    if line_before.ends_with('#') {
        // The `#` is already written: insert the rest of the name.
        for (name, _) in file.declared_names(db) {
            if let Some(bare) = name.strip_prefix('#') {
                out.push(item(bare, CompletionKind::Alias, None, None));
            }
        }
        return dedup(out);
    }
    let trimmed = line_before.trim_end();
    if trimmed.ends_with("target =") || trimmed.ends_with("preset =") {
        for (name, doc) in docs::presets() {
            out.push(item(
                name,
                CompletionKind::Preset,
                None,
                Some(doc.to_string()),
            ));
        }
        return out;
    }
    if line_before.trim().is_empty() && in_solve_block(item_before) {
        for k in layout_db::solve::SOLVE_KEYS {
            let mut it = item(
                k.name,
                CompletionKind::SolveKey,
                None,
                Some(k.doc.to_string()),
            );
            it.insert = format!("{} = ", k.name);
            out.push(it);
        }
        return out;
    }
    // After `check `, or inside an expression, no item starts.
    let at_item_start = line_before.trim().is_empty();
    for (kw, doc) in docs::KEYWORDS {
        if !at_item_start && ITEM_KEYWORDS.contains(kw) {
            continue;
        }
        out.push(item(
            kw,
            CompletionKind::Keyword,
            None,
            Some(doc.to_string()),
        ));
    }
    for (name, decl) in file.declared_names(db) {
        if name.starts_with('#') || name.starts_with('%') {
            continue;
        }
        let detail = layout_db::evaluate_item(db, *decl)
            .value
            .as_ref()
            .map(|v| v.type_name().to_string());
        out.push(item(name, CompletionKind::Name, detail, None));
    }
    let declared: Vec<&str> = file
        .declared_names(db)
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    for b in layout_db::builtins::all() {
        if declared.contains(&b.name) {
            continue; // shadowed by the file's own name
        }
        let mut doc = b.doc.to_string();
        for p in b.params() {
            doc += &format!("\n- `{}`: {}", p.name, p.doc);
        }
        let mut it = item(
            b.name,
            CompletionKind::Builtin,
            Some(signature_label(b)),
            Some(doc),
        );
        it.insert = format!("{}(", b.name);
        out.push(it);
    }
    dedup(out)
}

fn sort_group(kind: CompletionKind) -> char {
    match kind {
        CompletionKind::Name | CompletionKind::Alias => '0',
        CompletionKind::AttributeKey | CompletionKind::SolveKey | CompletionKind::EncodingKind => {
            '1'
        }
        CompletionKind::Preset | CompletionKind::Keyword => '2',
        CompletionKind::Builtin => '3',
    }
}

/// `blocked<{sizePerThread = [$1], threadsPerWarp = [$2], ...}>`: the
/// kind with its required keys as placeholders.
fn encoding_snippet(kind: &str) -> Option<String> {
    let k = docs::encoding_kind(kind)?;
    let mut hole = 0;
    let mut next = || {
        hole += 1;
        format!("${hole}")
    };
    // `padded_shared<[32:+4] {...}>`: the intervals come before the keys.
    let intervals = k
        .keys
        .iter()
        .any(|key| key.required && key.ty == KeyType::Intervals)
        .then(|| format!("[{}] ", next()));
    let keys: Vec<String> = k
        .keys
        .iter()
        .filter(|key| key.required && key.ty != KeyType::Intervals)
        .map(|key| match key.ty {
            KeyType::Ints | KeyType::Bases => format!("{} = [{}]", key.name, next()),
            _ => format!("{} = {}", key.name, next()),
        })
        .collect();
    Some(format!(
        "{kind}<{}{{{}}}>$0",
        intervals.unwrap_or_default(),
        keys.join(", ")
    ))
}

fn dedup(mut items: Vec<CompletionItem>) -> Vec<CompletionItem> {
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.label.clone()));
    items
}

/// The kind of the innermost `#ttg.KIND<{` not yet closed.
fn open_attribute(before: &str) -> Option<&str> {
    let start = before.rfind("<{")?;
    let tail = &before[start..];
    let opens = tail.matches('{').count();
    let closes = tail.matches('}').count();
    if closes >= opens {
        return None;
    }
    let head = &before[..start];
    let kind_start = crate::word_start(head, head.len());
    let dialect = &head[..kind_start];
    (dialect.ends_with("#ttg.") || dialect.ends_with("#triton_gpu.")).then(|| &head[kind_start..])
}

/// The keys already written in the open attribute.
fn keys_written(before: &str) -> Vec<&str> {
    let Some(start) = before.rfind("<{") else {
        return Vec::new();
    };
    before[start + 2..]
        .split(',')
        .filter_map(|part| part.split_once('=').map(|(k, _)| k.trim()))
        .collect()
}

fn in_solve_block(item_text: &str) -> bool {
    item_text.trim_start().starts_with("solve")
        && item_text.matches('{').count() > item_text.matches('}').count()
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::fixture;

    fn check(text: &str, expect: Expect) {
        let (db, file, offset) = fixture::with_cursor(text);
        let items = completions(&db, file, offset);
        let lines: Vec<String> = items
            .iter()
            .take(12)
            .map(|i| {
                format!(
                    "{:?} {} -> `{}`{}",
                    i.kind,
                    i.label,
                    i.insert,
                    i.detail
                        .as_ref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                )
            })
            .collect();
        expect.assert_eq(&format!("{} items\n{}", items.len(), lines.join("\n")));
    }

    #[test]
    fn after_ttg_dot_the_encoding_kinds() {
        check(
            "#b = #ttg.bl$0\n",
            expect![[r#"
            13 items
            EncodingKind blocked -> `blocked`
            EncodingKind swizzled_shared -> `swizzled_shared`
            EncodingKind nvmma_shared -> `nvmma_shared`
            EncodingKind nvidia_mma -> `nvidia_mma`
            EncodingKind amd_mfma -> `amd_mfma`
            EncodingKind amd_wmma -> `amd_wmma`
            EncodingKind amd_rotating_shared -> `amd_rotating_shared`
            EncodingKind shared_linear -> `shared_linear`
            EncodingKind padded_shared -> `padded_shared`
            EncodingKind partitioned_shared -> `partitioned_shared`
            EncodingKind slice -> `slice`
            EncodingKind dot_op -> `dot_op`"#]],
        );
    }

    #[test]
    fn inside_an_attribute_the_keys_not_yet_written() {
        check(
            "#b = #ttg.blocked<{sizePerThread = [1, 4], $0\n",
            expect![[r#"
                7 items
                AttributeKey threadsPerWarp -> `threadsPerWarp = ` ([int])
                AttributeKey warpsPerCTA -> `warpsPerCTA = ` ([int])
                AttributeKey order -> `order = ` ([int])
                AttributeKey CGALayout -> `CGALayout = ` ([[int]] (optional))
                AttributeKey CTAsPerCGA -> `CTAsPerCGA = ` ([int] (optional))
                AttributeKey CTASplitNum -> `CTASplitNum = ` ([int] (optional))
                AttributeKey CTAOrder -> `CTAOrder = ` ([int] (optional))"#]],
        );
    }

    #[test]
    fn after_a_hash_the_files_aliases() {
        check(
            "#mma = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\nlayout a = tensor<16x16xf32, #$0>\n",
            expect![[r#"
                1 items
                Alias mma -> `mma`"#]],
        );
    }

    #[test]
    fn after_target_the_presets() {
        check(
            "target = $0\n",
            expect![[r#"
                6 items
                Preset sm80 -> `sm80`
                Preset sm90 -> `sm90`
                Preset sm100 -> `sm100`
                Preset gfx942 -> `gfx942`
                Preset gfx950 -> `gfx950`
                Preset gfx1250 -> `gfx1250`"#]],
        );
    }

    #[test]
    fn in_a_solve_block_its_keys() {
        check(
            "solve s {\n  kind = swizzle\n  $0\n}\n",
            expect![[r#"
                20 items
                SolveKey kind -> `kind = `
                SolveKey write -> `write = `
                SolveKey read -> `read = `
                SolveKey family -> `family = `
                SolveKey instructions -> `instructions = `
                SolveKey target -> `target = `
                SolveKey array -> `array = `
                SolveKey weights -> `weights = `
                SolveKey min_vector -> `min_vector = `
                SolveKey budget -> `budget = `
                SolveKey timeout -> `timeout = `
                SolveKey minor_dim -> `minor_dim = `"#]],
        );
    }

    #[test]
    fn elsewhere_keywords_names_and_builtins_with_signatures() {
        let (db, file, offset) = fixture::with_cursor("let n = 3\nlet m = $0\n");
        let items = completions(&db, file, offset);
        let find = |l: &str| items.iter().find(|i| i.label == l).cloned();
        expect![[r#"
            Some((Name, Some("an integer")))
            Some((Builtin, "compose(", Some("compose(a: linear, b: linear) -> linear")))
            Some(Keyword)
            None"#]]
        .assert_eq(&format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            find("n").map(|i| (i.kind, i.detail)),
            find("compose").map(|i| (i.kind, i.insert, i.detail)),
            find("cute").map(|i| i.kind),
            // Inside an expression no item starts.
            find("layout").map(|i| i.kind),
        ));
        // The file's names sort first, then the language's words, then builtins.
        let mut sorted = items.clone();
        sorted.sort_by(|a, b| a.sort.cmp(&b.sort));
        assert_eq!(sorted[0].kind, CompletionKind::Name);
        let first_builtin = sorted
            .iter()
            .position(|i| i.kind == CompletionKind::Builtin)
            .unwrap();
        assert!(
            sorted[first_builtin..]
                .iter()
                .all(|i| i.kind == CompletionKind::Builtin)
        );
    }

    #[test]
    fn after_check_no_item_keyword_and_at_a_line_start_all() {
        let (db, file, offset) = fixture::with_cursor("let n = 3\ncheck $0\n");
        let items = completions(&db, file, offset);
        let keywords: Vec<&str> = items
            .iter()
            .filter(|i| i.kind == CompletionKind::Keyword)
            .map(|i| i.label.as_str())
            .collect();
        assert!(
            !keywords.iter().any(|l| ITEM_KEYWORDS.contains(l)),
            "{keywords:?}"
        );
        assert!(keywords.contains(&"not") && items.iter().any(|i| i.label == "n"));
        let (db, file, offset) = fixture::with_cursor("let n = 3\n$0\n");
        let labels: Vec<String> = completions(&db, file, offset)
            .into_iter()
            .map(|i| i.label)
            .collect();
        assert!(
            ITEM_KEYWORDS
                .iter()
                .all(|k| labels.contains(&k.to_string()))
        );
    }

    /// An encoding's snippet, its placeholders filled, is a complete
    /// attribute: every required key is there.
    #[test]
    fn encoding_snippets_hold_every_required_key() {
        let (db, file, offset) = fixture::with_cursor("#b = #ttg.$0\n");
        let items = completions(&db, file, offset);
        let blocked = items.iter().find(|i| i.label == "blocked").unwrap();
        assert_eq!(
            blocked.snippet.as_deref(),
            Some(
                "blocked<{sizePerThread = [$1], threadsPerWarp = [$2], warpsPerCTA = [$3], order = [$4]}>$0"
            )
        );
        let filled = blocked
            .snippet
            .as_deref()
            .unwrap()
            .replace("$1", "1, 4")
            .replace("$2", "8, 4")
            .replace("$3", "4, 1")
            .replace("$4", "1, 0")
            .replace("$0", "");
        let (db, file) = fixture::open(&format!(
            "#b = #ttg.{filled}\nlayout t = tensor<64x64xf16, #b>\n"
        ));
        assert!(layout_db::check_file(&db, file).diagnostics.is_empty());
        for item in items
            .iter()
            .filter(|i| i.kind == CompletionKind::EncodingKind)
        {
            let snippet = item.snippet.as_deref().unwrap();
            let kind = docs::encoding_kind(&item.label).unwrap();
            for key in kind
                .keys
                .iter()
                .filter(|k| k.required && k.ty != KeyType::Intervals)
            {
                assert!(snippet.contains(&format!("{} = ", key.name)), "{snippet}");
            }
        }
    }
}
