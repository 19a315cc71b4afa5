//! Helpers shared by the vector-driven tests: reading Triton's JSON forms.
#![allow(dead_code)]

use layout_algebra::{DimName, LinearLayout};
use serde_json::Value;

/// Path of a file under the repository's `tests/vectors`.
pub fn vectors_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors")
        .join(rel)
}

/// A shape written as a JSON list of sizes.
pub fn shape_of(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

/// Cases of the Triton vectors where layoutc knowingly differs
/// (tests/vectors/triton/known_divergences.json says why).
pub fn known_divergences() -> Vec<String> {
    serde_json::from_value(load("triton/known_divergences.json")["cases"].clone()).unwrap()
}

pub fn load(rel: &str) -> Value {
    let path = vectors_path(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn int_lists(v: &Value) -> Vec<Vec<i64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        })
        .collect()
}

/// `{"bases": [[name, [[..]]], ..], "outDims": [[name, size], ..]}`.
pub fn layout_from_pairs(v: &Value) -> LinearLayout {
    let bases = v["bases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (DimName::from(p[0].as_str().unwrap()), int_lists(&p[1])))
        .collect();
    LinearLayout::from_bases_with_sizes(bases, out_dims(&v["outDims"]), false).unwrap()
}

pub fn out_dims(v: &Value) -> Vec<(DimName, i64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                DimName::from(p[0].as_str().unwrap()),
                p[1].as_i64().unwrap(),
            )
        })
        .collect()
}

/// `{"register": [[..]], "lane": .., ...}` (object form, in-dims in the
/// given order) with separate out dims.
pub fn layout_from_object(
    bases: &Value,
    order: &[&str],
    outs: Vec<(DimName, i64)>,
) -> LinearLayout {
    let obj = bases.as_object().unwrap();
    let mut list = Vec::new();
    for name in order {
        if let Some(b) = obj.get(*name) {
            list.push((DimName::from(*name), int_lists(b)));
        }
    }
    for (name, b) in obj {
        if !order.contains(&name.as_str()) {
            list.push((DimName::from(name.as_str()), int_lists(b)));
        }
    }
    LinearLayout::from_bases_with_sizes(list, outs, false).unwrap()
}

/// Bases as plain integers, for comparing with JSON.
pub fn bases_json(l: &LinearLayout) -> Vec<(String, Vec<Vec<i64>>)> {
    l.bases()
        .into_iter()
        .map(|(n, b)| {
            (
                n.to_string(),
                b.into_iter()
                    .map(|v| v.into_iter().map(i64::from).collect())
                    .collect(),
            )
        })
        .collect()
}

/// Collects mismatches so a test reports every failing vector at once.
#[derive(Default)]
pub struct Mismatches(pub Vec<String>);

impl Mismatches {
    pub fn check(&mut self, ok: bool, msg: impl FnOnce() -> String) {
        if !ok {
            self.0.push(msg());
        }
    }
    pub fn finish(self, total: usize) {
        if !self.0.is_empty() {
            panic!(
                "{} of {total} vectors failed:\n{}",
                self.0.len(),
                self.0.join("\n")
            );
        }
    }
}

use layout_algebra::triton::*;

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap() as u32).collect())
        .unwrap_or_default()
}

fn usizes(v: &Value) -> Vec<usize> {
    u32s(v).into_iter().map(|x| x as usize).collect()
}

/// CTA placement from either form: `CGALayout` / `cga_layout` bases, or the
/// `CTAsPerCGA` / `CTASplitNum` / `CTAOrder` triple.
fn cga(p: &Value, rank: usize) -> CgaLayout {
    try_cga(p, rank).unwrap()
}

/// The bases form is preferred (it is what Triton 3.9 prints); the old
/// triple is used when only it is given.
pub fn try_cga(p: &Value, rank: usize) -> Result<CgaLayout, layout_algebra::LayoutError> {
    let bases = p.get("CGALayout").or_else(|| p.get("cga_layout"));
    match bases {
        Some(b) if !(b.as_array().unwrap().is_empty() && p.get("CTAsPerCGA").is_some()) => {
            CgaLayout::from_bases(rank, b.as_array().unwrap().iter().map(u32s).collect())
        }
        _ if p.get("CTAsPerCGA").is_some() => CgaLayout::from_split(
            &u32s(&p["CTAsPerCGA"]),
            &u32s(&p["CTASplitNum"]),
            &usizes(&p["CTAOrder"]),
        ),
        _ => Ok(CgaLayout::single(rank)),
    }
}

/// Like [`encoding`], but an invalid CTA placement is an error value.
pub fn try_encoding(p: &Value) -> Result<Encoding, layout_algebra::LayoutError> {
    fn check(p: &Value) -> Result<(), layout_algebra::LayoutError> {
        if let Some(parent) = p.get("parent") {
            check(parent)?;
        }
        let rank = ["order", "warpsPerCTA", "CTAOrder"]
            .iter()
            .find_map(|k| p.get(*k))
            .map(|v| v.as_array().unwrap().len())
            .or_else(|| p.get("rank").and_then(Value::as_u64).map(|r| r as usize));
        if let Some(rank) = rank {
            try_cga(p, rank)?;
        }
        Ok(())
    }
    check(p)?;
    Ok(encoding(p))
}

/// An encoding from the JSON `params` object of the reference vectors.
pub fn encoding(p: &Value) -> Encoding {
    let kind = p["kind"].as_str().unwrap();
    let flag = |k: &str| p.get(k).and_then(Value::as_bool).unwrap_or(false);
    let num = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
    match kind {
        "blocked" => {
            let order = usizes(&p["order"]);
            Encoding::Blocked(Blocked {
                size_per_thread: u32s(&p["sizePerThread"]),
                threads_per_warp: u32s(&p["threadsPerWarp"]),
                warps_per_cta: u32s(&p["warpsPerCTA"]),
                cga: cga(p, order.len()),
                order,
            })
        }
        "swizzled_shared" => {
            let order = usizes(&p["order"]);
            Encoding::SwizzledShared(SwizzledShared {
                vec: num("vec"),
                per_phase: num("perPhase"),
                max_phase: num("maxPhase"),
                cga: cga(p, order.len()),
                order,
            })
        }
        "nvmma_shared" => {
            let rank = p
                .get("rank")
                .and_then(Value::as_u64)
                .map(|r| r as usize)
                .or_else(|| p.get("CTAOrder").map(|o| o.as_array().unwrap().len()))
                .unwrap_or(2);
            let width = p
                .get("swizzlingByteWidth")
                .or_else(|| p.get("swizzleByteWidth"))
                .unwrap()
                .as_u64()
                .unwrap() as u32;
            Encoding::NvmmaShared(NvmmaShared {
                swizzling_byte_width: width,
                transposed: flag("transposed"),
                element_bit_width: num("elementBitWidth"),
                fp4_padded: flag("fp4Padded"),
                cga: cga(p, rank),
            })
        }
        "nvidia_mma" => {
            let w = u32s(&p["warpsPerCTA"]);
            Encoding::NvidiaMma(NvidiaMma {
                version_major: num("versionMajor"),
                version_minor: num("versionMinor"),
                instr_shape: u32s(&p["instrShape"]),
                cga: cga(p, w.len()),
                warps_per_cta: w,
            })
        }
        "amd_mfma" => {
            let w = u32s(&p["warpsPerCTA"]);
            Encoding::AmdMfma(AmdMfma {
                version: num("version"),
                instr_shape: u32s(&p["instrShape"]),
                is_transposed: flag("isTransposed"),
                tiles_per_warp: p.get("tilesPerWarp").map(u32s).unwrap_or_default(),
                element_bit_width: num("elementBitWidth"),
                cga: cga(p, w.len()),
                warps_per_cta: w,
            })
        }
        "amd_wmma" => {
            let w = p.get("warpsPerCTA").map(u32s).unwrap_or_default();
            let tiles = p.get("ctaLayout").map(|c| WmmaCtaTiles {
                register: c
                    .get("register")
                    .map(|v| v.as_array().unwrap().iter().map(u32s).collect())
                    .unwrap_or_default(),
                warp: c
                    .get("warp")
                    .map(|v| v.as_array().unwrap().iter().map(u32s).collect())
                    .unwrap_or_default(),
            });
            let rank = p
                .get("rank")
                .and_then(Value::as_u64)
                .map_or(w.len(), |r| r as usize);
            Encoding::AmdWmma(AmdWmma {
                version: num("version"),
                is_transposed: flag("isTransposed") || flag("isTranspose"),
                instr_shape: p.get("instrShape").map(u32s).unwrap_or_default(),
                cga: cga(p, rank),
                warps_per_cta: w,
                cta_tiles: tiles,
            })
        }
        "slice" => Encoding::Slice(Box::new(Slice {
            dim: num("dim") as usize,
            parent: encoding(&p["parent"]),
        })),
        "dot_op" | "dot_operand" => Encoding::DotOperand(Box::new(DotOperand {
            op_idx: num("opIdx"),
            k_width: num("kWidth"),
            parent: encoding(&p["parent"]),
        })),
        "linear" => {
            let b = |k: &str| {
                p.get(k)
                    .map(|v| v.as_array().unwrap().iter().map(u32s).collect())
                    .unwrap_or_default()
            };
            Encoding::Linear(LinearEncoding {
                register: b("register"),
                lane: b("lane"),
                warp: b("warp"),
                block: b("block"),
                shape: p.get("shape").map(u32s),
            })
        }
        other => panic!("unknown encoding kind {other}"),
    }
}

/// Bases as a JSON object keyed by in-dim.
pub fn bases_object(l: &LinearLayout) -> Value {
    let mut m = serde_json::Map::new();
    for (n, b) in bases_json(l) {
        m.insert(n, serde_json::json!(b));
    }
    Value::Object(m)
}

/// Drops all-zero register bases from a JSON bases object (the two canonical
/// forms of Triton versions differ only there).
pub fn without_zero_registers(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(regs) = v.get_mut("register").and_then(Value::as_array_mut) {
        regs.retain(|b| b.as_array().unwrap().iter().any(|x| x.as_i64() != Some(0)));
    }
    v
}
