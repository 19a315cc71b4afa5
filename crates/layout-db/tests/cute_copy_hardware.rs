//! CuTe tiled copies against an H100: `tests/vectors/cute/hw_sm90_copies.json`
//! holds 170 kernels (ldmatrix, stmatrix, cp.async and plain vector copies of
//! whole shared tensors, swizzled, padded or plain), built by nvcc from CuTe's
//! own `partition_S/D` and `copy`, and what Nsight Compute counted when they
//! ran (`gen_cute_hw.py`, `measure_cute_hw.sh`). Each case is evaluated here
//! through the language (`tiled_copy...`, `cute Sw<..> o ...`) and costed by
//! `TiledCopy::wavefronts`; its wavefronts and instructions, summed over the
//! CTA's warps, must be what the GPU counted.

use layout_algebra::bank::BankTarget;
use layout_algebra::cute::copy_cost::shared_side;
use layout_algebra::cute::tiled::{Side, TiledCopy};
use layout_algebra::cute::{Swizzle, SwizzledLayout};
use layout_db::value::CuteObject;
use layout_db::{Database, Severity, SourceFile, Value, check_file, named_values};
use serde_json::Value as Json;

/// The tiled copy and the shared tensor of a case, read by the language.
fn evaluate(copy: &str, smem: &str) -> (TiledCopy, SwizzledLayout) {
    let text = format!("let c = {copy}\nlayout s = {smem}\n");
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "case.lay".into(), text);
    let report = check_file(&db, file);
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{copy} / {smem}: {errors:?}");
    let values = named_values(&db, file);
    let value = |name: &str| {
        values
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.value.clone())
            .unwrap_or_else(|| panic!("{name} has no value"))
    };
    let Value::CuteAtom(object) = value("c") else {
        panic!("{copy} is not a CuTe object")
    };
    let CuteObject::TiledCopy(tiled) = *object else {
        panic!("{copy} is not a tiled copy")
    };
    let smem = match value("s") {
        Value::Cute(l) => SwizzledLayout {
            swizzle: Swizzle::new(0, 0, 0).unwrap(),
            offset: 0,
            layout: *l,
        },
        Value::Swizzled(s) => *s,
        other => panic!("{smem} evaluated to {other:?}"),
    };
    (tiled, smem)
}

fn counter(hw: &Json, name: &str) -> u64 {
    hw[name]
        .as_u64()
        .unwrap_or_else(|| panic!("no counter {name}"))
}

/// What the GPU counted for the copy itself: (wavefronts, instructions).
/// Loads are ldmatrix or ld.shared (the kernel reads shared memory only
/// through the copy); stores are stmatrix or st.shared (the kernel's one
/// trailing ld.shared is on the other counter). cp.async's writes into shared
/// memory are not on these counters: the 16-byte `.cg` form counts no
/// wavefront and no conflict even where eight lanes of a phase hit one bank
/// group, and the 4- and 8-byte `.ca` forms count a fixed number per
/// instruction whatever the layout, so for cp.async only the instructions
/// are compared.
fn measured(role: &str, hw: &Json) -> (Option<u64>, u64) {
    match role {
        "load" => (
            Some(counter(
                hw,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
            )),
            counter(hw, "smsp__inst_executed_op_ldsm")
                + counter(hw, "smsp__inst_executed_op_shared_ld"),
        ),
        "store" => (
            Some(counter(
                hw,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
            )),
            counter(hw, "smsp__inst_executed_op_shared_stsm")
                + counter(hw, "smsp__inst_executed_op_shared_st"),
        ),
        "cp_async" => (None, counter(hw, "smsp__inst_executed_op_ldgsts")),
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn tiled_copy_wavefronts_are_what_an_h100_counts() {
    let doc = layout_test_support::vectors("cute/hw_sm90_copies.json");
    let cases = doc["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 170);
    let mut mismatches = Vec::new();
    let mut roles = std::collections::BTreeMap::<String, usize>::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let role = case["role"].as_str().unwrap();
        let copy = case["copy"].as_str().unwrap();
        let smem_text = case["smem"].as_str().unwrap();
        let hw = case
            .get("hw")
            .unwrap_or_else(|| panic!("{name} did not run"));
        let (tiled, smem) = evaluate(copy, smem_text);
        let side = shared_side(tiled.atom.instruction).unwrap_or(match role {
            "load" => Side::Source,
            _ => Side::Destination,
        });
        let cost = tiled
            .wavefronts(&smem, side, &BankTarget::nvidia())
            .unwrap_or_else(|e| panic!("{name}: {copy} on {smem_text}: {e}"));
        let gpu = measured(role, hw);
        let model = (
            gpu.0.map(|_| cost.all_warps_wavefronts),
            cost.all_warps_instructions,
        );
        *roles.entry(role.to_string()).or_default() += 1;
        if model != gpu {
            mismatches.push(format!(
                "{name} {role} {copy} on {smem_text}: layoutc {model:?}, GPU {gpu:?} (wavefronts, instructions)"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
    // Every kind of copy was measured: 89 loads and 37 stores by their
    // wavefronts, 44 cp.async by their instructions.
    let expected: std::collections::BTreeMap<String, usize> =
        [("cp_async", 44), ("load", 89), ("store", 37)]
            .into_iter()
            .map(|(r, n)| (r.to_string(), n))
            .collect();
    assert_eq!(roles, expected);
}

/// cp.async's writes into shared memory, timed on an H100 where the
/// counters are blind (`tests/vectors/cute/ldgsts_timing.cu` and `.json`):
/// three placements of a warp's 16-byte requests, each written here as the
/// CuTe tiled copy that makes it, costed by `TiledCopy::wavefronts`. Where
/// the model calls two placements equal, the GPU takes about as long for
/// both; where it calls one eight times the other, the GPU takes more than
/// three times as long. The 16-byte `.cg` form pays per 128-byte line a
/// phase writes (swizzling the rows does not help it); `.ca` pays per bank.
#[test]
fn cp_async_costs_follow_the_timed_placements() {
    let doc = layout_test_support::vectors("cute/ldgsts_timing.json");
    let cycles = |instruction: &str, pattern: u64| -> f64 {
        doc["cycles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["instruction"] == instruction && r["pattern"] == pattern)
            .unwrap_or_else(|| panic!("no timing of {instruction} pattern {pattern}"))["cycles"]
            .as_f64()
            .unwrap()
    };
    // 0: eight lanes fill one 128-byte row; 1: eight rows, one 16-byte
    // chunk (one bank group); 2: eight rows, eight chunks (swizzled).
    let placements = [
        ("(16,8):(8,1)", "cute (64,64):(64,1)"),
        ("(16,8):(1,16)", "cute (64,64):(64,1)"),
        ("(16,8):(1,16)", "cute Sw<3,3,3> o (64,64):(64,1)"),
    ];
    for (op, timed) in [
        ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "cp.async.cg 16B"),
        ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "cp.async.ca 16B"),
    ] {
        let model: Vec<f64> = placements
            .iter()
            .map(|(thr, smem)| {
                let copy =
                    format!("tiled_copy(copy_atom(\"{op}\", \"half_t\"), cute {thr}, cute (1,8))");
                let (tiled, smem) = evaluate(&copy, smem);
                tiled
                    .wavefronts(&smem, Side::Destination, &BankTarget::nvidia())
                    .unwrap()
                    .all_warps_wavefronts as f64
            })
            .collect();
        let time: Vec<f64> = (0..3).map(|p| cycles(timed, p)).collect();
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let (m, t) = (model[b] / model[a], time[b] / time[a]);
            if m == 1.0 {
                assert!(
                    (0.75..1.3).contains(&t),
                    "{timed} {a} vs {b}: model equal, GPU {t:.2}x"
                );
            } else if m >= 4.0 {
                assert!(t > 3.0, "{timed} {a} vs {b}: model {m}x, GPU {t:.2}x");
            } else if m <= 0.25 {
                assert!(t < 1.0 / 3.0, "{timed} {a} vs {b}: model {m}x, GPU {t:.2}x");
            } else {
                panic!("{timed} {a} vs {b}: model {m}x");
            }
        }
    }
}
