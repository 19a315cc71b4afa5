//! The outline of a file (document symbols) and the ranges an editor may
//! fold: every item that spans lines, and runs of comment lines.

use layout_db::{item_ranges, parse_item};
use layout_syntax::ItemKind;

use crate::{Db, SourceFile, Span, declared_name};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Layout,
    Alias,
    Let,
    Convert,
    Solve,
    Target,
    /// A pasted `ttg.local_alloc/store/load` with a result name.
    Access,
    /// Any other pasted operation with a result name (`%5 = tt.load`).
    Operation,
    /// A dump's function (`tt.func @matmul_kernel`), holding its
    /// conversions and shared-memory operations.
    Function,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The name's text.
    pub name_span: Span,
    /// The whole declaration.
    pub full_span: Span,
    /// One line about the value (its kind), when it has one.
    pub detail: Option<String>,
    /// What it holds (a dump's function: its conversions and accesses).
    pub children: Vec<Symbol>,
}

/// The outline: each declaration of a `.lay` file; for a dump, its
/// encoding aliases, then each function with the conversions and
/// shared-memory operations in it (its other operations and `#loc`s are
/// not what one looks for in an outline).
pub fn document_symbols(db: &dyn Db, file: SourceFile) -> Vec<Symbol> {
    if item_ranges(db, file)
        .iter()
        .any(|at| function_name(db, at).is_some())
    {
        return dump_symbols(db, file);
    }
    let mut out = Vec::new();
    for at in item_ranges(db, file) {
        let Some(item) = &parse_item(db, at.item).item else {
            continue;
        };
        let kind = match &item.kind {
            ItemKind::Layout { .. } => SymbolKind::Layout,
            ItemKind::Alias { .. } => SymbolKind::Alias,
            ItemKind::Let { .. } => SymbolKind::Let,
            ItemKind::Convert { .. } => SymbolKind::Convert,
            ItemKind::Solve { .. } => SymbolKind::Solve,
            ItemKind::Target { .. } => SymbolKind::Target,
            ItemKind::MemoryOp { .. } => SymbolKind::Access,
            ItemKind::Operation { .. } => SymbolKind::Operation,
            _ => continue,
        };
        let Some((name, span)) = declared_name(db, at.item) else {
            continue;
        };
        let detail = layout_db::evaluate_item(db, at.item)
            .value
            .as_ref()
            .map(|v| v.type_name().to_string());
        out.push(Symbol {
            name,
            kind,
            name_span: at.to_file(span),
            full_span: at.to_file(item.span),
            detail,
            children: Vec::new(),
        });
    }
    out
}

/// Every symbol with the name of the one that holds it (a function's
/// conversions), for workspace symbols.
pub fn flat_symbols(db: &dyn Db, file: SourceFile) -> Vec<(Symbol, Option<String>)> {
    let mut out = Vec::new();
    for mut sym in document_symbols(db, file) {
        let children = std::mem::take(&mut sym.children);
        let container = sym.name.clone();
        out.push((sym, None));
        out.extend(children.into_iter().map(|c| (c, Some(container.clone()))));
    }
    out
}

/// `@matmul_kernel` and its span, when the item opens a function
/// (`tt.func public @matmul_kernel(...)`).
fn function_name(db: &dyn Db, at: &layout_db::ItemAt) -> Option<(String, Span)> {
    let item = parse_item(db, at.item).item.as_ref()?;
    let ItemKind::Operation { op, .. } = &item.kind else {
        return None;
    };
    if !op.name.ends_with(".func") {
        return None;
    }
    let text = at.item.text(db);
    let (tokens, _) = layout_syntax::lexer::lex(text);
    tokens.windows(2).find_map(|w| match w {
        [
            (layout_syntax::lexer::Token::Ctrl('@'), a),
            (layout_syntax::lexer::Token::Ident(n), b),
        ] if a.end == b.start => Some((format!("@{n}"), at.to_file(Span::new(a.start, b.end)))),
        _ => None,
    })
}

fn dump_symbols(db: &dyn Db, file: SourceFile) -> Vec<Symbol> {
    let mut out: Vec<Symbol> = Vec::new();
    // The function being read: its index in `out`.
    let mut function: Option<usize> = None;
    for at in item_ranges(db, file) {
        let Some(item) = &parse_item(db, at.item).item else {
            continue;
        };
        let full_span = at.to_file(item.span);
        if let Some(f) = function {
            // A function reaches to the next one (or the end).
            out[f].full_span = out[f].full_span.to(full_span);
        }
        if let Some((name, name_span)) = function_name(db, &at) {
            function = Some(out.len());
            out.push(Symbol {
                name,
                kind: SymbolKind::Function,
                name_span,
                full_span,
                detail: None,
                children: Vec::new(),
            });
            continue;
        }
        let (kind, name, name_span) = match &item.kind {
            ItemKind::Alias { name, .. } if !name.name.starts_with("loc") => {
                (SymbolKind::Alias, format!("#{}", name.name), name.span)
            }
            ItemKind::Convert { name, .. } => (SymbolKind::Convert, name.name.clone(), name.span),
            ItemKind::MemoryOp {
                name,
                op,
                operation,
                ..
            } => match name {
                Some(n) => (SymbolKind::Access, n.name.clone(), n.span),
                None => (SymbolKind::Access, op.mlir_name().to_string(), *operation),
            },
            _ => continue,
        };
        let detail = match &item.kind {
            ItemKind::MemoryOp { op, .. } => Some(op.mlir_name().to_string()),
            ItemKind::Convert { .. } => Some("ttg.convert_layout".to_string()),
            _ => None,
        };
        let symbol = Symbol {
            name,
            kind,
            name_span: at.to_file(name_span),
            full_span,
            detail,
            children: Vec::new(),
        };
        match (kind, function) {
            (SymbolKind::Alias, _) | (_, None) => out.push(symbol),
            (_, Some(f)) => out[f].children.push(symbol),
        }
    }
    out
}

/// A foldable range of whole lines (byte offsets of its first and last
/// character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub span: Span,
    pub is_comment: bool,
}

pub fn folding_ranges(db: &dyn Db, file: SourceFile) -> Vec<Fold> {
    let text = file.text(db);
    let mut out = Vec::new();
    for at in item_ranges(db, file) {
        let Some(item) = &parse_item(db, at.item).item else {
            continue;
        };
        let span = at.to_file(item.span);
        if text[span.start..span.end].contains('\n') {
            out.push(Fold {
                span,
                is_comment: false,
            });
        }
    }
    // Runs of two or more lines that are only comments.
    let mut run: Option<(usize, usize, usize)> = None; // start, end, lines
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        let end = offset + line.trim_end().len();
        if trimmed.starts_with("//") {
            run = Some(match run {
                Some((s, _, n)) => (s, end, n + 1),
                None => (offset + (line.len() - line.trim_start().len()), end, 1),
            });
        } else if let Some((s, e, n)) = run.take()
            && n > 1
        {
            out.push(Fold {
                span: Span::new(s, e),
                is_comment: true,
            });
        }
        offset += line.len();
    }
    if let Some((s, e, n)) = run
        && n > 1
    {
        out.push(Fold {
            span: Span::new(s, e),
            is_comment: true,
        });
    }
    out.extend(bracket_regions(&file.analysed_text(db)));
    // One fold per first line (an editor keeps one): the widest.
    out.sort_by_key(|f| (line_of(text, f.span.start), std::cmp::Reverse(f.span.end)));
    out.dedup_by_key(|f| line_of(text, f.span.start));
    out.sort_by_key(|f| f.span);
    out
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count()
}

/// Brackets that open on one line and close on a later one: a dump's
/// module, `tt.func`, `scf.for` and `scf.if` regions, a solve block, a
/// long list. The fold ends on the line before the closing bracket, which
/// stays in sight (as an editor's own bracket folding does); a server's
/// folding replaces the editor's, so these are the brackets it would fold.
fn bracket_regions(text: &str) -> Vec<Fold> {
    let (tokens, _) = layout_syntax::lexer::lex(text);
    let mut open: Vec<(char, usize)> = Vec::new();
    let mut out = Vec::new();
    for (token, at) in &tokens {
        let layout_syntax::lexer::Token::Ctrl(c) = token else {
            continue;
        };
        let opener = match c {
            '{' | '(' | '[' => {
                open.push((*c, at.start));
                continue;
            }
            '}' => '{',
            ')' => '(',
            ']' => '[',
            _ => continue,
        };
        let Some(i) = open.iter().rposition(|(o, _)| *o == opener) else {
            continue;
        };
        let start = open[i].1;
        open.truncate(i);
        // The end of the line before the closer's.
        let Some(before) = text[..at.start].rfind('\n') else {
            continue;
        };
        if before > start && text[start..before].contains('\n') {
            out.push(Fold {
                span: Span::new(start, before),
                is_comment: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture;

    #[test]
    fn a_dump_outlines_its_aliases_and_functions_with_their_shared_memory_ops() {
        let text = fixture::corpus("ttgir/flash_attention_fwd_sm90.ttgir");
        let (db, file) = fixture::open(&text);
        let symbols = document_symbols(&db, file);
        let aliases = text
            .lines()
            .filter(|l| l.starts_with('#') && !l.starts_with("#loc"))
            .count();
        let kinds: Vec<SymbolKind> = symbols.iter().map(|s| s.kind).collect();
        let mut expected = vec![SymbolKind::Alias; aliases];
        expected.push(SymbolKind::Function);
        assert_eq!(kinds, expected);
        let function = symbols.last().unwrap();
        assert_eq!(function.name, "@flash_attention_fwd");
        let ops = text
            .lines()
            .filter(|l| {
                [
                    "ttg.convert_layout",
                    "ttg.local_alloc",
                    "ttg.local_store",
                    "ttg.local_load",
                ]
                .iter()
                .any(|op| l.contains(&format!("{op} ")))
            })
            .count();
        assert!(ops > 0);
        assert_eq!(function.children.len(), ops, "{:#?}", function.children);
        // The function's range holds its operations.
        let last = function.children.last().unwrap();
        assert!(
            function.full_span.start < last.full_span.start
                && last.full_span.end <= function.full_span.end
        );
    }

    #[test]
    fn a_dump_folds_by_region() {
        let text = fixture::corpus("ttgir/flash_attention_fwd_sm90.ttgir");
        let (db, file) = fixture::open(&text);
        let fold_lines: Vec<(usize, usize)> = folding_ranges(&db, file)
            .iter()
            .map(|f| (line_of(&text, f.span.start), line_of(&text, f.span.end)))
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        let regions: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                l.trim_end().ends_with('{')
                    && ["module", "tt.func", "scf.for", "scf.if"]
                        .iter()
                        .any(|op| l.contains(op))
            })
            .map(|(i, _)| i)
            .collect();
        assert!(regions.len() >= 3, "{regions:?}");
        for start in regions {
            let (_, end) = fold_lines
                .iter()
                .find(|(s, _)| *s == start)
                .unwrap_or_else(|| panic!("no fold at line {}", start + 1));
            // It ends just before the line of its closing brace.
            let indent = lines[start].len() - lines[start].trim_start().len();
            let closer = &lines[end + 1];
            assert!(
                closer.trim_start().starts_with('}'),
                "{}: {closer}",
                start + 1
            );
            assert_eq!(
                closer.len() - closer.trim_start().len(),
                indent,
                "{}",
                start + 1
            );
        }
    }

    const FILE: &str = r#"// A file with one of each.
// Two comment lines fold.
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
layout t = tensor<128xf32, #b>
let n = 3
solve s {
  kind = swizzle
  write = tensor<64x64xf16, #b>
}
check n == 3
"#;

    #[test]
    fn symbols_list_every_declaration_with_its_kind() {
        let (db, file) = fixture::open(FILE);
        let text = file.text(&db);
        let lines: Vec<String> = document_symbols(&db, file)
            .iter()
            .map(|s| {
                format!(
                    "{:?} {} `{}` {:?}",
                    s.kind,
                    s.name,
                    &text[s.name_span.start..s.name_span.end],
                    s.detail
                )
            })
            .collect();
        expect![[r#"
            Alias #b `#b` Some("a Triton encoding (not bound to a tensor shape)")
            Layout t `t` Some("a Triton tensor layout")
            Let n `n` Some("an integer")
            Solve s `s` None"#]]
        .assert_eq(&lines.join("\n"));
    }

    #[test]
    fn multi_line_items_and_comment_runs_fold() {
        let (db, file) = fixture::open(FILE);
        let spans: Vec<Span> = folding_ranges(&db, file).iter().map(|f| f.span).collect();
        expect![[r#"
            [[// A file with one of each.
            // Two comment lines fold.]]
            #b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
            layout t = tensor<128xf32, #b>
            let n = 3
            [[solve s {
              kind = swizzle
              write = tensor<64x64xf16, #b>
            }]]
            check n == 3
        "#]].assert_eq(&fixture::mark(file.text(&db), &spans));
    }
}
