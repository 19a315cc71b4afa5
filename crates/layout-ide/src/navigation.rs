//! Go to definition, find references, document highlight and rename.
//! Names are file-wide (CONTRACT: a `.lay` file is one scope), so every
//! use of a name resolves to the same declaration; a declared name
//! shadows a builtin of the same name. A dump's SSA values (`%41`) are
//! scoped by function ([`layout_db::ssa`]).

use layout_db::ssa::{SsaOccurrence, same_value, ssa_at};
use layout_db::{Resolution, name_refs};

use crate::{Db, SourceFile, Span, TextEdit, declarations, name_at};

/// Where a name is declared: its name's span and the whole declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavTarget {
    pub name_span: Span,
    pub full_span: Span,
}

pub fn definition(db: &dyn Db, file: SourceFile, offset: usize) -> Option<NavTarget> {
    if let Some(value) = ssa_at(db, file, offset) {
        let def = same_value(db, file, value)
            .into_iter()
            .find(|o| o.is_definition)?;
        return Some(NavTarget {
            name_span: def.span,
            full_span: line_of(file.text(db), def.span),
        });
    }
    let n = name_at(db, file, offset)?;
    let Resolution::Declared(_) = n.resolution else {
        return None;
    };
    let (name_span, full_span) = *declarations(db, file, &n.name).first()?;
    Some(NavTarget {
        name_span,
        full_span,
    })
}

/// One occurrence of a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    /// A declaration (written) rather than a use (read).
    pub is_declaration: bool,
}

/// Every occurrence of the name under the cursor, declarations included,
/// in file order. Builtins have occurrences too (every call of `compose`).
pub fn references(db: &dyn Db, file: SourceFile, offset: usize) -> Vec<Occurrence> {
    if let Some(value) = ssa_at(db, file, offset) {
        return same_value(db, file, value)
            .into_iter()
            .map(|o| Occurrence {
                span: o.span,
                is_declaration: o.is_definition,
            })
            .collect();
    }
    let Some(n) = name_at(db, file, offset) else {
        return Vec::new();
    };
    occurrences(db, file, &n.name, n.resolution)
}

fn occurrences(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    resolution: Resolution,
) -> Vec<Occurrence> {
    if resolution == Resolution::Unresolved {
        return Vec::new();
    }
    let mut out: Vec<Occurrence> = declarations(db, file, name)
        .into_iter()
        .map(|(span, _)| Occurrence {
            span,
            is_declaration: true,
        })
        .collect();
    for at in layout_db::item_ranges(db, file) {
        for r in name_refs(db, at.item) {
            if r.name == name {
                out.push(Occurrence {
                    span: at.to_file(r.span),
                    is_declaration: false,
                });
            }
        }
    }
    out.sort_by_key(|o| o.span);
    out
}

/// The occurrences to highlight in the editor: the same as references.
pub fn highlight(db: &dyn Db, file: SourceFile, offset: usize) -> Vec<Occurrence> {
    references(db, file, offset)
}

/// Where a rename may start: the name under the cursor, if it is declared
/// in the file.
pub fn prepare_rename(db: &dyn Db, file: SourceFile, offset: usize) -> Result<Span, String> {
    if let Some(value) = ssa_at(db, file, offset) {
        return Ok(value.span);
    }
    let n = name_at(db, file, offset).ok_or("no name here")?;
    match n.resolution {
        Resolution::Declared(_) => Ok(n.span),
        Resolution::Builtin(_) => Err(format!("`{}` is a builtin function", n.name)),
        Resolution::Unresolved => Err(format!("`{}` is not declared", n.name)),
    }
}

/// Renames the declared name under the cursor and all its uses. An alias
/// keeps its `#` (`#mma` -> `#acc` whether or not the new name has it).
pub fn rename(
    db: &dyn Db,
    file: SourceFile,
    offset: usize,
    new_name: &str,
) -> Result<Vec<TextEdit>, String> {
    prepare_rename(db, file, offset)?;
    if let Some(value) = ssa_at(db, file, offset) {
        return rename_value(db, file, value, new_name);
    }
    let n = name_at(db, file, offset).ok_or("no name here")?;
    let alias = n.name.starts_with('#');
    let bare = new_name.strip_prefix('#').unwrap_or(new_name);
    let valid = bare
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid || (new_name.starts_with('#') && !alias) {
        return Err(format!("`{new_name}` is not a valid name here"));
    }
    if !alias && crate::docs::keyword_doc(bare).is_some() {
        return Err(format!("`{bare}` is a keyword"));
    }
    let full = if alias {
        format!("#{bare}")
    } else {
        bare.to_string()
    };
    if full != n.name && !declarations(db, file, &full).is_empty() {
        return Err(format!("`{full}` is already declared"));
    }
    let text = file.text(db);
    Ok(occurrences(db, file, &n.name, n.resolution)
        .into_iter()
        .map(|o| TextEdit {
            span: o.span,
            new_text: if text[o.span.start..].starts_with('#') {
                format!("#{bare}")
            } else {
                bare.to_string()
            },
        })
        .collect())
}

/// A place in the kernel's source that a dump's `loc(...)` names:
/// `loc("kernel.py":12:5)`, 1-based line and column as MLIR prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

/// The source locations under the cursor: on a `#locN` (a use or its
/// definition), the file position its definition names, following
/// `loc("name"(#loc))` and `loc(callsite(#loc3 at #loc4))` to the first
/// file position; on a `loc("file":L:C)` written inline, that position.
/// Whether the file exists is for the caller to say (no IO here).
pub fn source_locations(db: &dyn Db, file: SourceFile, offset: usize) -> Vec<SourceLocation> {
    let text = file.text(db);
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = &text[line_start..line_end];
    let at = offset - line_start;
    // A `#locN` under the cursor.
    let in_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let name_start = line[..at]
        .char_indices()
        .rev()
        .find(|&(_, c)| !in_name(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name_end = line[at..]
        .find(|c: char| !in_name(c))
        .map_or(line.len(), |i| at + i);
    let word = &line[name_start..name_end];
    if name_start > 0 && line.as_bytes()[name_start - 1] == b'#' && word.starts_with("loc") {
        return follow_loc(text, word, 8).into_iter().collect();
    }
    // `loc("file":L:C)` on this line, around the cursor.
    file_position_in(line).into_iter().collect()
}

/// The file position `#name`'s definition leads to.
fn follow_loc(text: &str, name: &str, depth: usize) -> Option<SourceLocation> {
    let head = format!("#{name} = loc(");
    let def = text.lines().find(|l| l.starts_with(&head))?;
    let body = &def[head.len()..];
    if let Some(found) = file_position_in(body) {
        return Some(found);
    }
    // The first `#locM` it names: a named location's or a callsite's callee.
    let at = body.find("#loc")?;
    let next: String = body[at + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (depth > 0 && next != name)
        .then(|| follow_loc(text, &next, depth - 1))
        .flatten()
}

/// The first `"path":line:column` in `text` (a line holds one location).
fn file_position_in(text: &str) -> Option<SourceLocation> {
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let close = after.find('"')?;
        let mut numbers = after[close + 1..]
            .strip_prefix(':')
            .unwrap_or("")
            .splitn(3, |c: char| !c.is_ascii_digit());
        if let (Some(Ok(line)), Some(Ok(column))) = (
            numbers.next().map(str::parse::<u32>),
            numbers.next().map(str::parse::<u32>),
        ) {
            return Some(SourceLocation {
                path: after[..close].to_string(),
                line,
                column,
            });
        }
        rest = &after[close + 1..];
    }
    None
}

/// Renames an SSA value of a dump within its function. MLIR's names are
/// letters, digits, `_`, `$`, `.` and `-`; the `%` is kept.
fn rename_value(
    db: &dyn Db,
    file: SourceFile,
    value: &SsaOccurrence,
    new_name: &str,
) -> Result<Vec<TextEdit>, String> {
    let bare = new_name.strip_prefix('%').unwrap_or(new_name);
    let valid = !bare.is_empty()
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_$.-".contains(c));
    if !valid {
        return Err(format!("`{new_name}` is not a valid value name"));
    }
    let full = format!("%{bare}");
    let taken = layout_db::ssa::ssa_values(db, file)
        .iter()
        .any(|o| o.function == value.function && o.name == full && o.name != value.name);
    if taken {
        return Err(format!("`{full}` is already a value of this function"));
    }
    Ok(same_value(db, file, value)
        .into_iter()
        .map(|o| TextEdit {
            span: o.span,
            new_text: full.clone(),
        })
        .collect())
}

/// The line around `span`, without its line break.
fn line_of(text: &str, span: Span) -> Span {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    Span::new(start, end)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::fixture;

    const FILE: &str = r#"#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
layout acc = tensor<32x16xf32, #mma>
layout a = tensor<32x16xf16, #dot>
check acc(register = 2) == (dim0 = 8, dim1 = 0)
check size(acc) == 512
"#;

    fn at(marker_before: &str) -> (crate::Database, SourceFile, usize) {
        let at = FILE.find(marker_before).unwrap();
        let text = format!("{}$0{}", &FILE[..at], &FILE[at..]);
        fixture::with_cursor(&text)
    }

    fn check_refs(marker: &str, expect: Expect) {
        let (db, file, offset) = at(marker);
        let spans: Vec<Span> = references(&db, file, offset)
            .iter()
            .map(|o| o.span)
            .collect();
        expect.assert_eq(&fixture::mark(file.text(&db), &spans));
    }

    #[test]
    fn definition_of_an_alias_use_inside_an_attribute_is_the_alias() {
        let (db, file, offset) = at("mma, kWidth");
        let t = definition(&db, file, offset).unwrap();
        let text = file.text(&db);
        assert_eq!(&text[t.name_span.start..t.name_span.end], "#mma");
        assert!(text[t.full_span.start..t.full_span.end].starts_with("#mma = #ttg.nvidia_mma"));
    }

    #[test]
    fn references_of_an_alias_include_the_attribute_parent_and_tensor_types() {
        check_refs(
            "mma = #ttg",
            expect![[r#"
            [[#mma]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
            #dot = #ttg.dot_op<{opIdx = 0, parent = [[#mma]], kWidth = 2}>
            layout acc = tensor<32x16xf32, [[#mma]]>
            layout a = tensor<32x16xf16, #dot>
            check acc(register = 2) == (dim0 = 8, dim1 = 0)
            check size(acc) == 512
        "#]],
        );
    }

    #[test]
    fn references_of_a_layout_name_include_calls_and_arguments() {
        check_refs(
            "acc(register",
            expect![[r#"
            #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
            #dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
            layout [[acc]] = tensor<32x16xf32, #mma>
            layout a = tensor<32x16xf16, #dot>
            check [[acc]](register = 2) == (dim0 = 8, dim1 = 0)
            check size([[acc]]) == 512
        "#]],
        );
    }

    /// Every `#alias` of a dump, by a plain scan of the text: `#name` not
    /// followed by a name character or a `.`.
    fn alias_uses_by_scan(text: &str, name: &str) -> Vec<Span> {
        text.match_indices(name)
            .filter(|(at, _)| {
                let after = text[at + name.len()..].chars().next();
                !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            })
            .map(|(at, _)| Span::new(at, at + name.len()))
            .collect()
    }

    #[test]
    fn references_and_rename_of_an_alias_reach_every_line_of_a_dump() {
        for kernel in [
            "flash_attention_fwd_sm90",
            "flash_attention_fwd_gfx942",
            "matmul_int8_sm100",
            "matmul_fp16_tma_gfx950",
        ] {
            let text = fixture::corpus(&format!("ttgir/{kernel}.ttgir"));
            let (db, file) = fixture::open(&text);
            let aliases: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with('#') && !l.starts_with("#loc"))
                .filter_map(|l| l.split_whitespace().next())
                .collect();
            assert!(aliases.len() >= 3, "{kernel}");
            for alias in aliases {
                let expected = alias_uses_by_scan(&text, alias);
                let use_at = expected.last().unwrap().start + 1;
                let found: Vec<Span> = references(&db, file, use_at)
                    .iter()
                    .map(|o| o.span)
                    .collect();
                assert_eq!(found, expected, "{kernel}: {alias}");
                let edits = rename(&db, file, use_at, "renamed").unwrap();
                assert_eq!(edits.len(), expected.len(), "{kernel}: {alias}");
                assert!(edits.iter().all(|e| e.new_text == "#renamed"));
            }
            // A `#loc` use in an operation goes to its definition.
            let use_at = text.find("loc(#loc").unwrap() + 5;
            let target = definition(&db, file, use_at).unwrap();
            assert!(
                text[target.name_span.start..].starts_with("#loc"),
                "{kernel}"
            );
        }
    }

    #[test]
    fn a_dump_value_goes_to_its_definition_and_renames_within_its_function() {
        let text = fixture::corpus("ttgir/flash_attention_fwd_sm90.ttgir");
        let (db, file) = fixture::open(&text);
        // A value defined by an operation layoutc does not evaluate.
        let def = text.find("%0 = ").unwrap();
        let use_at = def
            + 1
            + text[def + 1..]
                .find("%0 ")
                .or_else(|| text[def + 1..].find("%0,"))
                .unwrap();
        let target = definition(&db, file, use_at + 1).unwrap();
        assert_eq!(target.name_span, Span::new(def, def + 2));
        assert!(
            text[target.full_span.start..target.full_span.end]
                .trim_start()
                .starts_with("%0 = ")
        );
        let refs = references(&db, file, use_at + 1);
        let by_scan = text
            .match_indices("%0")
            .filter(|(at, _)| {
                !text[at + 2..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
            .count();
        assert_eq!(refs.len(), by_scan);
        assert_eq!(refs.iter().filter(|o| o.is_declaration).count(), 1);
        let edits = rename(&db, file, use_at + 1, "start").unwrap();
        assert_eq!(edits.len(), by_scan);
        assert!(edits.iter().all(|e| e.new_text == "%start"));
        assert!(
            rename(&db, file, use_at + 1, "%1")
                .unwrap_err()
                .contains("already")
        );
        let hover = crate::hover::hover(&db, file, use_at + 1).unwrap();
        let line = text[..def].matches('\n').count() + 1;
        assert!(
            hover.markdown.starts_with(&format!(
                "**%0**, defined on line {line}, used {} time",
                by_scan - 1
            )),
            "{}",
            hover.markdown
        );
    }

    #[test]
    fn a_dump_value_renames_within_its_region_not_a_sibling_s() {
        // Triton's dump reuses `%x_6`, `%x_7` in the two branches of an
        // `scf.if`: each branch's value is its own.
        let text = fixture::corpus("kernels/joined_loads_sm80.ttgir");
        let (db, file) = fixture::open(&text);
        let branches = text.find("scf.if").unwrap();
        let other = text[branches..].find("} else {").unwrap() + branches;
        let then_use = text.find("tt.addptr %x_6").unwrap() + "tt.addptr ".len() + 1;
        let by_scan = |from: usize, to: usize| {
            text[from..to]
                .match_indices("%x_6")
                .filter(|(at, _)| {
                    !text[from + at + 4..].starts_with(|c: char| c.is_ascii_alphanumeric())
                })
                .count()
        };
        let edits = rename(&db, file, then_use, "row_ptrs").unwrap();
        assert_eq!(edits.len(), by_scan(branches, other));
        assert!(
            edits
                .iter()
                .all(|e| branches < e.span.start && e.span.end < other)
        );
        let else_use = text[other..].find("%x_7, %x_6").unwrap() + other + "%x_7, ".len() + 1;
        let refs = references(&db, file, else_use);
        assert!(refs.len() >= 2 && refs.iter().all(|r| r.span.start > other));
        // A name another region of the function uses is refused.
        assert!(
            rename(&db, file, then_use, "%x_8")
                .unwrap_err()
                .contains("already")
        );
    }

    #[test]
    fn a_loc_leads_to_the_python_line_it_names() {
        let text = "#loc = loc(\"k.py\":220:1)\n#loc3 = loc(\"k.py\":244:32)\n#loc58 = loc(\"q_ptr\"(#loc))\n#loc9 = loc(callsite(#loc3 at #loc58))\n%0 = tt.load %p : tensor<4x!tt.ptr<f16>> loc(#loc9)\n%1 = tt.load %p : tensor<4x!tt.ptr<f16>> loc(\"other.py\":7:2)\n";
        let (db, file) = fixture::open(text);
        let at = |needle: &str, skip: usize| text.find(needle).unwrap() + skip;
        let places = |offset| -> Vec<String> {
            source_locations(&db, file, offset)
                .iter()
                .map(|l| format!("{}:{}:{}", l.path, l.line, l.column))
                .collect()
        };
        assert_eq!(places(at("loc(#loc9)", 6)), ["k.py:244:32"]);
        assert_eq!(places(at("#loc58 =", 2)), ["k.py:220:1"]);
        assert_eq!(places(at("\"other.py\"", 3)), ["other.py:7:2"]);
        assert!(places(at("tt.load", 2)).is_empty());
    }

    #[test]
    fn rename_keeps_the_hash_of_aliases() {
        let (db, file, offset) = at("mma>\nlayout a");
        let mut edits = rename(&db, file, offset, "acc_layout").unwrap();
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        let mut text = file.text(&db).to_string();
        for e in edits {
            text.replace_range(e.span.start..e.span.end, &e.new_text);
        }
        expect![[r#"
            #acc_layout = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
            #dot = #ttg.dot_op<{opIdx = 0, parent = #acc_layout, kWidth = 2}>
            layout acc = tensor<32x16xf32, #acc_layout>
            layout a = tensor<32x16xf16, #dot>
            check acc(register = 2) == (dim0 = 8, dim1 = 0)
            check size(acc) == 512
        "#]].assert_eq(&text);
    }

    #[test]
    fn rename_refuses_builtins_conflicts_and_bad_names() {
        let (db, file, offset) = at("size(acc)");
        assert_eq!(
            rename(&db, file, offset, "n"),
            Err("`size` is a builtin function".into())
        );
        let (db, file, offset) = at("acc(register");
        assert_eq!(
            rename(&db, file, offset, "a"),
            Err("`a` is already declared".into())
        );
        assert_eq!(
            rename(&db, file, offset, "2x"),
            Err("`2x` is not a valid name here".into())
        );
        assert_eq!(
            rename(&db, file, offset, "check"),
            Err("`check` is a keyword".into())
        );
    }
}
