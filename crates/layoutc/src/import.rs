//! `layoutc import DUMP [-o OUT.lay]`: a Triton TTGIR dump as a `.lay`
//! file. The module line and every encoding alias are kept as they are,
//! every distinct tensor type becomes a named layout, and every
//! `convert_layout` and `local_alloc` / `local_store` / `local_load` line is
//! kept with its analysis in a comment that points at the dump's line and
//! the kernel's Python line.

use std::path::Path;

use layout_db::{Database, SourceFile, Value};
use layout_syntax::lexer::Token;
use layout_syntax::{ItemKind, Location};

use crate::Usage;
use crate::files::{self, LineIndex};

pub fn import(dump: &str, output: Option<&str>) -> Result<u8, Usage> {
    let files::Source { text, not_utf8 } = files::read(Path::new(dump))?;
    if let Some(d) = not_utf8 {
        return Err(Usage(format!("{dump}: {}", d.message)));
    }
    let lay = translate(dump, &text);
    match output {
        Some(out) => crate::fmt_cmd::write_atomically(Path::new(out), &lay)
            .map_err(|e| Usage(format!("cannot write {out}: {e}")))?,
        None => crate::out!("{lay}"),
    }
    Ok(0)
}

/// The `.lay` text of a dump.
pub fn translate(path: &str, text: &str) -> String {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, path.to_string(), text.to_string());
    let values = layout_db::item_values(&db, file);
    let value_at = |start: usize| {
        values
            .iter()
            .find(|(span, _)| span.start == start)
            .and_then(|(_, v)| v.as_ref())
    };
    let index = LineIndex::new(text);
    let line = |offset: usize| index.line_col(text, offset).0;
    let where_from = |location: Option<&Location>| {
        location
            .and_then(|l| layout_db::source_position(&db, file, l))
            .map_or(String::new(), |p| format!(", {p}"))
    };

    let parsed = layout_syntax::parse(text);
    let mut header = format!("// Imported from {path} by `layoutc import`.\n");
    let mut aliases = String::new();
    let mut operations = String::new();
    for item in &parsed.items {
        let source = &text[item.span.start..item.span.end];
        match &item.kind {
            ItemKind::Module { body, .. } => {
                let end = body.map_or(item.span.end, |b| b.start);
                header += text[item.span.start..end].trim_end();
                header.push('\n');
            }
            // Locations are resolved into the comments below.
            ItemKind::Alias { value, .. }
                if !matches!(value.kind, layout_syntax::ExprKind::Location(_)) =>
            {
                aliases += source.trim_end();
                aliases.push('\n');
            }
            ItemKind::Convert { dst: last, .. } | ItemKind::MemoryOp { to: last, .. } => {
                let analysis = match value_at(item.span.start) {
                    Some(v @ (Value::Conversion(_) | Value::Access(_))) => v.to_string(),
                    Some(v) => v.type_name().to_string(),
                    None => "has errors (see `layoutc check` on the dump)".to_string(),
                };
                operations += &format!(
                    "// dump line {}{}: {analysis}\n{}\n",
                    line(item.span.start),
                    where_from(item.location.as_ref()),
                    text[item.span.start..last.span.end].trim()
                );
            }
            _ => {}
        }
    }
    let mut tensors = String::new();
    for (k, (ty, offset)) in tensor_types(text).into_iter().enumerate() {
        tensors += &format!("layout t{k} = {ty} // dump line {}\n", line(offset));
    }
    format!(
        "{header}\n{aliases}\n// The tensor types of the dump.\n{tensors}\n// Conversions and shared-memory accesses, with their analysis.\n{operations}"
    )
}

/// Every distinct `tensor<...>` type with an encoding, in order of first
/// appearance, with its offset.
fn tensor_types(text: &str) -> Vec<(String, usize)> {
    let (tokens, _) = layout_syntax::lexer::lex(text);
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, (tok, span)) in tokens.iter().enumerate() {
        if *tok != Token::Ident("tensor")
            || tokens.get(i + 1).map(|t| &t.0) != Some(&Token::Ctrl('<'))
        {
            continue;
        }
        let mut depth = 0usize;
        let mut end = None;
        for (t, s) in &tokens[i + 1..] {
            match t {
                Token::Ctrl('<') => depth += 1,
                Token::Ctrl('>') => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(s.end);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let ty = &text[span.start..end];
        if ty.contains(", #") && !out.iter().any(|(t, _)| t == ty) {
            out.push((ty.to_string(), span.start));
        }
    }
    out
}
