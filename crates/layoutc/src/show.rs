//! `layoutc show`: the values a file declares, as text (bases tables and
//! ownership grids in the style of the seeds) or as the JSON of CONTRACT §3.

use std::path::PathBuf;

use layout_db::{NamedValue, Value};
use layout_ide::present::{self, Limits, TABLE_LIMIT, linear_of, padded_offsets};
use serde_json::{Value as Json, json};

use crate::files;
use crate::kernels;
use crate::layout_json::linear_json;
use crate::report::{ariadne_report, check_text, diagnostic_json, source_cache, span_json};
use crate::{ShowFormat, Usage};
use layout_ide::LineIndex;

pub fn show(
    path: &str,
    name: Option<&str>,
    format: ShowFormat,
    section: &layout_syntax::dump::SectionChoice,
) -> Result<u8, Usage> {
    let text = files::read(std::path::Path::new(path))?;
    let checked = check_text(PathBuf::from(path), text, true, section, None)?;
    let values: Vec<&NamedValue> = checked
        .values
        .iter()
        .filter(|v| name.is_none_or(|n| v.name == n || v.name == format!("#{n}")))
        .collect();
    let kernels: Vec<&layout_db::KernelSummary> = checked
        .kernels
        .iter()
        .filter(|k| name.is_none_or(|n| k.name == n || format!("@{}", k.name) == n))
        .collect();
    if let Some(n) = name
        && values.is_empty()
        && kernels.is_empty()
    {
        let names: Vec<String> = checked
            .values
            .iter()
            .map(|v| v.name.clone())
            .chain(checked.kernels.iter().map(|k| format!("@{}", k.name)))
            .collect();
        return Err(Usage(format!(
            "{path} declares no `{n}` (it declares {})",
            if names.is_empty() {
                "nothing".to_string()
            } else {
                names.join(", ")
            }
        )));
    }
    let failed = checked.report.has_errors();
    let index = LineIndex::new(&checked.text);
    match format {
        ShowFormat::Json => {
            let mut out = json!({
                "file": path,
                "values": values.iter().map(|v| value_json(&checked.text, &index, v)).collect::<Vec<_>>(),
                "diagnostics": checked.report.diagnostics.iter().map(|d| diagnostic_json(&checked.text, &index, d)).collect::<Vec<_>>(),
            });
            if !checked.kernels.is_empty() {
                out["kernels"] = kernels
                    .iter()
                    .map(|k| kernels::kernel_json(&checked.text, &index, k))
                    .collect();
            }
            crate::outln!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
        }
        ShowFormat::Text => {
            // A `coalesced_blocked(...)` value is explained step by step; the
            // explanation reads the call, so it needs a database of the file.
            let explainer = values
                .iter()
                .any(|v| matches!(v.value, Some(Value::Encoding(_))))
                .then(|| {
                    let mut db = layout_db::Database::default();
                    let file = layout_db::SourceFile::open(
                        &mut db,
                        path.to_string(),
                        checked.text.clone(),
                    );
                    (db, file)
                });
            let mut out = String::new();
            for v in &values {
                out += &value_text(&checked.text, &index, v);
                if let Some((db, file)) = &explainer
                    && let Some(steps) = layout_ide::coalesce::explain(db, *file, &v.name)
                {
                    out += &steps;
                }
                out += "\n";
            }
            for k in &kernels {
                out += &kernels::kernel_text(&checked.text, &index, k);
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
        Value::CuteAtom(o) => j["cute"] = cute_object_json(o),
        Value::CuteCoord(l) => {
            let mut o = json!({"text": l.to_string(), "size": l.size()});
            if l.size() <= TABLE_LIMIT {
                o["table"] = json!(
                    (0..l.size())
                        .map(|i| l.call(i).to_string())
                        .collect::<Vec<_>>()
                );
            }
            j["cute"] = o;
        }
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
                "instruction": a.instruction.to_string(),
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
    let (line, col) = index.line_col_chars(text, nv.span.start);
    let Some(v) = &nv.value else {
        return format!("{} (line {line}:{col}): has errors\n", nv.name);
    };
    let mut out = format!("{} (line {line}:{col}): {}\n", nv.name, v.type_name());
    out += &present::value_text(v, Limits::SHOW);
    out
}

/// The parts of a CuTe atom, tiled MMA or tiled copy, each as CuTe prints it.
fn cute_object_json(o: &layout_db::value::CuteObject) -> Json {
    use layout_algebra::cute::tiled::{Operand, Side};
    use layout_db::value::CuteObject as O;
    let text = |r: layout_algebra::Result<layout_algebra::cute::Layout>| match r {
        Ok(l) => json!(l.to_string()),
        Err(e) => json!({"error": e.to_string()}),
    };
    let mut j = json!({"text": o.to_string()});
    match o {
        O::MmaAtom(a) => {
            j["op"] = json!(a.name);
            j["shape_mnk"] = json!(a.shape_mnk);
            j["thr_id"] = json!(a.thr_id.to_string());
            j["layout_a_tv"] = json!(a.a.to_string());
            j["layout_b_tv"] = json!(a.b.to_string());
            j["layout_c_tv"] = json!(a.c.to_string());
        }
        O::CopyAtom(a) => {
            j["op"] = json!(a.op);
            j["value_type"] = json!(a.value_type);
            j["thr_id"] = json!(a.thr_id.to_string());
            j["val_layout_src"] = json!(a.val_src.to_string());
            j["val_layout_dst"] = json!(a.val_dst.to_string());
        }
        O::TiledMma(t) => {
            j["op"] = json!(t.atom.name);
            j["shape_mnk"] = json!(t.tile_shape().to_string());
            j["thr_id"] = json!(t.thr_layout_vmnk.to_string());
            j["layout_a_tv"] = text(t.layout_tv(Operand::A));
            j["layout_b_tv"] = text(t.layout_tv(Operand::B));
            j["layout_c_tv"] = text(t.layout_tv(Operand::C));
        }
        O::TiledCopy(t) => {
            j["op"] = json!(t.atom.op);
            j["value_type"] = json!(t.atom.value_type);
            j["tiler_mn"] = json!(t.tiler.to_string());
            j["layout_s_tv"] = text(t.layout_side_tv(Side::Source));
            j["layout_d_tv"] = text(t.layout_side_tv(Side::Destination));
        }
    }
    j
}
