//! XLA tiled layouts case by case: tests/vectors/reference/xla/vectors_sample.json
//! (XLA's docs and tests) and tests/vectors/xla/generated.json (200 cases
//! computed by numpy pad/reshape/transpose, gen_xla_vectors.py, an
//! independent formulation): the printed text, the tiled shape, the sizes
//! and the offsets of sampled indices.

use crate::common::*;
use layout_algebra::xla::XlaShape;
use libtest_mimic::Trial;
use serde_json::Value;

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Every case of both files as a test of its own, `xla/FILE/HLO`.
pub fn trials() -> Vec<Trial> {
    let mut out = Vec::new();
    for (kind, file) in [
        ("reference", "reference/xla/vectors_sample.json"),
        ("generated", "xla/generated.json"),
    ] {
        let v = load(file);
        for (i, c) in v["cases"].as_array().unwrap().iter().enumerate() {
            let c = c.clone();
            let name = format!("xla/{kind}/{i:03}_{}", c["hlo"].as_str().unwrap_or("?"));
            out.push(Trial::test(name, move || {
                check_case(&c).map_err(Into::into)
            }));
        }
    }
    out
}

fn check_case(c: &Value) -> Result<(), String> {
    let hlo = c["hlo"].as_str().unwrap();
    let shape = XlaShape::parse(hlo).map_err(|e| format!("{hlo}: {e}"))?;
    let mut bad = Vec::new();
    let mut check = |ok: bool, msg: String| {
        if !ok {
            bad.push(msg);
        }
    };
    check(
        shape.to_string() == hlo,
        format!("{hlo}: prints as {shape}"),
    );
    check(
        shape.tiled_shape() == ints(&c["tiled_shape_major_to_minor"]),
        format!("{hlo}: tiled shape {:?}", shape.tiled_shape()),
    );
    for (key, got) in [
        ("padded_elements", shape.padded_elements()),
        ("padded_bytes", shape.padded_bytes()),
        (
            "xla_array_size_elements_top_tile_only",
            shape.first_tile_array_size(),
        ),
        ("logical_elements", shape.logical_elements()),
    ] {
        check(
            c[key].as_i64() == Some(got),
            format!("{hlo}: {key} {got}, expected {}", c[key]),
        );
    }
    for s in c["samples"].as_array().unwrap() {
        let index = ints(&s[0]);
        let got = shape.offset(&index);
        check(
            got.as_ref().ok() == s[1].as_i64().as_ref(),
            format!("{hlo} {index:?}: offset {got:?}, expected {}", s[1]),
        );
    }
    if let Some(samples) = c
        .get("xla_LayoutUtil_LinearIndex_samples")
        .and_then(Value::as_array)
    {
        for s in samples {
            let index = ints(&s[0]);
            let got = shape.first_tile_linear_index(&index);
            check(
                got.as_ref().ok() == s[1].as_i64().as_ref(),
                format!(
                    "{hlo} {index:?}: first-tile index {got:?}, expected {}",
                    s[1]
                ),
            );
        }
    }
    if c["full_table"].as_bool() == Some(true) {
        let expected: Vec<i64> = c["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[1].as_i64().unwrap())
            .collect();
        check(
            shape.offsets() == expected,
            format!("{hlo}: offsets table differs"),
        );
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("\n"))
    }
}
