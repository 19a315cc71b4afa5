//! The formatter behind `layoutc fmt`.
//!
//! It works on tokens, so it cannot change meaning: the token sequence is
//! kept, only the space between tokens is rewritten. Line breaks stay where
//! the author put them (at most one blank line in a row), lines are indented
//! by bracket depth, comments stay on their lines, and pasted notations —
//! `cute ...`, `xla ...`, tilers and `tensor<...>` — are copied verbatim.
//! Spacing follows the pasted sources: Triton's `#ttg.blocked<{a = [1, 4]}>`
//! and MLIR's `attributes {"ttg.num-warps" = 4 : i32}`.

use crate::ast::*;
use crate::lexer::{self, Token};
use crate::parse;

/// Formats a file; a file with syntax errors is left alone.
pub fn format(src: &str) -> Result<String, Vec<SyntaxError>> {
    let parsed = parse(src);
    if !parsed.errors.is_empty() {
        return Err(parsed.errors);
    }
    let mut verbatim = Vec::new();
    for item in &parsed.items {
        item_verbatim(src, item, &mut verbatim);
    }
    // Pasted MLIR operations keep their lines' indentation as well.
    let pasted: Vec<usize> = parsed
        .items
        .iter()
        .filter(|i| is_pasted_operation(i))
        .map(|i| i.span.start)
        .collect();
    verbatim.sort_by_key(|s| s.start);
    let item_starts: Vec<usize> = parsed.items.iter().map(|i| i.span.start).collect();

    // Tokens, with each pasted notation merged into one atom.
    let (tokens, _) = lexer::lex(src);
    let mut atoms: Vec<Atom> = Vec::new();
    let mut v = 0;
    for (tok, span) in &tokens {
        while v < verbatim.len() && verbatim[v].end <= span.start {
            v += 1;
        }
        if let Some(vs) = verbatim.get(v)
            && vs.start <= span.start
            && span.end <= vs.end
        {
            if atoms.last().is_none_or(|a| a.start != vs.start) {
                atoms.push(Atom {
                    start: vs.start,
                    end: vs.end,
                    kind: AtomKind::Verbatim,
                });
            }
            continue;
        }
        atoms.push(Atom {
            start: span.start,
            end: span.end,
            kind: AtomKind::Token(class(tok)),
        });
    }

    let text = |a: &Atom| &src[a.start..a.end];
    let mut out = String::new();
    // Open brackets: (char, spaced inside).
    let mut stack: Vec<(char, bool)> = Vec::new();
    let mut prev_end = 0;
    for i in 0..atoms.len() {
        let atom = &atoms[i];
        let gap = &src[prev_end..atom.start];
        let mut newlines = 0usize;
        let mut rest = gap;
        // Comments in the gap, each kept on its own line or after the token.
        while let Some(pos) = rest.find("//") {
            newlines += rest[..pos].matches('\n').count();
            let line_end = rest[pos..].find('\n').map_or(rest.len(), |e| pos + e);
            let comment = rest[pos..line_end].trim_end();
            if out.is_empty() {
                // A comment at the top of the file.
            } else if newlines == 0 {
                out.push(' ');
            } else {
                out.push_str(if newlines > 1 { "\n\n" } else { "\n" });
                out.push_str(&indent(stack.len(), false));
            }
            out.push_str(comment);
            newlines = 0;
            rest = &rest[line_end..];
        }
        newlines += rest.matches('\n').count();
        let closer = matches!(atom.kind, AtomKind::Token(Class::Close(_)));
        let is_item_start = item_starts.contains(&atom.start);
        if out.is_empty() {
            // First token of the file.
        } else if newlines > 0 || out.ends_with('\n') || last_line_is_comment(&out) {
            out.push_str(if newlines > 1 { "\n\n" } else { "\n" });
            let depth = stack.len() - usize::from(closer && !stack.is_empty());
            if pasted.contains(&atom.start) {
                let line_start = src[..atom.start].rfind('\n').map_or(0, |n| n + 1);
                out.push_str(&src[line_start..atom.start]);
            } else {
                out.push_str(&indent(depth, !is_item_start && !closer && depth == 0));
            }
        } else if space_between(&atoms, i, src, &stack) {
            out.push(' ');
        }
        out.push_str(text(atom));
        match atom.kind {
            AtomKind::Token(Class::Open(c)) => {
                let spaced = c == '{' && !is_attribute_brace(&atoms, i, src);
                stack.push((c, spaced));
            }
            AtomKind::Token(Class::Close(_)) => {
                stack.pop();
            }
            _ => {}
        }
        prev_end = atom.end;
    }
    // Comments after the last token.
    let mut rest = &src[prev_end..];
    let mut newlines = 0;
    while let Some(pos) = rest.find("//") {
        newlines += rest[..pos].matches('\n').count();
        let line_end = rest[pos..].find('\n').map_or(rest.len(), |e| pos + e);
        if !out.is_empty() {
            if newlines == 0 {
                out.push(' ');
            } else {
                out.push_str(if newlines > 1 { "\n\n" } else { "\n" });
            }
        }
        out.push_str(rest[pos..line_end].trim_end());
        newlines = 0;
        rest = &rest[line_end..];
    }
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

fn last_line_is_comment(out: &str) -> bool {
    out.rsplit('\n').next().is_some_and(|l| l.contains("//")) && {
        // Only when the comment is really a comment (not inside a string).
        let line = out.rsplit('\n').next().unwrap_or("");
        let before = &line[..line.find("//").unwrap_or(0)];
        before.matches('"').count().is_multiple_of(2)
    }
}

fn indent(depth: usize, continuation: bool) -> String {
    " ".repeat(4 * (depth + usize::from(continuation)))
}

struct Atom {
    start: usize,
    end: usize,
    kind: AtomKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AtomKind {
    Token(Class),
    Verbatim,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Open(char),
    Close(char),
    Comma,
    Colon,
    Dot,
    Hash,
    Less,
    Greater,
    Op,
    Word,
    Int,
    Str,
    Other,
}

fn class(t: &Token) -> Class {
    match t {
        Token::Ctrl(c @ ('(' | '[' | '{')) => Class::Open(*c),
        Token::Ctrl(c @ (')' | ']' | '}')) => Class::Close(*c),
        Token::Ctrl(',') => Class::Comma,
        Token::Ctrl(':') => Class::Colon,
        Token::Ctrl('.') => Class::Dot,
        Token::Ctrl('<') => Class::Less,
        Token::Ctrl('>') => Class::Greater,
        Token::Ctrl(_) => Class::Other,
        Token::Hash => Class::Hash,
        Token::Op(_) => Class::Op,
        Token::Ident(_) | Token::Ssa(_) => Class::Word,
        Token::Int(_) | Token::Number(_) => Class::Int,
        Token::Str(_) => Class::Str,
    }
}

fn class_at(atoms: &[Atom], i: usize) -> Option<Class> {
    match atoms.get(i)?.kind {
        AtomKind::Token(c) => Some(c),
        AtomKind::Verbatim => None,
    }
}

/// `{` right after `<` (Triton's `<{`) or after `attributes` (MLIR).
fn is_attribute_brace(atoms: &[Atom], i: usize, src: &str) -> bool {
    i > 0
        && match class_at(atoms, i - 1) {
            Some(Class::Less) => true,
            Some(Class::Word) => &src[atoms[i - 1].start..atoms[i - 1].end] == "attributes",
            _ => false,
        }
}

/// Whether one space goes between atoms `i - 1` and `i` on a line.
fn space_between(atoms: &[Atom], i: usize, src: &str, stack: &[(char, bool)]) -> bool {
    let prev = class_at(atoms, i - 1);
    let next = class_at(atoms, i);
    let text = |k: usize| &src[atoms[k].start..atoms[k].end];
    match (prev, next) {
        (_, Some(Class::Comma)) => false,
        (Some(Class::Comma), _) => true,
        (Some(Class::Hash | Class::Dot), _) | (_, Some(Class::Dot)) => false,
        // Triton's `blocked<{` and `}>`.
        (_, Some(Class::Less)) if class_at(atoms, i + 1) == Some(Class::Open('{')) => false,
        (Some(Class::Less), Some(Class::Open('{'))) => false,
        (Some(Class::Close('}')), Some(Class::Greater)) => false,
        (Some(Class::Open(_)), _) => stack.last().is_some_and(|&(_, spaced)| spaced),
        (_, Some(Class::Close(_))) => stack.last().is_some_and(|&(_, spaced)| spaced),
        // Calls and applications: `f(x)`, `blk(register = 1)`.
        (Some(Class::Word | Class::Close(_)), Some(Class::Open('('))) => {
            prev == Some(Class::Word)
                && matches!(
                    text(i - 1),
                    "check" | "layout" | "let" | "not" | "and" | "or" | "in"
                )
        }
        (_, Some(Class::Colon)) => {
            // MLIR's `4 : i32`.
            prev == Some(Class::Int)
                && class_at(atoms, i + 1) == Some(Class::Word)
                && text(i + 1).starts_with(['i', 'f', 'u', 's'])
                && text(i + 1)[1..].chars().all(|c| c.is_ascii_digit())
                && text(i + 1).len() > 1
        }
        // Unary minus: `-1` after an operator, an opener, `=` or `,`.
        (Some(Class::Op), _) if text(i - 1) == "-" => {
            i >= 2
                && !matches!(
                    class_at(atoms, i - 2),
                    Some(
                        Class::Op
                            | Class::Open(_)
                            | Class::Comma
                            | Class::Colon
                            | Class::Other
                            | Class::Less
                            | Class::Greater
                    )
                )
        }
        _ => true,
    }
}

fn item_verbatim(src: &str, item: &Item, out: &mut Vec<Span>) {
    // A line pasted from a TTGIR dump stays as it was pasted.
    if is_pasted_operation(item) {
        out.push(item.span);
        return;
    }
    // The `loc(...)` after a pasted item, and a module's `{`.
    let end = item_end_without_trailer(item);
    if end < item.span.end {
        let start =
            end + src[end..item.span.end].len() - src[end..item.span.end].trim_start().len();
        out.push(Span::new(start, item.span.end));
    }
    match &item.kind {
        ItemKind::Alias { value, .. }
        | ItemKind::Layout { value, .. }
        | ItemKind::Let { value, .. } => expr_verbatim(src, value, out),
        ItemKind::Check { expr } => expr_verbatim(src, expr, out),
        ItemKind::Convert {
            operation,
            src: from,
            dst: to,
            ..
        } => {
            out.extend(*operation);
            expr_verbatim(src, from, out);
            expr_verbatim(src, to, out);
        }
        ItemKind::Solve { fields, .. } | ItemKind::Target { fields, .. } => fields
            .iter()
            .for_each(|f| expr_verbatim(src, &f.value, out)),
        ItemKind::Module { .. }
        | ItemKind::Error
        | ItemKind::MemoryOp { .. }
        | ItemKind::Operation { .. } => {}
    }
}

/// An MLIR operation line pasted from a dump (`%41 = ttg.convert_layout
/// ...`, `tt.return`).
fn is_pasted_operation(item: &Item) -> bool {
    match &item.kind {
        ItemKind::Convert { name, .. } => name.name.starts_with('%'),
        ItemKind::MemoryOp { .. } | ItemKind::Operation { .. } => true,
        _ => false,
    }
}

/// Where an item's own text ends, before its `loc(...)`: the end of its
/// last expression, or of its attribute list.
fn item_end_without_trailer(item: &Item) -> usize {
    match &item.kind {
        ItemKind::Alias { value, .. }
        | ItemKind::Layout { value, .. }
        | ItemKind::Let { value, .. } => value.span.end,
        ItemKind::Check { expr } => expr.span.end,
        ItemKind::Convert { dst, .. } => dst.span.end,
        ItemKind::Solve { .. } | ItemKind::Target { .. } => item.span.end,
        ItemKind::MemoryOp { to, .. } => to.span.end,
        ItemKind::Module { body, .. } => body.map_or(item.span.end, |b| b.start),
        _ => item.span.end,
    }
}

fn expr_verbatim(src: &str, e: &Expr, out: &mut Vec<Span>) {
    match &e.kind {
        ExprKind::Cute(_)
        | ExprKind::Xla(_)
        | ExprKind::Tiler(_)
        | ExprKind::Tensor(_)
        | ExprKind::MemDesc(_)
        | ExprKind::Location(_) => out.push(e.span),
        // Only `#ttg.KIND<{...}>` is respaced; the other printed forms
        // (`<[32:+4] {...}>`, `<{...}, alignment = 16>`, `<key = v>`) stay as pasted.
        ExprKind::Attribute(a) => {
            let text = &src[e.span.start..e.span.end];
            let dictionary_only =
                text.contains("<{") && text.ends_with("}>") && a.padding.is_empty();
            if !dictionary_only || text.matches("}>").count() != text.matches("<{").count() {
                out.push(e.span);
            }
        }
        ExprKind::Tuple(args) => args.iter().for_each(|a| expr_verbatim(src, &a.value, out)),
        ExprKind::List(items) => items.iter().for_each(|x| expr_verbatim(src, x, out)),
        ExprKind::Call { callee, args } => {
            expr_verbatim(src, callee, out);
            args.iter().for_each(|a| expr_verbatim(src, &a.value, out));
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_verbatim(src, lhs, out);
            expr_verbatim(src, rhs, out);
        }
        ExprKind::Neg(x) | ExprKind::Not(x) => expr_verbatim(src, x, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::format;

    #[track_caller]
    fn fmt(src: &str) -> String {
        let once = format(src).expect("formats");
        let twice = format(&once).expect("formats again");
        assert_eq!(once, twice, "not idempotent");
        once
    }

    #[test]
    fn triton_and_mlir_spacing() {
        assert_eq!(
            fmt(
                "#b=#ttg.blocked<{ sizePerThread=[1,4] , threadsPerWarp = [2,16],warpsPerCTA=[4,1],order=[1,0]}>\nmodule attributes {\"ttg.num-warps\" = 4:i32}"
            ),
            "#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>\nmodule attributes {\"ttg.num-warps\" = 4 : i32}\n"
        );
    }

    #[test]
    fn notations_are_verbatim_and_comments_stay() {
        let src = "// header\nlayout  t=cute ((4,2),4):((8,4),1)   // tv\n\n\n\nlayout x = xla f32[3,5]{1,0:T(2,2)}\ncheck   t( 5 )==12\nlayout s = composition( cute Sw<3,4,3> o (8,64):(64,1) , <3:3, (2,4):(1,8)> )\n";
        assert_eq!(
            fmt(src),
            "// header\nlayout t = cute ((4,2),4):((8,4),1) // tv\n\nlayout x = xla f32[3,5]{1,0:T(2,2)}\ncheck t(5) == 12\nlayout s = composition(cute Sw<3,4,3> o (8,64):(64,1), <3:3, (2,4):(1,8)>)\n"
        );
    }

    #[test]
    fn blocks_are_indented() {
        let src = "solve smem {\nkind = swizzle // k\n  write = tensor<128x128xf16, #blocked>\n}\nlayout l = linear {register: [[0, 1]],\n lane: [[1,0]]} -> [dim0: 2, dim1: 2]\nlet n = -1 - -2\n";
        assert_eq!(
            fmt(src),
            "solve smem {\n    kind = swizzle // k\n    write = tensor<128x128xf16, #blocked>\n}\nlayout l = linear { register: [[0, 1]],\n    lane: [[1, 0]] } -> [dim0: 2, dim1: 2]\nlet n = -1 - -2\n"
        );
    }

    #[test]
    fn conversions_keep_the_pasted_ttgir_operation() {
        let src = "convert  e=ttg.convert_layout %41 : tensor<8xf16, #a>->tensor<8xf16, #b>\nconvert t = tensor<8xf16, #a>  ->  tensor<8xf16, #b>\n";
        assert_eq!(
            fmt(src),
            "convert e = ttg.convert_layout %41 : tensor<8xf16, #a> -> tensor<8xf16, #b>\nconvert t = tensor<8xf16, #a> -> tensor<8xf16, #b>\n"
        );
    }

    #[test]
    fn broken_files_are_left_alone() {
        assert!(format("layout = = (").is_err());
    }
}
