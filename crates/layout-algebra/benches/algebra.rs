//! Hot operations of the algebra, on the cases `benches/triton/time_triton.py`
//! times in Triton's C++. Before timing, each case's result is checked against
//! Triton's (`benches/triton/bench_cases.json`), so both sides compute the same
//! thing. Figures: docs/performance.md.
//!
//! `cargo bench -p layout-algebra --bench algebra`

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, bank_conflicts, wavefronts_by_enumeration,
    wavefronts_by_rank,
};
use layout_algebra::triton::{Blocked, CgaLayout, Encoding, NvidiaMma, SwizzledShared};
use layout_algebra::{DimName, LinearLayout};
use serde_json::Value;

fn blocked() -> Encoding {
    Encoding::Blocked(Blocked {
        size_per_thread: vec![1, 4],
        threads_per_warp: vec![2, 16],
        warps_per_cta: vec![4, 1],
        order: vec![1, 0],
        cga: CgaLayout::single(2),
    })
}

fn mma() -> Encoding {
    Encoding::NvidiaMma(NvidiaMma {
        version_major: 2,
        version_minor: 0,
        warps_per_cta: vec![2, 2],
        instr_shape: vec![16, 8],
        cga: CgaLayout::single(2),
    })
}

fn swizzled() -> Encoding {
    Encoding::SwizzledShared(SwizzledShared {
        vec: 8,
        per_phase: 1,
        max_phase: 8,
        order: vec![1, 0],
        cga: CgaLayout::single(2),
    })
}

fn triton_results() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benches/triton/bench_cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("benches/triton/bench_cases.json"))
        .unwrap()
}

fn result_of(cases: &Value, name: &str) -> Value {
    cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))["result"]
        .clone()
}

fn as_json(l: &LinearLayout) -> Value {
    let bases: Vec<Value> = l
        .bases()
        .into_iter()
        .map(|(n, b)| serde_json::json!([n.as_str(), b]))
        .collect();
    serde_json::json!({"bases": bases, "outDims": l.out_dims().into_iter().map(|(n, s)| (n.to_string(), s)).collect::<Vec<_>>()})
}

/// Same bases and out-dims as Triton (ignoring keys Triton adds).
fn check_same(name: &str, ours: &LinearLayout, triton: &Value) {
    let ours = as_json(ours);
    assert_eq!(
        ours["bases"], triton["bases"],
        "{name}: bases differ from Triton"
    );
    assert_eq!(
        ours["outDims"], triton["outDims"],
        "{name}: out dims differ from Triton"
    );
}

fn bench(c: &mut Criterion) {
    let cases = triton_results();
    for (kind, enc) in [
        ("blocked", blocked()),
        ("mma_v2", mma()),
        ("swizzled", swizzled()),
    ] {
        for n in [64u32, 128, 256] {
            let name = format!("encode_{kind}_{n}x{n}");
            check_same(
                &name,
                &enc.to_linear_layout(&[n, n]).unwrap(),
                &result_of(&cases, &name),
            );
            c.bench_function(&name, |b| {
                b.iter(|| {
                    black_box(&enc)
                        .to_linear_layout(black_box(&[n, n]))
                        .unwrap()
                })
            });
        }
    }
    let l1 = blocked().to_linear_layout(&[128, 128]).unwrap();
    let s = swizzled().to_linear_layout(&[128, 128]).unwrap();
    let m = mma().to_linear_layout(&[128, 128]).unwrap();
    let l2 = s.invert().unwrap();
    check_same(
        "compose_128x128",
        &l1.compose(&l2).unwrap(),
        &result_of(&cases, "compose_128x128"),
    );
    c.bench_function("compose_128x128", |b| {
        b.iter(|| black_box(&l1).compose(black_box(&l2)).unwrap())
    });
    check_same(
        "invert_and_compose_128x128",
        &l1.invert_and_compose(&s).unwrap(),
        &result_of(&cases, "invert_and_compose_128x128"),
    );
    c.bench_function("invert_and_compose_128x128", |b| {
        b.iter(|| black_box(&l1).invert_and_compose(black_box(&s)).unwrap())
    });
    let name = "invert_and_compose_mma_to_blocked_128x128";
    check_same(
        name,
        &m.invert_and_compose(&l1).unwrap(),
        &result_of(&cases, name),
    );
    c.bench_function(name, |b| {
        b.iter(|| black_box(&m).invert_and_compose(black_box(&l1)).unwrap())
    });

    let target = BankTarget::nvidia();
    for (name, reg) in [
        ("bank_conflicts_128x128_f16", &l1),
        ("bank_conflicts_mma_128x128_f16", &m),
    ] {
        let expected = result_of(&cases, name).as_u64().unwrap();
        assert_eq!(
            bank_conflicts(reg, &s, 16, &target).unwrap(),
            expected,
            "{name}"
        );
        c.bench_function(name, |b| {
            b.iter(|| bank_conflicts(black_box(reg), black_box(&s), 16, &target).unwrap())
        });
    }
    // Wavefront counting for a 128-bit store, both ways (no Triton twin).
    let access = Access {
        distributed: &l1,
        shared: &s,
        element_bits: 16,
        instruction: Instruction::LdSt { bits: 64 },
        direction: Direction::Store,
    };
    c.bench_function("wavefronts_by_rank_128x128_f16", |b| {
        b.iter(|| wavefronts_by_rank(black_box(&access), &target).unwrap())
    });
    c.bench_function("wavefronts_by_enumeration_128x128_f16", |b| {
        b.iter(|| wavefronts_by_enumeration(black_box(&access), &target).unwrap())
    });
    let _ = DimName::from("");
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
