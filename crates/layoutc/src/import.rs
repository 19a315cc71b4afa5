//! `layoutc import DUMP [-o OUT.lay]`: a Triton TTGIR dump as a `.lay`
//! file. The module line and every encoding alias are kept as they are,
//! every distinct tensor type becomes a named layout, and every
//! `convert_layout` and `local_alloc` / `local_store` / `local_load` line is
//! kept with its analysis in a comment that points at the dump's line and
//! the kernel's Python line. An HLO module (`*.hlo`, or the `*.txt` that
//! `XLA_FLAGS=--xla_dump_to` writes) becomes its array shapes with layouts,
//! each with its padding.

use std::path::Path;

use layout_ide::checked::Value;
use layout_ide::syntax::Token;
use layout_ide::syntax::{ItemKind, Location};

use crate::Usage;
use crate::files;
use layout_ide::LineIndex;

pub fn import(dump: &str, output: Option<&str>) -> Result<u8, Usage> {
    let files::Source { text, not_utf8 } = files::read(Path::new(dump))?;
    if let Some(d) = not_utf8 {
        return Err(Usage(format!("{dump}: {}", d.message)));
    }
    let hlo = dump.ends_with(".hlo") || dump.ends_with(".txt");
    let lay = if hlo {
        translate_hlo(dump, &text)
    } else {
        translate(dump, &text)
    };
    match output {
        Some(out) => crate::fmt_cmd::write_atomically(Path::new(out), &lay)
            .map_err(|e| Usage(format!("cannot write {out}: {e}")))?,
        None => crate::out!("{lay}"),
    }
    Ok(0)
}

/// The `.lay` text of a dump.
pub fn translate(path: &str, text: &str) -> String {
    let analysis = layout_ide::Analysis::new(path.to_string(), text.to_string());
    let (db, file) = analysis.parts();
    let values = layout_ide::checked::item_values(db, file);
    let value_at = |start: usize| {
        values
            .iter()
            .find(|(span, _)| span.start == start)
            .and_then(|(_, v)| v.as_ref())
    };
    let index = LineIndex::new(text);
    let line = |offset: usize| index.line_col_chars(text, offset).0;
    let where_from = |location: Option<&Location>| {
        location
            .and_then(|l| layout_ide::checked::source_position(db, file, l))
            .map_or(String::new(), |p| format!(", {p}"))
    };

    let analysed = file.analysed_text(db);
    let parsed = layout_ide::syntax::parse(&analysed);
    let mut header = format!("// Imported from {path} by `layoutc import`.\n");
    for k in analysis.kernels() {
        header += &format!(
            "// Kernel @{} (dump line {}): {} bytes of shared memory; its buffers: {}.\n",
            k.name,
            line(k.span.start),
            k.shared_bytes,
            k.buffer_list()
        );
    }
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
                if !matches!(value.kind, layout_ide::syntax::ExprKind::Location(_)) =>
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
    let (tokens, _) = layout_ide::syntax::lex(text);
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

/// The `.lay` text of an HLO module: every distinct array shape with a
/// layout as an `xla` value, with its padding (seed 001's TPU tiles).
pub fn translate_hlo(path: &str, text: &str) -> String {
    use layout_ide::algebra::XlaShape;
    let index = LineIndex::new(text);
    let mut out = format!(
        "// Imported from {path} by `layoutc import`: every array shape with a layout,\n// with the elements its tiles pad it to.\n"
    );
    let mut seen: Vec<String> = Vec::new();
    for (start, shape) in hlo_shapes(text) {
        if seen.contains(&shape) {
            continue;
        }
        let Ok(x) = XlaShape::parse(&shape) else {
            continue; // a tuple or a token, not an array
        };
        let (logical, padded) = (x.logical_elements(), x.padded_elements());
        let extra = if logical > 0 {
            format!(
                " (+{:.1}%)",
                100.0 * (padded - logical) as f64 / logical as f64
            )
        } else {
            String::new()
        };
        out += &format!(
            "layout a{} = xla {shape} // line {}: {logical} elements, {padded} with padding{extra}, {} bytes\n",
            seen.len(),
            index.line_col_chars(text, start).0,
            x.padded_bytes()
        );
        seen.push(shape);
    }
    out
}

/// `TYPE[dims]{layout}` in HLO text, with their offsets: an element type
/// (letters and digits) right before `[`, and a balanced `{...}` right after
/// the `]`.
fn hlo_shapes(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(open) = text[i..].find('[').map(|k| i + k) {
        i = open + 1;
        let start = text[..open]
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |k| k + 1);
        let ty = &text[start..open];
        if ty.is_empty() || !ty.starts_with(|c: char| c.is_ascii_lowercase()) {
            continue;
        }
        let Some(close) = text[open..].find(']').map(|k| open + k) else {
            break;
        };
        if bytes.get(close + 1) != Some(&b'{') {
            continue;
        }
        let mut depth = 0usize;
        let mut end = None;
        for (k, c) in text[close + 1..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(close + 1 + k + 1);
                        break;
                    }
                }
                '\n' => break,
                _ => {}
            }
        }
        if let Some(end) = end {
            out.push((start, text[start..end].to_string()));
            i = end;
        }
    }
    out
}
