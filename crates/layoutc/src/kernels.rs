//! The kernel summary of a dump in `show`'s JSON (CONTRACT §4b) and text.

use layout_db::KernelSummary;
use layout_db::kernel::BufferKind;
use serde_json::{Value as Json, json};

use layout_ide::LineIndex;

/// One `kernels` entry.
pub fn kernel_json(text: &str, index: &LineIndex, k: &KernelSummary) -> Json {
    let line = |offset: usize| index.line_col_chars(text, offset).0;
    let ops: Vec<Json> = k
        .ops
        .iter()
        .map(|o| {
            let mut j = json!({
                "line": line(o.span.start),
                "op": o.op,
                "kind": kind_name(o.kind),
                "shared_bytes": o.shared_bytes,
                "offset": o.offset,
                "instructions": o.instructions.iter().map(|i| json!({
                    "mnemonic": i.mnemonic,
                    "count": i.count,
                    "wavefronts": i.wavefronts,
                    "conflicts": i.conflicts,
                })).collect::<Vec<_>>(),
            });
            if let Some((offset, size)) = o.recorded {
                j["triton_offset"] = json!(offset);
                if let Some(size) = size {
                    j["triton_size"] = json!(size);
                }
            }
            j
        })
        .collect();
    let mut j = json!({
        "name": k.name,
        "line": line(k.span.start),
        "target": k.target,
        "num_warps": k.num_warps,
        "shared_bytes": k.shared_bytes,
        "ops": ops,
    });
    if let Some(recorded) = k.recorded_shared_bytes {
        j["triton_shared_bytes"] = json!(recorded);
    }
    if let Some(limit) = k.limit {
        j["shared_limit"] = json!(limit);
    }
    if !k.complete {
        j["complete"] = json!(false);
    }
    if !k.tensor_memory.is_empty() {
        j["tensor_memory_columns"] = json!(k.tensor_memory_columns());
        j["tensor_memory"] = k
            .tensor_memory
            .iter()
            .map(|t| {
                let mut e = json!({"line": line(t.span.start), "columns": t.columns});
                if let Some(c) = t.recorded_column {
                    e["triton_column"] = json!(c);
                }
                e
            })
            .collect();
    }
    if !k.unmeasured.is_empty() {
        j["unmeasured"] = k
            .unmeasured
            .iter()
            .map(|(span, op)| json!({"line": line(span.start), "op": op}))
            .collect();
    }
    j
}

fn kind_name(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::Explicit => "buffer",
        BufferKind::Scratch => "scratch",
    }
}

/// The summary as a table: one line per operation.
pub fn kernel_text(text: &str, index: &LineIndex, k: &KernelSummary) -> String {
    let line = |offset: usize| index.line_col_chars(text, offset).0;
    let mut out = format!(
        "kernel @{} (line {}{}{}): {} bytes of shared memory",
        k.name,
        line(k.span.start),
        k.target
            .as_deref()
            .map(|t| format!(", {t}"))
            .unwrap_or_default(),
        k.num_warps
            .map(|w| format!(", {w} warps"))
            .unwrap_or_default(),
        k.shared_bytes
    );
    if let Some(limit) = k.limit {
        out += &format!(" of {limit}");
    }
    if let Some(recorded) = k.recorded_shared_bytes {
        out += &format!(" (Triton's allocation: {recorded})");
    }
    out += "\n";
    if !k.complete {
        out += "  (the dump ends inside this function: what follows the cut is not counted)\n";
    }
    for o in &k.ops {
        let placed = if o.shared_bytes > 0 {
            format!(
                "{:>7} B at {:<6} {:<7}",
                o.shared_bytes,
                o.offset,
                kind_name(o.kind)
            )
        } else {
            format!("{:>7}   {:<6} {:<7}", "-", "", "")
        };
        let instructions: Vec<String> = o
            .instructions
            .iter()
            .map(|i| {
                format!(
                    "{} x {} ({} wavefronts{})",
                    i.count,
                    i.mnemonic,
                    i.wavefronts,
                    if i.conflicts > 0 {
                        format!(", {} extra per wavefront", i.conflicts)
                    } else {
                        String::new()
                    }
                )
            })
            .collect();
        out += &format!(
            "  line {:<5} {:<36} {placed} {}\n",
            line(o.span.start),
            o.op,
            instructions.join("; ")
        );
    }
    for t in &k.tensor_memory {
        out += &format!(
            "  line {:<5} {:<36} {} columns of tensor memory\n",
            line(t.span.start),
            "ttng.tmem_alloc",
            t.columns
        );
    }
    for (span, op) in &k.unmeasured {
        out += &format!(
            "  line {:<5} {op}: uses shared memory layoutc cannot size (its encoding is not readable); the total is a lower bound\n",
            line(span.start)
        );
    }
    out
}
