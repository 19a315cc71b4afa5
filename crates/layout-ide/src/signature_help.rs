//! Signature help: inside the arguments of a builtin call, its parameters
//! with their types and docs and the one under the cursor marked, from the
//! checker's own table of builtins (so it cannot drift from what
//! evaluation accepts).

use layout_db::builtins::Builtin;
use layout_db::{Resolution, item_at, resolve};

use crate::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `in_size(a: linear, [dim: dim]) -> int`; optional parameters in
    /// brackets.
    pub label: String,
    /// Each parameter's byte range within `label`.
    pub params: Vec<(usize, usize)>,
    /// Each parameter's doc.
    pub param_docs: Vec<&'static str>,
    pub active: Option<usize>,
    pub doc: &'static str,
}

/// `name(p1: type, [p2: type]) -> type`: optional parameters in brackets.
pub fn signature_label(b: &Builtin) -> String {
    signature_parts(b).0
}

fn signature_parts(b: &Builtin) -> (String, Vec<(usize, usize)>) {
    let mut label = format!("{}(", b.name);
    let mut ranges = Vec::new();
    for (i, p) in b.params().iter().enumerate() {
        if i > 0 {
            label += ", ";
        }
        let text = if p.required {
            format!("{}: {}", p.name, p.ty.name())
        } else {
            format!("[{}: {}]", p.name, p.ty.name())
        };
        ranges.push((label.len(), label.len() + text.len()));
        label += &text;
    }
    label += &format!(") -> {}", b.result.name());
    (label, ranges)
}

/// Works on the text, not the tree: while a call is being typed it
/// rarely parses.
pub fn signature_help(db: &dyn Db, file: SourceFile, offset: usize) -> Option<SignatureHelp> {
    let at = item_at(db, file, offset)?;
    let text = at.item.text(db);
    let before = &text[..crate::char_floor(text, at.relative(offset))];
    let (name, args) = open_call(before)?;
    let Resolution::Builtin(b) = resolve(db, file, name) else {
        return None;
    };
    let params = b.params();
    // The argument being written: by name when it starts with `key =`,
    // else by position.
    let current = current_argument(args).trim_start();
    let named = current
        .split_once('=')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let active = match named {
        Some(k) => params.iter().position(|p| p.name == k),
        // Triton's keys are given by name only.
        None if b.by_name_only() => None,
        None => Some(commas_at_top(args)),
    };
    let (label, ranges) = signature_parts(b);
    Some(SignatureHelp {
        label,
        params: ranges,
        param_docs: params.iter().map(|p| p.doc).collect(),
        active: active.filter(|&i| i < params.len()),
        doc: b.doc,
    })
}

/// The innermost unclosed `name(` of `before`, and the argument text after
/// it.
fn open_call(before: &str) -> Option<(&str, &str)> {
    let bytes = before.as_bytes();
    let mut depth = 0i32;
    for i in (0..bytes.len()).rev() {
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
            b'(' => {
                let name_start = crate::word_start(before, i);
                let name = &before[name_start..i];
                if !name.is_empty() {
                    return Some((name, &before[i + 1..]));
                }
                return None;
            }
            // An open list or dictionary inside an argument
            // (`to_linear(t, [64, |`): the call is further out.
            b'[' | b'{' => {}
            _ => {}
        }
    }
    None
}

/// The argument after the last comma outside brackets: the one being
/// written, open lists included (`order = [1, 0`).
fn current_argument(args: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &args[start..]
}

/// Commas outside brackets.
fn commas_at_top(args: &str) -> usize {
    let mut depth = 0i32;
    let mut n = 0;
    for c in args.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::fixture;

    fn check(text: &str, expect: Expect) {
        let (db, file, offset) = fixture::with_cursor(text);
        let actual = match signature_help(&db, file, offset) {
            Some(h) => {
                let active = h.active.map_or("none", |i| {
                    let (s, e) = h.params[i];
                    &h.label[s..e]
                });
                let active_doc = h.active.map_or("", |i| h.param_docs[i]);
                format!("{} (active: {active}: {active_doc})\n{}", h.label, h.doc)
            }
            None => "none".into(),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn the_parameter_under_the_cursor_is_active() {
        check(
            "layout x = strided_1d(8, $0, \"in\", \"out\")\n",
            expect![[r#"
                strided_1d(size: int, stride: int, in: dim, out: dim) -> linear (active: stride: int: the step between outputs, a power of two)
                Triton's strided1D: x -> stride * x"#]],
        );
    }

    #[test]
    fn nested_calls_help_with_the_innermost() {
        check(
            "layout x = compose(invert($0), identity_1d(4, \"a\", \"b\"))\n",
            expect![[r#"
                invert(a: linear) -> linear (active: a: linear: an invertible layout)
                the inverse of an invertible layout"#]],
        );
    }

    #[test]
    fn named_arguments_select_their_parameter_also_inside_a_list() {
        let (db, file, offset) =
            fixture::with_cursor("layout x = blocked(sizePerThread = [1, 1], order = [1, 0$0])\n");
        let h = signature_help(&db, file, offset).unwrap();
        let (s, e) = h.params[h.active.unwrap()];
        assert!(h.label.starts_with("blocked("), "{}", h.label);
        assert!(h.label[s..e].starts_with("order"), "{}", &h.label[s..e]);
    }

    #[test]
    fn inside_a_list_the_call_around_it_helps() {
        check(
            "layout x = strided_1d(8, 2, \"in\", \"out\")\nlet t = in_size(x, [1, $0\n",
            expect![[r#"
                in_size(a: linear, [dim: dim]) -> int (active: [dim: dim]: the in-dim; all of them when absent)
                the size of an in-dim, or of all in-dims together"#]],
        );
    }
}
