//! CuTe and XLA operations, on the cases `benches/cute/time_pycute.py`
//! times in pycute. Figures: docs/performance.md.
//!
//! `cargo bench -p layout-algebra --bench families`

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use layout_algebra::cute::{IntTuple, Layout, Tiler};
use layout_algebra::xla::XlaShape;

/// (name, A, B) for composition and the divides; the same strings are in
/// benches/cute/time_pycute.py.
const COMPOSITIONS: &[(&str, &str, &str)] = &[
    (
        "composition_doc_12x32",
        "(12,(4,8)):(59,(13,1))",
        "<3:4,8:2>",
    ),
    ("composition_64x64_by_8x8", "(64,64):(64,1)", "(8,8):(1,64)"),
    (
        "composition_nested_8x8",
        "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))",
        "8:4",
    ),
];
const COMPLEMENTS: &[(&str, &str, i64)] = &[
    ("complement_2x4x8", "(2,4,8):(8,1,64)", 1024),
    ("complement_4x8_in_64", "(4,8):(8,1)", 64),
    ("complement_nested", "((2,2),4):((1,8),32)", 256),
];
const DIVIDES: &[(&str, &str, &str)] = &[
    (
        "logical_divide_doc",
        "(9,(4,8)):(59,(13,1))",
        "<3:3,(2,4):(1,8)>",
    ),
    (
        "zipped_divide_128x128_by_16x32",
        "(128,128):(128,1)",
        "<16:1,32:1>",
    ),
];

fn bench(c: &mut Criterion) {
    for &(name, a, b) in COMPOSITIONS {
        let (a, b) = (Layout::parse(a).unwrap(), Tiler::parse(b).unwrap());
        c.bench_function(name, |bench| {
            bench.iter(|| black_box(&a).compose_tiler(black_box(&b)).unwrap())
        });
    }
    for &(name, a, cotarget) in COMPLEMENTS {
        let a = Layout::parse(a).unwrap();
        let t = IntTuple::Int(cotarget);
        c.bench_function(name, |bench| {
            bench.iter(|| black_box(&a).complement(black_box(&t)).unwrap())
        });
    }
    for &(name, a, b) in DIVIDES {
        let (a, b) = (Layout::parse(a).unwrap(), Tiler::parse(b).unwrap());
        if name.starts_with("zipped") {
            c.bench_function(name, |bench| {
                bench.iter(|| black_box(&a).zipped_divide(black_box(&b)).unwrap())
            });
        } else {
            c.bench_function(name, |bench| {
                bench.iter(|| black_box(&a).logical_divide(black_box(&b)).unwrap())
            });
        }
    }
    for (name, text) in [
        ("xla_offsets_f32_3x5_T2x2", "f32[3,5]{1,0:T(2,2)}"),
        (
            "xla_offsets_bf16_256x128_T8x128_2x1",
            "bf16[256,128]{1,0:T(8,128)(2,1)}",
        ),
        ("xla_parse_bf16_256x128", "bf16[256,128]{1,0:T(8,128)(2,1)}"),
    ] {
        let shape = XlaShape::parse(text).unwrap();
        if name.starts_with("xla_parse") {
            c.bench_function(name, |bench| {
                bench.iter(|| XlaShape::parse(black_box(text)).unwrap())
            });
        } else {
            c.bench_function(name, |bench| bench.iter(|| black_box(&shape).offsets()));
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
