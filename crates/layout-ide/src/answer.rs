//! A solve block's answer written into the block: `layoutc solve --write`
//! and the editor's "Record the solver's answer" code action make the same
//! edit.

use layout_db::value::{SolveKind, SolveOutcome};
use layout_solve::Family;

use crate::{Span, TextEdit};

/// The answer as it is written back: the family's own notation, or for
/// `linear` the shortest exact one (Triton's, CuTe's, NVMMA's, then
/// `#ttg.shared_linear`); a tiling as its XLA shape.
pub fn answer_text(s: &SolveOutcome) -> Option<String> {
    match &s.kind {
        SolveKind::Swizzle(w) => {
            w.answer.as_ref()?;
            let preferred = match w.family {
                Family::Linear => ["triton", "cute", "nvmma", "linear"],
                f => [f.name(); 4],
            };
            preferred.iter().find_map(|key| {
                w.notations.iter().find(|(k, _)| k == key).map(|(k, v)| {
                    if k == "cute" {
                        format!("cute {v}")
                    } else {
                        v.clone()
                    }
                })
            })
        }
        SolveKind::Tiling(t) => t.answer.as_ref().map(|x| format!("xla {x}")),
    }
}

/// The edit that records `answer` in the solve block at `block` (a file
/// span from `solve` to its `}`): an earlier `answer = ...` line is
/// replaced, else a line is added before the `}`, indented as the block's
/// other keys. `None` when the block already says so, or has no `}`.
pub fn record_edit(text: &str, block: Span, answer: &str) -> Option<TextEdit> {
    let body = text.get(block.start..block.end)?;
    let indent = body
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty() && !l.trim().starts_with('}'))
        .map_or("    ", |l| &l[..l.len() - l.trim_start().len()]);
    let line = format!("{indent}answer = {answer}");
    let mut at = block.start;
    for l in body.split_inclusive('\n') {
        let content = l.trim_end_matches('\n');
        if content.trim_start().starts_with("answer") && content.contains('=') {
            if content == line {
                return None;
            }
            return Some(TextEdit {
                span: Span::new(at, at + content.len()),
                new_text: line,
            });
        }
        at += l.len();
    }
    let close = body.rfind('}')?;
    let line_start = body[..close].rfind('\n').map_or(0, |i| i + 1);
    let insert_at = block.start + line_start;
    Some(TextEdit {
        span: Span::new(insert_at, insert_at),
        new_text: format!("{line}\n"),
    })
}
