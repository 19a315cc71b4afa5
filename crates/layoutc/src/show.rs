//! `layoutc show`: the values a file declares, as text (bases tables and
//! ownership grids in the style of the seeds) or as the JSON of CONTRACT §3.

use std::path::PathBuf;

use layout_algebra::LinearLayout;
use layout_algebra::interop::{CuteInDims, cute_to_linear, swizzled_to_linear, xla_to_linear};
use layout_db::{NamedValue, Value};
use serde_json::{Value as Json, json};

use crate::files::{self, LineIndex};
use crate::render::{ariadne_report, check_text, diagnostic_json, source_cache, span_json};
use crate::{ShowFormat, Usage};

/// Above this many elements, tables and offsets are left out (CONTRACT §3).
const TABLE_LIMIT: i64 = 4096;

pub fn show(path: &str, name: Option<&str>, format: ShowFormat) -> Result<u8, Usage> {
    let text = files::read(std::path::Path::new(path))?;
    let checked = check_text(PathBuf::from(path), text, true);
    let values: Vec<&NamedValue> = checked
        .values
        .iter()
        .filter(|v| name.is_none_or(|n| v.name == n || v.name == format!("#{n}")))
        .collect();
    if let Some(n) = name {
        if values.is_empty() {
            let names: Vec<&str> = checked.values.iter().map(|v| v.name.as_str()).collect();
            return Err(Usage(format!(
                "{path} declares no `{n}` (it declares {})",
                if names.is_empty() {
                    "nothing".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
    }
    let failed = checked.report.has_errors();
    let index = LineIndex::new(&checked.text);
    match format {
        ShowFormat::Json => {
            let out = json!({
                "file": path,
                "values": values.iter().map(|v| value_json(&checked.text, &index, v)).collect::<Vec<_>>(),
                "diagnostics": checked.report.diagnostics.iter().map(|d| diagnostic_json(&checked.text, &index, d)).collect::<Vec<_>>(),
            });
            crate::outln!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
        }
        ShowFormat::Text => {
            let mut out = String::new();
            for v in &values {
                out += &value_text(&checked.text, &index, v);
                out += "\n";
            }
            let mut cache = source_cache(path, &checked.text);
            for d in &checked.report.diagnostics {
                out += &ariadne_report(&mut cache, d, false);
            }
            crate::out!("{out}");
        }
    }
    Ok(u8::from(failed))
}

/// CONTRACT §3's `linear` object.
pub fn linear_json(l: &LinearLayout) -> Json {
    let ins: Vec<Json> = l
        .bases()
        .into_iter()
        .map(|(name, bases)| {
            json!({"name": name.as_str(), "size": l.in_dim_size(&name), "bases": bases})
        })
        .collect();
    let outs: Vec<Json> = l
        .out_dims()
        .into_iter()
        .map(|(n, s)| json!({"name": n.as_str(), "size": s}))
        .collect();
    json!({"ins": ins, "outs": outs})
}

/// The exact linear form of a CuTe or XLA value, when it has one.
fn linear_of(v: &Value) -> Option<LinearLayout> {
    match v {
        Value::Linear(l) => Some((**l).clone()),
        // A padded layout's offsets are not linear in the element.
        Value::Tensor(t) if !t.encoding.padding().is_empty() => None,
        Value::Tensor(t) => Some(t.layout.clone()),
        Value::Cute(c) => cute_to_linear(c, &CuteInDims::Flat("index".into())).ok(),
        Value::Swizzled(s) => swizzled_to_linear(s, &CuteInDims::Flat("index".into())).ok(),
        Value::Xla(x) => xla_to_linear(x).ok(),
        _ => None,
    }
}

fn value_json(text: &str, index: &LineIndex, nv: &NamedValue) -> Json {
    let mut j = json!({
        "name": nv.name,
        "span": span_json(text, index, nv.span),
    });
    let Some(v) = &nv.value else {
        j["kind"] = json!("error");
        return j;
    };
    j["kind"] = json!(v.show_kind());
    if let Some(l) = linear_of(v) {
        j["linear"] = linear_json(&l);
    }
    match v {
        Value::Int(n) => j["int"] = json!(n),
        Value::Bool(b) => j["bool"] = json!(b),
        Value::Str(s) => j["string"] = json!(s),
        Value::Tuple(_) => j["tuple"] = json!(v.to_string()),
        Value::List(_) => j["list"] = json!(v.to_string()),
        Value::Named(items) => {
            let mut m = serde_json::Map::new();
            for (k, x) in items {
                m.insert(
                    k.clone(),
                    match x {
                        Value::Int(n) => json!(n),
                        other => json!(other.to_string()),
                    },
                );
            }
            j["coordinates"] = Json::Object(m);
        }
        Value::Encoding(e) => j["encoding"] = json!(e.to_string()),
        Value::Tensor(t) => {
            j["tensor"] = json!({
                "shape": t.shape,
                "element_type": t.element_type,
                "encoding": t.encoding.to_string(),
            });
            let padding = t.encoding.padding();
            if !padding.is_empty() {
                // Every element's offset with the padding in, row-major.
                let elements: u64 = t.shape.iter().map(|&d| d as u64).product();
                let mut o = json!({
                    "intervals": padding,
                    "alloc_elements": layout_algebra::bank::padded_offset(padding, elements.saturating_sub(1)) + 1,
                    "unpadded": linear_json(&t.layout),
                });
                if elements <= TABLE_LIMIT as u64 {
                    o["offsets"] = json!(padded_offsets(&t.layout, &t.shape, padding));
                }
                j["padded"] = o;
            }
        }
        Value::Cute(c) => {
            let mut o = json!({"text": c.to_string(), "size": c.size(), "cosize": c.cosize()});
            if c.size() <= TABLE_LIMIT {
                o["table"] = json!(c.table());
            }
            j["cute"] = o;
        }
        Value::Swizzled(s) => {
            let mut o = json!({"text": s.to_string(), "size": s.layout.size(), "cosize": s.layout.cosize()});
            if s.layout.size() <= TABLE_LIMIT {
                o["table"] = json!(s.table());
            }
            j["cute"] = o;
        }
        Value::Swizzle(s) => j["cute"] = json!({"text": s.to_string()}),
        Value::Tiler(t) => j["cute"] = json!({"text": t.to_string()}),
        Value::Xla(x) => {
            let mut o = json!({
                "text": x.to_string(),
                "padded_elements": x.padded_elements(),
                "padded_bytes": x.padded_bytes(),
            });
            if x.logical_elements() <= TABLE_LIMIT {
                o["offsets"] = json!(x.offsets());
            }
            j["xla"] = o;
        }
        Value::Solve(s) => {
            j["solve"] = crate::solve_cmd::outcome_json(s);
        }
        Value::Target(t) => {
            j["target"] = json!({
                "threads_per_warp": t.threads_per_warp(),
                "num_warps": t.num_warps,
                "num_ctas": t.num_ctas,
                "banks": t.banks.unwrap_or(32),
                "bank_bytes": t.bank_bytes.unwrap_or(4),
            });
        }
        Value::Conversion(c) => {
            let mut o = json!({
                "kind": c.kind.name(),
                "scratch_bytes": c.scratch_bytes,
                "read_conflicts": c.read_conflicts,
                "write_conflicts": c.write_conflicts,
                "rounds": c.rounds,
                "element_bits": c.element_bits,
            });
            if let Some(m) = c.mixed_transpositions {
                o["mixed_transpositions"] = json!(m);
            }
            if let (Some(st), Some(ld)) = (c.store, c.load) {
                o["store"] = json!(st);
                o["load"] = json!(ld);
            }
            if let Some(l) = &c.swizzle {
                o["scratch_layout"] = linear_json(l);
            }
            j["conversion"] = o;
        }
        Value::Access(a) => {
            j["access"] = json!({
                "operation": a.op.mlir_name(),
                "direction": match a.direction {
                    layout_algebra::bank::Direction::Store => "store",
                    layout_algebra::bank::Direction::Load => "load",
                },
                "element_bits": a.element_bits,
                "vector": a.vector,
                "instruction": a.instruction,
                "instructions": a.instructions,
                "wavefronts": a.wavefronts,
                "conflicts": a.conflicts,
                "shared": linear_json(&a.shared.layout),
            });
        }
        Value::Location(l) => j["location"] = json!(layout_db::value::location_text(l)),
        Value::MemorySpace(m) => j["memory_space"] = json!(m),
        Value::Operation(op) => j["operation"] = json!(op),
        Value::Unsupported(kind) => j["unsupported_encoding"] = json!(kind),
        Value::Underscore | Value::Linear(_) => {}
    }
    j
}

fn value_text(text: &str, index: &LineIndex, nv: &NamedValue) -> String {
    let (line, col) = index.line_col(text, nv.span.start);
    let Some(v) = &nv.value else {
        return format!("{} (line {line}:{col}): has errors\n", nv.name);
    };
    let mut out = format!("{} (line {line}:{col}): {}\n", nv.name, v.type_name());
    match v {
        Value::Tensor(t) => {
            out += &format!(
                "  tensor<{}x{}, {}>\n",
                t.shape
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                t.element_type,
                t.encoding
            );
            let padding = t.encoding.padding();
            if !padding.is_empty() {
                out += &format!(
                    "  padding: {} (the offsets below include it)\n",
                    padding
                        .iter()
                        .map(|(i, p)| format!("{i}:+{p}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            out += &linear_text(&t.layout, padding);
        }
        Value::Linear(l) => out += &linear_text(l, &[]),
        Value::Cute(c) => {
            out += &format!("  {c}  (size {}, cosize {})\n", c.size(), c.cosize());
            out += &cute_grid(
                c.rank(),
                &|i, j| {
                    c.at(&layout_algebra::cute::IntTuple::Tuple(vec![
                        layout_algebra::cute::IntTuple::Int(i),
                        layout_algebra::cute::IntTuple::Int(j),
                    ]))
                    .ok()
                },
                c.shape(),
                c.size(),
                &|i| c.call(i),
            );
        }
        Value::Swizzled(s) => {
            out += &format!("  {s}\n");
            let l = &s.layout;
            out += &cute_grid(
                l.rank(),
                &|i, j| {
                    l.at(&layout_algebra::cute::IntTuple::Tuple(vec![
                        layout_algebra::cute::IntTuple::Int(i),
                        layout_algebra::cute::IntTuple::Int(j),
                    ]))
                    .ok()
                    .map(|o| s.swizzle.apply(s.offset + o))
                },
                l.shape(),
                l.size(),
                &|i| s.call(i),
            );
        }
        Value::Xla(x) => {
            out += &format!(
                "  {x}: {} elements, {} with padding ({} bytes)\n",
                x.logical_elements(),
                x.padded_elements(),
                x.padded_bytes()
            );
            if x.dims.len() == 2 && x.logical_elements() <= TABLE_LIMIT {
                let offsets = x.offsets();
                let cols = x.dims[1] as usize;
                out += "  physical offset of each element (row-major):\n";
                out += &grid(x.dims[0] as usize, cols, &|i, j| {
                    Some(offsets[i * cols + j].to_string())
                });
            } else if x.logical_elements() <= 64 {
                out += &format!("  offsets: {:?}\n", x.offsets());
            }
        }
        Value::Conversion(c) => {
            out += &format!("  {c}\n", c = v);
            if let Some(l) = &c.swizzle {
                out += "  scratch buffer (-> tensor):\n";
                out += &linear_text(l, &[]);
            }
        }
        Value::Solve(s) => {
            out += &format!("  {}", crate::solve_cmd::solution_text(s));
            if let layout_db::value::SolveKind::Swizzle(w) = &s.kind
                && let Some(answer) = &w.answer
            {
                out += "  the shared layout (offset -> tensor):\n";
                out += &linear_text(&answer.layout, &[]);
            }
        }
        other => out += &format!("  {other}\n"),
    }
    out
}

/// In/out dims, the bases table and, for 1- and 2-D tensors, who owns each
/// element (distributed) or where it is stored (shared).
/// The offset of every element (row-major) of a padded shared layout, one
/// CTA's (block 0).
fn padded_offsets(l: &LinearLayout, shape: &[u32], padding: &[(u32, u32)]) -> Vec<u64> {
    let n: u64 = shape.iter().map(|&d| d as u64).product();
    let mut offsets = vec![0u64; n as usize];
    for o in 0..l.in_dim_size("offset") {
        let inputs: Vec<(&str, u64)> = l
            .in_dim_names()
            .map(|d| (d.as_str(), if d.as_str() == "offset" { o } else { 0 }))
            .collect();
        let Ok(coords) = l.apply(&inputs) else {
            continue;
        };
        let index = coords
            .iter()
            .zip(shape)
            .fold(0u64, |acc, ((_, c), &d)| acc * d as u64 + *c as u64);
        if let Some(slot) = offsets.get_mut(index as usize) {
            *slot = layout_algebra::bank::padded_offset(padding, o);
        }
    }
    offsets
}

fn linear_text(l: &LinearLayout, padding: &[(u32, u32)]) -> String {
    let mut out = String::from("  in-dims:  ");
    out += &l
        .in_dims()
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    out += "\n  out-dims: ";
    let outs = l.out_dims();
    out += &outs
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    out += "\n  bases:\n";
    for (name, bases) in l.bases() {
        if bases.is_empty() {
            continue;
        }
        for (i, b) in bases.iter().enumerate() {
            out += &format!(
                "    {:>8} {:>6} -> ({})\n",
                if i == 0 { name.as_str() } else { "" },
                1u64 << i,
                b.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            );
        }
    }
    if l.total_in_bits() > 20 || outs.is_empty() || outs.len() > 2 {
        return out;
    }
    let (rows, cols) = match outs.as_slice() {
        [(_, c)] => (1usize, *c as usize),
        [(_, r), (_, c)] => (*r as usize, *c as usize),
        _ => return out,
    };
    let ins = l.in_dims();
    let distributed = l.has_in_dim("lane");
    let shared = l.has_in_dim("offset");
    if !distributed && !shared && ins.len() != 1 {
        return out;
    }
    let mut cells: Vec<Option<String>> = vec![None; rows * cols];
    let lane_size = if distributed {
        l.in_dim_size("lane")
    } else {
        1
    };
    for input in 0..l.total_in_size() {
        let coords = unpack_input(&ins, input);
        let o = l.apply_flat(input);
        let outv = l.unpack(o);
        let (r, c) = if outv.len() == 1 {
            (0, outv[0] as usize)
        } else {
            (outv[0] as usize, outv[1] as usize)
        };
        let cell = &mut cells[r * cols + c];
        if cell.is_some() {
            continue; // broadcast: the first owner is shown
        }
        let get = |n: &str| coords.iter().find(|(d, _)| d == n).map_or(0, |(_, v)| *v);
        *cell = Some(if distributed {
            let thread = get("lane") + get("warp") * lane_size;
            let block = get("block");
            if block > 0 {
                format!("B{block}T{thread}:{}", get("register"))
            } else {
                format!("T{thread}:{}", get("register"))
            }
        } else if shared {
            let block = get("block");
            let offset = layout_algebra::bank::padded_offset(padding, get("offset"));
            if block > 0 {
                format!("{block}:{offset}")
            } else {
                offset.to_string()
            }
        } else {
            coords[0].1.to_string()
        });
    }
    out += if distributed {
        "  owner of each element (thread:register):\n"
    } else if shared {
        "  shared-memory offset of each element:\n"
    } else {
        "  input of each output:\n"
    };
    out += &grid(rows, cols, &|i, j| cells[i * cols + j].clone());
    out
}

/// CuTe's print_layout style for rank-2 layouts, a list otherwise.
fn cute_grid(
    rank: usize,
    at: &dyn Fn(i64, i64) -> Option<i64>,
    shape: &layout_algebra::cute::IntTuple,
    size: i64,
    call: &dyn Fn(i64) -> i64,
) -> String {
    if rank == 2 && size <= TABLE_LIMIT {
        let rows = shape.mode(0).product() as usize;
        let cols = shape.mode(1).product() as usize;
        return grid(rows, cols, &|i, j| {
            at(i as i64, j as i64).map(|v| v.to_string())
        });
    }
    if size <= 64 {
        return format!("  table: {:?}\n", (0..size).map(call).collect::<Vec<_>>());
    }
    String::new()
}

/// A table of at most 32 rows and 16 columns; the rest is elided.
fn grid(rows: usize, cols: usize, cell: &dyn Fn(usize, usize) -> Option<String>) -> String {
    const MAX_ROWS: usize = 32;
    const MAX_COLS: usize = 16;
    let show_rows: Vec<usize> = elide(rows, MAX_ROWS);
    let show_cols: Vec<usize> = elide(cols, MAX_COLS);
    let text = |i: usize, j: usize| cell(i, j).unwrap_or_else(|| "-".into());
    let width = show_rows
        .iter()
        .flat_map(|&i| show_cols.iter().map(move |&j| (i, j)))
        .filter(|&(i, j)| i != usize::MAX && j != usize::MAX)
        .map(|(i, j)| text(i, j).len())
        .max()
        .unwrap_or(1)
        .max(3);
    let row_label = rows.to_string().len().max(1);
    let mut out = format!("  {:>row_label$} |", "");
    for &j in &show_cols {
        if j == usize::MAX {
            out += &format!(" {:>width$}", "..");
        } else {
            out += &format!(" {j:>width$}");
        }
    }
    out += "\n";
    for &i in &show_rows {
        if i == usize::MAX {
            out += &format!("  {:>row_label$} |\n", "..");
            continue;
        }
        out += &format!("  {i:>row_label$} |");
        for &j in &show_cols {
            if j == usize::MAX {
                out += &format!(" {:>width$}", "..");
            } else {
                out += &format!(" {:>width$}", text(i, j));
            }
        }
        out += "\n";
    }
    out
}

/// The first and last indices of a long range, with a marker between.
fn elide(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let half = max / 2;
    (0..half)
        .chain(std::iter::once(usize::MAX))
        .chain(n - half..n)
        .collect()
}

/// A flat input (in-dims concatenated, first in-dim in the low bits) as
/// per-dim coordinates.
fn unpack_input(ins: &[(layout_algebra::DimName, u64)], mut input: u64) -> Vec<(String, u64)> {
    ins.iter()
        .map(|(n, size)| {
            let bits = size.trailing_zeros();
            let v = input & ((1u64 << bits) - 1);
            input >>= bits;
            (n.to_string(), v)
        })
        .collect()
}
