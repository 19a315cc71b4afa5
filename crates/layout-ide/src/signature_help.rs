//! Signature help: inside the arguments of a builtin call, its parameters
//! with the one under the cursor marked, from the checker's own signature
//! table (so it cannot drift from what evaluation accepts).

use layout_db::builtins::Signature;
use layout_db::{Resolution, item_at, resolve};

use crate::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `compose(a, b)`; optional parameters in brackets.
    pub label: String,
    /// Each parameter's byte range within `label`.
    pub params: Vec<(usize, usize)>,
    pub active: Option<usize>,
    pub doc: &'static str,
}

/// `name(p1, p2, [p3])`: parameters after the required ones are optional.
pub fn signature_label(sig: &Signature) -> String {
    signature_parts(sig).0
}

fn signature_parts(sig: &Signature) -> (String, Vec<(usize, usize)>) {
    let mut label = format!("{}(", sig.name);
    let mut ranges = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        if i > 0 {
            label += ", ";
        }
        let text = if i < sig.required {
            p.to_string()
        } else {
            format!("[{p}]")
        };
        ranges.push((label.len(), label.len() + text.len()));
        label += &text;
    }
    label += ")";
    (label, ranges)
}

/// Works on the text, not the tree: while a call is being typed it
/// rarely parses.
pub fn signature_help(db: &dyn Db, file: SourceFile, offset: usize) -> Option<SignatureHelp> {
    let at = item_at(db, file, offset)?;
    let text = at.item.text(db);
    let before = &text[..crate::char_floor(text, at.relative(offset))];
    let (name, args) = open_call(before)?;
    let Resolution::Builtin(sig) = resolve(db, file, name) else {
        return None;
    };
    // The argument being written: by name when it starts with `key =`,
    // else by position.
    let current = args.rsplit(',').next().unwrap_or("").trim_start();
    let named = current
        .split_once('=')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let active = match named {
        Some(k) => sig.params.iter().position(|p| *p == k),
        None => Some(commas_at_top(args)),
    };
    let (label, params) = signature_parts(sig);
    Some(SignatureHelp {
        label,
        params,
        active: active.filter(|&i| i < sig.params.len()),
        doc: sig.doc,
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
            b'[' | b'{' => return None,
            _ => {}
        }
    }
    None
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
                format!("{} (active: {active})\n{}", h.label, h.doc)
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
                strided_1d(size, stride, in, out) (active: stride)
                Triton's strided1D: x -> stride * x"#]],
        );
    }

    #[test]
    fn nested_calls_help_with_the_innermost() {
        check(
            "layout x = compose(invert($0), identity_1d(4, \"a\", \"b\"))\n",
            expect![[r#"
                invert(a) (active: a)
                the inverse of an invertible layout"#]],
        );
    }

    #[test]
    fn named_arguments_select_their_parameter() {
        check(
            "layout x = blocked(order = [1, 0$0], sizePerThread = [1, 1])\n",
            expect!["none"],
        );
    }
}
