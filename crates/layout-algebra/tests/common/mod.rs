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
