//! Triton encodings to linear layouts, against the vectors transcribed from
//! Triton's LinearLayoutConversionsTest (tests/vectors/reference/triton).

use crate::common;

use common::*;

/// Canonical form: broadcast register bases are dropped (as Triton 3.9
/// does); the C++ unit tests at 285de7a keep them as zero bases, so the
/// comparison removes zero register bases from the expectation.
#[test]
fn encodings_match_triton_unit_test_vectors() {
    let vectors = load("reference/triton/unittest_vectors.json");
    let list = vectors.as_array().unwrap();
    let mut bad = Mismatches::default();
    for v in list {
        let name = v["name"].as_str().unwrap();
        let enc = encoding(&v["params"]);
        let shape = shape_of(&v["shape"]);
        match enc.to_linear_layout(&shape) {
            Err(e) => bad.check(false, || format!("{name}: error {e}")),
            Ok(l) => {
                let got = bases_object(&l);
                let expected = without_zero_registers(&v["expected"]);
                let mut got_cmp = got.clone();
                // Compare only the in-dims the vector lists.
                if let Some(obj) = got_cmp.as_object_mut() {
                    obj.retain(|k, _| expected.get(k).is_some());
                }
                bad.check(got_cmp == expected, || {
                    format!("{name} {shape:?}: got {got}, expected {expected}")
                });
                let outs: Vec<(String, u64)> = l
                    .out_dims()
                    .into_iter()
                    .map(|(n, s)| (n.to_string(), s))
                    .collect();
                let expected_outs: Vec<(String, u64)> = v["outDims"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap()))
                    .collect();
                bad.check(outs == expected_outs, || {
                    format!("{name}: out dims {outs:?}, expected {expected_outs:?}")
                });
            }
        }
    }
    bad.finish(list.len());
}
