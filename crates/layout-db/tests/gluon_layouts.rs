//! Gluon's layout objects pasted into `.lay` files, in both spellings a
//! user has (`repr(obj)`, and the constructor call a kernel writes), lay
//! tensors out exactly as Triton 3.9's own `to_linear_layout` does for the
//! same objects (tests/vectors/triton/gluon_layouts.json, made with the
//! wheel by gen_gluon_layouts.py): every layout class of
//! `triton.experimental.gluon.language` layoutc reads, over random
//! parameters.

use layout_db::{Database, SourceFile, Value, named_values};

fn bases(v: &serde_json::Value) -> Vec<Vec<u32>> {
    layout_test_support::lists(v)
        .into_iter()
        .map(|b| b.into_iter().map(|x| x as u32).collect())
        .collect()
}

#[test]
fn gluon_objects_lay_out_tensors_as_triton_does() {
    let doc = layout_test_support::vectors("triton/gluon_layouts.json");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 700, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut classes = std::collections::BTreeMap::<String, usize>::new();
    // Where layoutc knowingly differs (the file says why).
    let known: Vec<String> = serde_json::from_value(
        layout_test_support::vectors("triton/known_divergences.json")["cases"].clone(),
    )
    .unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        if known.iter().any(|k| k == name) {
            continue;
        }
        let shape: Vec<String> = case["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap().to_string())
            .collect();
        // The machine the layout was made for: lanes, warps and CTAs from
        // its bases (a warp of 64 lanes is AMD's).
        let count = |dim: &str| 1usize << case["bases"][dim].as_array().map_or(0, Vec::len);
        let target = if case["shared"].as_bool().unwrap() {
            format!("target t {{ num_ctas = {} }}\n", count("block"))
        } else {
            format!(
                "target t {{ warp_size = {}, num_warps = {}, num_ctas = {} }}\n",
                count("lane"),
                count("warp"),
                count("block")
            )
        };
        for spelling in ["repr", "call"] {
            let gluon = case[spelling].as_str().unwrap();
            let text = format!(
                "{target}layout x = tensor<{}xf16, gluon {gluon}>\n",
                shape.join("x")
            );
            let mut db = Database::default();
            let file = SourceFile::open(&mut db, "case.lay".into(), text.clone());
            let values = named_values(&db, file);
            let Some(Value::Tensor(t)) = &values.last().unwrap().value else {
                let report = layout_db::check_file(&db, file);
                failures.push(format!(
                    "{name} ({spelling}): {text} -> {:?}",
                    report.diagnostics
                ));
                continue;
            };
            let got = t.layout.bases();
            for (dim, want) in case["bases"].as_object().unwrap() {
                // The wheel keeps zero register bases for MMA-like layouts
                // and drops them for blocked ones; layoutc drops them.
                let nonzero = |b: Vec<Vec<u32>>| -> Vec<Vec<u32>> {
                    b.into_iter()
                        .filter(|v| dim != "register" || v.iter().any(|&x| x != 0))
                        .collect()
                };
                let got_dim = nonzero(
                    got.iter()
                        .find(|(n, _)| n.as_str() == dim)
                        .map(|(_, b)| b.clone())
                        .unwrap_or_default(),
                );
                if got_dim != nonzero(bases(want)) {
                    failures.push(format!(
                        "{name} ({spelling}) {dim}: layoutc {got_dim:?}, Triton {want}"
                    ));
                }
            }
        }
        let class = case["repr"].as_str().unwrap().split('(').next().unwrap();
        *classes.entry(class.into()).or_default() += 1;
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(classes.len(), 11, "{classes:?}");
}
