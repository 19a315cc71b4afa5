//! Name resolution and the spanned reference index: which names an item
//! uses and where, and what each name stands for. Evaluation, navigation
//! (definition, references, rename) and semantic tokens all ask
//! [`resolve`], so they cannot disagree.
//!
//! Two namespaces: plain names (`acc`, `blocked`) and Triton aliases
//! (`#blocked`, stored with their `#`). A declared plain name shadows a
//! builtin function of the same name.

use layout_syntax::lexer::Token;
use layout_syntax::{
    AttrValue, AttrValueKind, Expr, ExprKind, Item, ItemKind, Span, TritonAttribute,
};

use crate::builtins::{self, Builtin};
use crate::{DeclName, SourceFile, SourceItem, lookup, parse_item};

/// How a name is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// A plain name used as a value (`acc`).
    Name,
    /// A plain name in call position (`compose(..)`, `acc(register = 1)`):
    /// a builtin unless the file declares the name.
    Call,
    /// A Triton alias (`#mma`, `parent = #mma`); `name` keeps the `#`.
    Alias,
}

/// One use of a name, with the span of its text relative to its item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameRef {
    /// As looked up: `acc`, or `#mma` for an alias.
    pub name: String,
    pub span: Span,
    pub kind: RefKind,
}

/// Every use of a name in an item, in source order.
#[salsa::tracked(returns(ref))]
pub fn name_refs(db: &dyn salsa::Database, key: SourceItem) -> Vec<NameRef> {
    let mut out = Vec::new();
    if let Some(item) = &parse_item(db, key).item {
        collect(item, &mut out);
        if item.is_pasted_mlir() {
            pasted_aliases(key.text(db), item, &mut out);
        }
    }
    out
}

/// The `#alias` uses of a pasted MLIR line that no expression holds: an
/// operation that is not evaluated (`tt.splat ... #blocked>`), an
/// operation's `loc(#loc3)`, a module's attributes. They are found on the
/// tokens: `#name` not followed by `.` (which would be a dialect attribute,
/// `#ttg.shared_memory`), and not the item's own declared name.
fn pasted_aliases(text: &str, item: &Item, out: &mut Vec<NameRef>) {
    let (tokens, _) = layout_syntax::lexer::lex(text);
    let declared = item.name().map(|n| n.span);
    let known: std::collections::HashSet<Span> = out.iter().map(|r| r.span).collect();
    for window in tokens.windows(2) {
        let [(Token::Hash, hash), (Token::Ident(name), at)] = window else {
            continue;
        };
        let span = Span::new(hash.start, at.end);
        let next = tokens
            .iter()
            .find(|(_, s)| s.start >= at.end)
            .map(|(t, _)| t);
        if hash.end != at.start
            || next == Some(&Token::Ctrl('.'))
            || known.contains(&span)
            || declared.is_some_and(|d| span.start < d.end && d.start < span.end)
        {
            continue;
        }
        out.push(NameRef {
            name: format!("#{name}"),
            span,
            kind: RefKind::Alias,
        });
    }
    out.sort_by_key(|r| r.span.start);
}

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// A declaration of the file (the first, if there are several).
    Declared(SourceItem),
    /// A function of the language.
    Builtin(&'static Builtin),
    Unresolved,
}

/// Resolves `name` (`#x` for an alias) in `file`: declarations first, then
/// builtins (aliases are never builtins).
pub fn resolve(db: &dyn salsa::Database, file: SourceFile, name: &str) -> Resolution {
    if let Some(item) = lookup(db, DeclName::new(db, file, name.to_string())) {
        return Resolution::Declared(*item);
    }
    if name.starts_with('#') {
        return Resolution::Unresolved;
    }
    builtins::builtin(name).map_or(Resolution::Unresolved, Resolution::Builtin)
}

/// Keys of `solve` and `target` blocks whose values are words, not names.
pub const WORD_KEYS: &[&str] = &["kind", "family", "preset", "objective", "instruction"];

fn collect(item: &Item, out: &mut Vec<NameRef>) {
    for_each_expr(item, &mut |e, in_callee| match &e.kind {
        ExprKind::Name(n) => out.push(NameRef {
            name: n.clone(),
            span: e.span,
            kind: if in_callee {
                RefKind::Call
            } else {
                RefKind::Name
            },
        }),
        ExprKind::AliasRef(n) => out.push(NameRef {
            name: format!("#{n}"),
            span: e.span,
            kind: RefKind::Alias,
        }),
        ExprKind::Attribute(a) => attribute_aliases(a, out),
        _ => {}
    });
}

fn attribute_aliases(a: &TritonAttribute, out: &mut Vec<NameRef>) {
    fn value(v: &AttrValue, out: &mut Vec<NameRef>) {
        match &v.kind {
            AttrValueKind::Alias(n) => out.push(NameRef {
                name: format!("#{n}"),
                span: v.span,
                kind: RefKind::Alias,
            }),
            AttrValueKind::List(items) => items.iter().for_each(|i| value(i, out)),
            AttrValueKind::Dict(entries) => entries.iter().for_each(|e| value(&e.value, out)),
            AttrValueKind::Attribute(a) => attribute_aliases(a, out),
            _ => {}
        }
    }
    for e in &a.entries {
        value(&e.value, out);
    }
}

/// Calls `f` on every expression of an item, outermost first, with whether
/// the expression is a callee. Words of `solve`/`target` blocks
/// ([`WORD_KEYS`]) are not expressions that name anything and are skipped.
pub fn for_each_expr<'a>(item: &'a Item, f: &mut dyn FnMut(&'a Expr, bool)) {
    fn walk<'a>(e: &'a Expr, callee: bool, f: &mut dyn FnMut(&'a Expr, bool)) {
        f(e, callee);
        match &e.kind {
            ExprKind::Tuple(args) => args.iter().for_each(|a| walk(&a.value, false, f)),
            ExprKind::List(items) => items.iter().for_each(|i| walk(i, false, f)),
            ExprKind::Call { callee, args } => {
                walk(callee, true, f);
                args.iter().for_each(|a| walk(&a.value, false, f));
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                walk(lhs, false, f);
                walk(rhs, false, f);
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => walk(x, false, f),
            ExprKind::Tensor(t) => {
                if let Some(e) = &t.encoding {
                    walk(e, false, f);
                }
            }
            ExprKind::MemDesc(m) => {
                walk(&m.encoding, false, f);
                if let Some(s) = &m.memory_space {
                    walk(s, false, f);
                }
            }
            _ => {}
        }
    }
    match &item.kind {
        ItemKind::Alias { value, .. }
        | ItemKind::Layout { value, .. }
        | ItemKind::Let { value, .. } => walk(value, false, f),
        ItemKind::Check { expr } => walk(expr, false, f),
        ItemKind::Convert { src, dst, .. } => {
            walk(src, false, f);
            walk(dst, false, f);
        }
        ItemKind::Solve { fields, .. } | ItemKind::Target { fields, .. } => {
            for field in fields {
                if !WORD_KEYS.contains(&field.key.name.as_str()) {
                    walk(&field.value, false, f);
                }
            }
        }
        ItemKind::MemoryOp { from, to, .. } => {
            if let Some(from) = from {
                walk(from, false, f);
            }
            walk(to, false, f);
        }
        ItemKind::Module { .. } | ItemKind::Operation { .. } | ItemKind::Error => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Database, SourceFile};

    #[test]
    fn references_carry_spans_and_kinds() {
        let mut db = Database::default();
        let text = "#mma = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n\
                    #dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>\n\
                    layout a = compose(b, tensor<32x32xf16, #dot>)\n";
        let file = SourceFile::open(&mut db, "t.lay".into(), text.into());
        let items = file.item_list(&db);
        let refs: Vec<String> = items
            .iter()
            .flat_map(|&i| name_refs(&db, i).clone())
            .map(|r| format!("{} {:?} {}", r.name, r.kind, r.span))
            .collect();
        assert_eq!(
            refs,
            [
                "#mma Alias 40..44",
                "compose Call 11..18",
                "b Name 19..20",
                "#dot Alias 40..44"
            ]
        );
    }

    #[test]
    fn declared_names_shadow_builtins_and_aliases_have_their_own_namespace() {
        let mut db = Database::default();
        let text = "let compose = 3\n#invert = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>\n";
        let file = SourceFile::open(&mut db, "t.lay".into(), text.into());
        assert!(matches!(
            resolve(&db, file, "compose"),
            Resolution::Declared(_)
        ));
        assert!(
            matches!(resolve(&db, file, "invert"), Resolution::Builtin(s) if s.name == "invert")
        );
        assert!(matches!(
            resolve(&db, file, "#invert"),
            Resolution::Declared(_)
        ));
        assert_eq!(resolve(&db, file, "#compose"), Resolution::Unresolved);
    }
}
