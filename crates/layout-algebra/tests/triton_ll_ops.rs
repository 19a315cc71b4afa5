//! Every LinearLayout operation vector from Triton's LinearLayoutTest
//! (tests/vectors/reference/triton/ll_ops_vectors.json).

use crate::common;

use common::*;
use layout_algebra::{DimName, LinearLayout};
use serde_json::Value;

fn run(op: &str, args: &[Value]) -> Result<Value, String> {
    let a = || layout_from_pairs(&args[0]);
    let b = || layout_from_pairs(&args[1]);
    let layout = |l: LinearLayout| -> Value {
        serde_json::json!({
            "bases": bases_json(&l),
            "outDims": l.out_dims().into_iter().map(|(n, s)| (n.to_string(), s)).collect::<Vec<_>>(),
            "surjective": l.is_surjective(),
        })
    };
    let dims = |v: &Value| -> Vec<(DimName, u64)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    DimName::from(p[0].as_str().unwrap()),
                    p[1].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let e = |e: layout_algebra::LayoutError| e.to_string();
    Ok(match op {
        "mul" => layout(a().product(&b()).map_err(e)?),
        "compose" => layout(a().compose(&b()).map_err(e)?),
        "invertAndCompose" => layout(a().invert_and_compose(&b()).map_err(e)?),
        "reshapeIns" => layout(a().reshape_ins(&dims(&args[1])).map_err(e)?),
        "reshapeOuts" => layout(a().reshape_outs(&dims(&args[1])).map_err(e)?),
        "flattenOuts" => layout(a().flatten_outs().map_err(e)?),
        "getNumConsecutiveInOut" => Value::from(a().num_consecutive_in_out()),
        "getFreeVariableMasks" => {
            let mut m = serde_json::Map::new();
            for (n, mask) in a().free_variable_masks() {
                m.insert(n.to_string(), Value::from(mask));
            }
            Value::Object(m)
        }
        "divideLeft" => a().divide_left(&b()).map(layout).unwrap_or(Value::Null),
        "divideRight" => a().divide_right(&b()).map(layout).unwrap_or(Value::Null),
        other => return Err(format!("unknown op {other}")),
    })
}

/// Triton's vectors record `surjective` as the flag the C++ computed; compare
/// everything else exactly and the flag too.
#[test]
fn linear_layout_ops_match_triton_unit_tests() {
    let vectors = load("reference/triton/ll_ops_vectors.json");
    let list = vectors.as_array().unwrap();
    let mut bad = Mismatches::default();
    for v in list {
        let name = v["name"].as_str().unwrap();
        let op = v["op"].as_str().unwrap();
        let got = run(op, v["args"].as_array().unwrap());
        let expected = &v["expected"];
        match got {
            Ok(got) => bad.check(&got == expected, || {
                format!("{name} ({op}): got {got}, expected {expected}")
            }),
            Err(err) => bad.check(false, || {
                format!("{name} ({op}): error {err}, expected {expected}")
            }),
        }
    }
    bad.finish(list.len());
}
