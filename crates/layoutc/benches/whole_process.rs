//! What a user waits for: the whole `layoutc check FILE` process on a
//! generated 50,000-line spec, and on a 23 MB `MLIR_ENABLE_DUMP=1` log
//! (docs/performance.md). Prints the minimum and median of several runs,
//! and where each file was written so that `hyperfine` can time the same
//! command.
//!
//! `cargo bench -p layoutc --bench whole_process`

use std::process::Command;
use std::time::{Duration, Instant};

/// Ten lines: a blocked and a swizzled_shared alias, tensors of both, a CuTe
/// composition, a TPU bf16 array, a crd2idx check, a bank_conflicts value
/// and a check of it, a CuTe layout.
fn unit(i: usize) -> String {
    format!(
        "#b{i} = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>\n\
         #s{i} = #ttg.swizzled_shared<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}}>\n\
         layout t{i} = tensor<64x64xf16, #b{i}>\n\
         layout m{i} = tensor<64x64xf16, #s{i}>\n\
         layout c{i} = composition(cute (6,2):(8,2), cute (4,3):(3,1))\n\
         layout x{i} = xla bf16[256,128]{{1,0:T(8,128)(2,1)}}\n\
         check crd2idx((1, 2), c{i}) == 40\n\
         let k{i} = bank_conflicts(t{i}, m{i})\n\
         check k{i} == 0\n\
         layout l{i} = cute ((4,2),4):((8,4),1)\n"
    )
}

fn spec(lines: usize) -> String {
    let mut s = String::from("module attributes {\"ttg.num-warps\" = 4 : i32}\n");
    for i in 0..lines / 10 {
        s += &unit(i);
    }
    s
}

fn time(runs: usize, f: impl Fn()) -> (Duration, Duration) {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    t.sort();
    (t[0], t[runs / 2])
}

/// A log of `MLIR_ENABLE_DUMP=1` as long as a large kernel's: the checked-in
/// log of one small kernel's compilation, 50 times over (every pass's dump
/// of the module, 50 kernels' worth). `check` analyses its last TritonGPU
/// dump.
fn dump_log() -> String {
    let one = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/kernels/cumsum_1d_sm80.dump.log"
    ))
    .expect("the checked-in dump log");
    one.repeat(50)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it once.
    let quick = !std::env::args().any(|a| a == "--bench");
    let binary = env!("CARGO_BIN_EXE_layoutc");
    let dir = std::env::temp_dir().join("layoutc-bench");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let files = [
        ("spec5000.lay", "5,000 lines", spec(5_000)),
        ("spec50000.lay", "50,000 lines", spec(50_000)),
        ("dump50.log", "a 23 MB MLIR_ENABLE_DUMP log", dump_log()),
    ];
    for (name, what, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("the file is written");
        let check = || {
            let out = Command::new(binary)
                .args(["check", path.to_str().expect("UTF-8 path")])
                .output()
                .expect("layoutc runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        };
        let runs = if quick { 1 } else { 10 };
        let (min, median) = time(runs, check);
        println!(
            "layoutc check, {what}: min {:.3} s, median {:.3} s ({runs} runs)",
            min.as_secs_f64(),
            median.as_secs_f64()
        );
        println!("  hyperfine '{binary} check {}'", path.display());
    }
}
