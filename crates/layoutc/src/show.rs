//! `layoutc show`: the values a file declares, as text (bases tables and
//! ownership grids in the style of the seeds) or as the JSON of CONTRACT §3.

use std::path::PathBuf;

use layout_ide::checked::{NamedValue, Value};
use layout_ide::present::{self, Limits, TABLE_LIMIT, linear_of, padded_offsets};

use crate::files;
use crate::json_schema as schema;
use crate::kernels;
use crate::layout_json::linear_json;
use crate::report::{ariadne_report, check_text, diagnostics_json, source_cache, span_json};
use crate::{ShowFormat, Usage};
use layout_ide::LineIndex;

pub fn show(
    path: &str,
    name: Option<&str>,
    format: ShowFormat,
    section: &layout_ide::syntax::SectionChoice,
) -> Result<u8, Usage> {
    let text = files::read(std::path::Path::new(path))?;
    let checked = check_text(PathBuf::from(path), text, true, section, None)?;
    let values: Vec<&NamedValue> = checked
        .values
        .iter()
        .filter(|v| name.is_none_or(|n| v.name == n || v.name == format!("#{n}")))
        .collect();
    let kernels: Vec<&layout_ide::checked::KernelSummary> = checked
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
            let out = schema::ShowOutput {
                file: path.to_string(),
                values: values
                    .iter()
                    .map(|v| value_json(&checked.text, &index, v))
                    .collect(),
                diagnostics: diagnostics_json(&checked.text, &index, &checked.report),
                kernels: (!checked.kernels.is_empty()).then(|| {
                    kernels
                        .iter()
                        .map(|k| kernels::kernel_json(&checked.text, &index, k))
                        .collect()
                }),
            };
            crate::outln!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
        }
        ShowFormat::Text => {
            // A `coalesced_blocked(...)` value is explained step by step; the
            // explanation reads the call, so it needs a database of the file.
            let explainer = values
                .iter()
                .any(|v| matches!(v.value, Some(Value::Encoding(_))))
                .then(|| {
                    layout_ide::Analysis::open(path.to_string(), checked.text.clone(), section)
                })
                .and_then(Result::ok);
            let mut out = String::new();
            for v in &values {
                out += &value_text(&checked.text, &index, v);
                if let Some(steps) = explainer
                    .as_ref()
                    .and_then(|a| a.coalesce_explanation(&v.name))
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

fn value_json(text: &str, index: &LineIndex, nv: &NamedValue) -> schema::NamedValue {
    let mut j = schema::NamedValue {
        name: nv.name.clone(),
        span: span_json(text, index, nv.span),
        kind: "error",
        ..Default::default()
    };
    let Some(v) = &nv.value else {
        return j;
    };
    j.kind = v.show_kind();
    j.linear = linear_of(v).map(|l| linear_json(&l));
    match v {
        Value::Int(n) => j.int = Some(*n),
        Value::Bool(b) => j.bool = Some(*b),
        Value::Str(s) => j.string = Some(s.clone()),
        Value::Tuple(_) => j.tuple = Some(v.to_string()),
        Value::List(_) => j.list = Some(v.to_string()),
        Value::Named(items) => {
            j.coordinates = Some(
                items
                    .iter()
                    .map(|(k, x)| {
                        let c = match x {
                            Value::Int(n) => schema::Coordinate::Int(*n),
                            other => schema::Coordinate::Text(other.to_string()),
                        };
                        (k.clone(), c)
                    })
                    .collect(),
            );
        }
        Value::Encoding(e) => j.encoding = Some(e.to_string()),
        Value::Tensor(t) => {
            j.tensor = Some(schema::Tensor {
                shape: t.shape.clone(),
                element_type: t.element_type.clone(),
                encoding: t.encoding.to_string(),
            });
            let padding = t.encoding.padding();
            if !padding.is_empty() {
                // Every element's offset with the padding in, row-major.
                let elements: u64 = t.shape.iter().map(|&d| d as u64).product();
                j.padded = Some(schema::Padded {
                    intervals: padding.to_vec(),
                    alloc_elements: layout_ide::algebra::padded_offset(
                        padding,
                        elements.saturating_sub(1),
                    ) + 1,
                    unpadded: linear_json(&t.layout),
                    offsets: (elements <= TABLE_LIMIT as u64)
                        .then(|| padded_offsets(&t.layout, &t.shape, padding)),
                });
            }
        }
        Value::Cute(c) => {
            j.cute = Some(schema::Cute {
                text: c.to_string(),
                size: Some(c.size()),
                cosize: Some(c.cosize()),
                table: (c.size() <= TABLE_LIMIT).then(|| schema::CuteTable::Indices(c.table())),
                parts: None,
            });
        }
        Value::Swizzled(s) => {
            j.cute = Some(schema::Cute {
                text: s.to_string(),
                size: Some(s.layout.size()),
                cosize: Some(s.layout.cosize()),
                table: (s.layout.size() <= TABLE_LIMIT)
                    .then(|| schema::CuteTable::Indices(s.table())),
                parts: None,
            });
        }
        Value::Swizzle(s) => j.cute = Some(cute_text(s.to_string())),
        Value::LayoutAfterSwizzle(l) => j.cute = Some(cute_text(l.to_string())),
        Value::CuteTensor(t) => {
            j.cute = Some(schema::Cute {
                size: Some(t.size()),
                table: (t.size() <= TABLE_LIMIT).then(|| {
                    schema::CuteTable::Indices((0..t.size()).map(|i| t.call(i)).collect())
                }),
                ..cute_text(t.to_string())
            });
        }
        Value::CuteAtom(o) => j.cute = Some(cute_object_json(o)),
        Value::CuteCoord(l) => {
            j.cute = Some(schema::Cute {
                size: Some(l.size()),
                table: (l.size() <= TABLE_LIMIT).then(|| {
                    schema::CuteTable::Coordinates(
                        (0..l.size()).map(|i| l.call(i).to_string()).collect(),
                    )
                }),
                ..cute_text(l.to_string())
            });
        }
        Value::Tiler(t) => j.cute = Some(cute_text(t.to_string())),
        Value::Xla(x) => {
            j.xla = Some(schema::Xla {
                offsets: (x.logical_elements() <= TABLE_LIMIT).then(|| x.offsets()),
                ..crate::solve_cmd::xla_json(x)
            });
        }
        Value::Solve(s) => j.solve = Some(crate::solve_cmd::outcome_json(None, s)),
        Value::Target(t) => {
            j.target = Some(schema::Target {
                threads_per_warp: t.threads_per_warp(),
                num_warps: t.num_warps,
                num_ctas: t.num_ctas,
                banks: t.banks.unwrap_or(32),
                bank_bytes: t.bank_bytes.unwrap_or(4),
            });
        }
        Value::Conversion(c) => {
            let (store, load) = match &c.round_trip {
                Some([st, ld]) => (
                    Some(st.mnemonic.kind_name().to_string()),
                    Some(ld.mnemonic.kind_name().to_string()),
                ),
                None => (None, None),
            };
            j.conversion = Some(schema::Conversion {
                kind: c.kind.name(),
                scratch_bytes: c.scratch_bytes,
                read_conflicts: c.read_conflicts,
                write_conflicts: c.write_conflicts,
                rounds: c.rounds,
                element_bits: c.element_bits,
                mixed_transpositions: c.mixed_transpositions,
                store,
                load,
                instructions: c
                    .round_trip
                    .iter()
                    .flatten()
                    .flat_map(|side| side.by_opcode())
                    .map(|side| schema::Instruction {
                        mnemonic: side.mnemonic.to_string(),
                        count: side.count,
                        wavefronts: side.wavefronts,
                        conflicts: side.conflicts,
                        one_thread: false,
                        owning_warps: None,
                        warps: None,
                    })
                    .collect(),
                scratch_layout: c.swizzle.as_ref().map(linear_json),
            });
        }
        Value::Access(a) => {
            j.access = Some(schema::Access {
                operation: a.op.mlir_name(),
                direction: match a.direction {
                    layout_ide::algebra::Direction::Store => "store",
                    layout_ide::algebra::Direction::Load => "load",
                },
                element_bits: a.element_bits,
                vector: a.vector,
                instruction: a.instruction.to_string(),
                instructions: a.instructions,
                wavefronts: a.wavefronts,
                conflicts: a.conflicts,
                shared: linear_json(&a.shared.layout),
            });
        }
        Value::Location(l) => j.location = Some(layout_ide::checked::location_text(l)),
        Value::MemorySpace(m) => j.memory_space = Some(m.to_string()),
        Value::Operation(op) => j.operation = Some(op.to_string()),
        Value::Unsupported(kind) => j.unsupported_encoding = Some(kind.to_string()),
        Value::Attribute(a) => j.attribute = Some(a.to_string()),
        Value::Underscore | Value::Linear(_) => {}
    }
    j
}

/// A CuTe value known by its text alone.
fn cute_text(text: String) -> schema::Cute {
    schema::Cute {
        text,
        size: None,
        cosize: None,
        table: None,
        parts: None,
    }
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
fn cute_object_json(o: &layout_ide::checked::CuteObject) -> schema::Cute {
    use layout_ide::algebra::{Operand, Side};
    use layout_ide::checked::CuteObject as O;
    use schema::{CuteParts, LayoutOrError};
    let text = |r: layout_ide::algebra::Result<layout_ide::algebra::Layout>| match r {
        Ok(l) => LayoutOrError::Layout(l.to_string()),
        Err(e) => LayoutOrError::Error {
            error: e.to_string(),
        },
    };
    let parts = match o {
        O::MmaAtom(a) => CuteParts::MmaAtom {
            op: a.name.to_string(),
            shape_mnk: a.shape_mnk,
            thr_id: a.thr_id.to_string(),
            layout_a_tv: a.a.to_string(),
            layout_b_tv: a.b.to_string(),
            layout_c_tv: a.c.to_string(),
        },
        O::CopyAtom(a) => CuteParts::CopyAtom {
            op: a.op.to_string(),
            value_type: a.value_type.to_string(),
            thr_id: a.thr_id.to_string(),
            val_layout_src: a.val_src.to_string(),
            val_layout_dst: a.val_dst.to_string(),
        },
        O::TiledMma(t) => CuteParts::TiledMma {
            op: t.atom.name.to_string(),
            shape_mnk: t.tile_shape().to_string(),
            thr_id: t.thr_layout_vmnk.to_string(),
            layout_a_tv: text(t.layout_tv(Operand::A)),
            layout_b_tv: text(t.layout_tv(Operand::B)),
            layout_c_tv: text(t.layout_tv(Operand::C)),
        },
        O::TiledCopy(t) => CuteParts::TiledCopy {
            op: t.atom.op.to_string(),
            value_type: t.atom.value_type.to_string(),
            tiler_mn: t.tiler.to_string(),
            layout_s_tv: text(t.layout_side_tv(Side::Source)),
            layout_d_tv: text(t.layout_side_tv(Side::Destination)),
        },
    };
    schema::Cute {
        parts: Some(parts),
        ..cute_text(o.to_string())
    }
}
