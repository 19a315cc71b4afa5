//! The kernel summary of a dump in `show`'s JSON (CONTRACT §4b) and text.

use layout_ide::algebra::Direction;
use layout_ide::checked::BufferKind;
use layout_ide::checked::KernelSummary;

use crate::json_schema as schema;

use layout_ide::LineIndex;

/// One `kernels` entry.
pub fn kernel_json(text: &str, index: &LineIndex, k: &KernelSummary) -> schema::Kernel {
    let line = |offset: usize| index.line_col_chars(text, offset).0;
    let ops = k
        .ops
        .iter()
        .map(|o| schema::KernelOp {
            line: line(o.span.start),
            op: o.op.clone(),
            kind: kind_name(o.kind),
            shared_bytes: o.shared_bytes,
            offset: o.offset,
            instructions: o
                .instructions
                .iter()
                .map(|i| schema::Instruction {
                    mnemonic: i.mnemonic.clone(),
                    count: i.count,
                    wavefronts: i.wavefronts,
                    conflicts: i.conflicts,
                    one_thread: i.one_thread,
                    owning_warps: i.owning_warps,
                    warps: i.warps,
                })
                .collect(),
            triton_offset: o.recorded.map(|(offset, _)| offset),
            triton_size: o.recorded.and_then(|(_, size)| size),
            partition_offsets: (!o.partition_offsets.is_empty())
                .then(|| o.partition_offsets.clone()),
            triton_partition_offsets: (!o.recorded_partition_offsets.is_empty())
                .then(|| o.recorded_partition_offsets.clone()),
            read_with: o
                .paired_with
                .filter(|w| w.direction == Direction::Load)
                .map(|w| line(w.op.start)),
            written_with: o
                .paired_with
                .filter(|w| w.direction == Direction::Store)
                .map(|w| line(w.op.start)),
        })
        .collect();
    let has_tensor_memory = !k.tensor_memory.is_empty();
    schema::Kernel {
        name: k.name.clone(),
        line: line(k.span.start),
        target: k.target.clone(),
        num_warps: k.num_warps,
        shared_bytes: k.shared_bytes,
        ops,
        triton_shared_bytes: k.recorded_shared_bytes,
        shared_limit: k.limit,
        complete: (!k.complete).then_some(false),
        tensor_memory_columns: has_tensor_memory.then(|| k.tensor_memory_columns()),
        tensor_memory: has_tensor_memory.then(|| {
            k.tensor_memory
                .iter()
                .map(|t| schema::TensorMemory {
                    line: line(t.span.start),
                    columns: t.columns,
                    lanes: t.rows,
                    column: t.column,
                    row: t.row,
                    triton_column: t.recorded_column,
                })
                .collect()
        }),
        unmeasured: (!k.unmeasured.is_empty()).then(|| {
            k.unmeasured
                .iter()
                .map(|u| schema::Unmeasured {
                    line: line(u.span.start),
                    op: u.op.clone(),
                    reason: u.reason.to_string(),
                })
                .collect()
        }),
    }
}

fn kind_name(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::Explicit => "buffer",
        BufferKind::Scratch => "scratch",
        BufferKind::Call => "call",
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
        let placed = if o.partition_offsets.len() > 1 {
            let at: Vec<String> = o.partition_offsets.iter().map(u64::to_string).collect();
            format!(
                "{:>7} B at {} {:<7} (one piece per partition)",
                o.shared_bytes,
                at.join(" + "),
                kind_name(o.kind)
            )
        } else if o.shared_bytes > 0 {
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
                    "{} x {} ({} wavefronts{}{}{}{})",
                    i.count,
                    i.mnemonic,
                    i.wavefronts,
                    if i.conflicts > 0 {
                        format!(", {} extra per wavefront", i.conflicts)
                    } else {
                        String::new()
                    },
                    if i.one_thread { ", one thread" } else { "" },
                    i.owning_warps
                        .map(|w| match w {
                            1 => ", stored by the one warp that owns elements".to_string(),
                            w => format!(", stored by the {w} warps that own elements"),
                        })
                        .unwrap_or_default(),
                    i.warps
                        .map(|w| format!(", in {w} warps"))
                        .unwrap_or_default()
                )
            })
            .collect();
        let instructions = match o.paired_with {
            Some(with) => with.note(line(with.op.start)),
            None => instructions.join("; "),
        };
        out += &format!(
            "  line {:<5} {:<36} {placed} {}\n",
            line(o.span.start),
            o.op,
            instructions
        );
    }
    for t in &k.tensor_memory {
        out += &format!(
            "  line {:<5} {:<36} {} columns of tensor memory ({} lanes) at column {}{}\n",
            line(t.span.start),
            "ttng.tmem_alloc",
            t.columns,
            t.rows,
            t.column,
            if t.row > 0 {
                ", second half of the lanes"
            } else {
                ""
            }
        );
    }
    for u in &k.unmeasured {
        out += &format!(
            "  line {:<5} {}: uses shared memory layoutc cannot size ({}); the total is a lower bound\n",
            line(u.span.start),
            u.op,
            u.reason
        );
    }
    out
}
