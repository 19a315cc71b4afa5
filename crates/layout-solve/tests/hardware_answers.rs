//! The compiled answers of `compiled_answers.rs`, run on a GPU.
//!
//! `tests/vectors/triton/hw_sm90_ptx_answers.json` (gen_hw_ptx_answers.py,
//! measure_hw_sm90.sh, collect_hw.py) is what an H200 (sm90 shared memory,
//! as on an H100) counted for every kernel of `ptx_answers.json`: the
//! solver's answers in three families and Triton's own `convert_layout`,
//! each launched as one CTA under Nsight Compute (sm80 kernels from their
//! PTX, which the driver compiles for the GPU). `compiled_answers.rs`
//! requires the solver's claims to be the PTX's, warp by warp; this test
//! requires the PTX's count, summed over the CTA's warps, to be the GPU's:
//! shared-memory instructions executed and wavefronts served, for stores
//! and for loads. Where a kernel's totals differ, its counters were read
//! again per SASS instruction, twice (measure_hw_sass.sh), and those must be
//! the PTX's: the differences are warps that exit before their last load,
//! and wavefronts the GPU attributes to no instruction.

use std::collections::BTreeMap;

use layout_test_support::SassRun;
use serde_json::Value;

/// Instructions and wavefronts of one direction over a CTA's warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Count {
    instructions: u64,
    wavefronts: u64,
}

/// The interpreter's record of a compiled kernel, per direction (stores,
/// loads). `stmatrix` is left out of the instructions: Nsight Compute
/// counts it in no instruction metric this GPU has, but its wavefronts are
/// among the stores'.
fn from_ptx(kernel: &Value) -> [Count; 2] {
    let mut out = [Count::default(); 2];
    for stretch in kernel["accesses"].as_array().unwrap() {
        for warp in stretch.as_array().unwrap() {
            let instructions = warp["instructions"].as_object().unwrap();
            let stores = instructions.keys().any(|m| m.starts_with("st"));
            let side = &mut out[usize::from(!stores)];
            side.wavefronts += warp["wavefronts"].as_u64().unwrap();
            for (mnemonic, n) in instructions {
                assert_eq!(
                    mnemonic.starts_with("st"),
                    stores,
                    "one direction per stretch"
                );
                if !mnemonic.starts_with("stmatrix") {
                    side.instructions += n.as_u64().unwrap();
                }
            }
        }
    }
    out
}

/// What the GPU counted, per direction (stores, loads).
fn from_gpu(hw: &Value) -> [Count; 2] {
    let m = |name: &str| hw[name].as_u64().unwrap();
    [
        Count {
            instructions: m("smsp__inst_executed_op_shared_st"),
            wavefronts: m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"),
        },
        Count {
            instructions: m("smsp__inst_executed_op_shared_ld") + m("smsp__inst_executed_op_ldsm"),
            wavefronts: m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"),
        },
    ]
}

/// One run of the per-instruction counters, per direction (stores,
/// loads), as if every warp ran past the early exits
/// (`SassCount::past_exits`). `stmatrix` is left out of the instructions,
/// as in `from_ptx`.
fn from_sass(run: &SassRun, warps: u64) -> [Count; 2] {
    let mut counts = [Count::default(); 2];
    for i in &run.sass_shared {
        let side = &mut counts[usize::from(!i.opcode().starts_with("STS"))];
        let (executed, wavefronts) = i.past_exits(warps);
        side.wavefronts += wavefronts;
        if !i.opcode().starts_with("STSM") {
            side.instructions += executed;
        }
    }
    counts
}

#[test]
fn compiled_answers_cost_on_the_gpu_what_their_ptx_does() {
    let problems: BTreeMap<String, Value> = layout_test_support::vectors("triton/ptx_answers.json")
        ["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p.clone()))
        .collect();
    let measured = layout_test_support::vectors("triton/hw_sm90_ptx_answers.json");
    let kernels = measured["kernels"].as_array().unwrap();
    let (mut exact, mut per_instruction) = (0, 0);
    let mut skipped_loads = Vec::new();
    let mut unattributed = Vec::new();
    let mut wrong = Vec::new();
    let mut classes = BTreeMap::<String, usize>::new();
    for k in kernels {
        let name = format!(
            "{}.{}",
            k["pair"].as_str().unwrap(),
            k["kind"].as_str().unwrap()
        );
        assert!(k.get("fault").is_none(), "{name}: {}", k["fault"]);
        let problem = &problems[k["pair"].as_str().unwrap()];
        let kernel = problem["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["kind"] == k["kind"])
            .unwrap_or_else(|| panic!("{name}: not in ptx_answers.json"));
        for class in [
            format!("{} warps", problem["num_warps"]),
            format!("{}-bit", problem["bits"]),
            problem["target"].as_str().unwrap().to_string(),
        ] {
            *classes.entry(class).or_default() += 1;
        }
        let ptx = from_ptx(kernel);
        let gpu = from_gpu(&k["hw"]);
        if ptx == gpu {
            exact += 1;
            continue;
        }
        // Where the totals differ, the counters per SASS instruction must
        // be the PTX's, in every run.
        let warps = problem["num_warps"].as_u64().unwrap();
        let Some(runs) = k
            .get("sass_runs")
            .map(|r| serde_json::from_value::<Vec<SassRun>>(r.clone()).unwrap())
        else {
            wrong.push(format!(
                "{name}: PTX {ptx:?}, GPU {gpu:?}, and no counters per instruction"
            ));
            continue;
        };
        assert!(runs.len() >= 2, "{name}: {} runs", runs.len());
        per_instruction += 1;
        for run in &runs {
            let counts = from_sass(run, warps);
            if counts != ptx {
                wrong.push(format!(
                    "{name}: PTX {ptx:?}, per SASS instruction {counts:?}"
                ));
            }
            let skipped = run.skipped_loads(warps);
            if skipped > 0 {
                skipped_loads.push(format!("{name}: {skipped} loads"));
            }
            let (stores, loads) = (run.unattributed(true), run.unattributed(false));
            if stores + loads > 0 {
                unattributed.push(format!(
                    "{name}: {stores} store and {loads} load wavefronts, PTX {ptx:?}"
                ));
                // A few: at most a tenth of the direction's.
                assert!(
                    10 * stores <= ptx[0].wavefronts && 10 * loads <= ptx[1].wavefronts,
                    "{name}: {stores} + {loads} wavefronts of no instruction"
                );
            }
        }
    }
    eprintln!(
        "{exact} of {} kernels: the GPU's totals are the PTX's; {per_instruction} others per SASS instruction",
        kernels.len()
    );
    eprintln!(
        "runs where warps exit before a load: {}",
        skipped_loads.len()
    );
    for d in skipped_loads.iter().take(5) {
        eprintln!("  {d}");
    }
    eprintln!(
        "runs with wavefronts no instruction took: {}",
        unattributed.len()
    );
    for d in &unattributed {
        eprintln!("  {d}");
    }
    eprintln!("{classes:?}");
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(kernels.len() >= 1150, "{} kernels measured", kernels.len());
    for class in [
        "1 warps", "2 warps", "4 warps", "8 warps", "16 warps", "8-bit", "16-bit", "32-bit",
        "64-bit", "sm80", "sm90",
    ] {
        assert!(
            classes.get(class).copied().unwrap_or(0) >= 100,
            "{class}: {classes:?}"
        );
    }
    // 95% as they stand; every other one per instruction.
    assert!(exact >= 1114, "{exact} of {}", kernels.len());
}
