//! "Triton's own swizzle" beside an answer is what Triton's own
//! `convert_layout` costs on a GPU.
//!
//! `tests/vectors/triton/hw_sm90_wavefronts.json` holds, for every pair of
//! the swizzle corpus that Triton lowers through shared memory, the
//! `convert_layout` kernel the Triton 3.9 wheel compiled for sm90 (kind
//! `own`), run once (one CTA) on an NVIDIA H100 under Nsight Compute, which
//! counted the shared-memory wavefronts of every warp. The solver's
//! baseline — Triton's swizzle, with the instructions Triton emits for it —
//! must name an instruction the kernel's PTX has, and its wavefronts times
//! the warps must be the measured ones; the differences left are printed,
//! and the count of agreements may only grow.

mod common;

use std::collections::BTreeMap;

use layout_algebra::bank::Direction;
use layout_algebra::machine::Vendor;
use layout_solve::{Cancel, Family, InstructionPolicy, solve_swizzle};

/// The `own` kernels were run on an H100 and, again, on an H200: both
/// must agree with the baseline alike.
#[test]
fn triton_own_convert_costs_on_an_h100_what_the_baseline_says() {
    own_convert_agreement("triton/hw_sm90_wavefronts.json");
}

#[test]
fn triton_own_convert_costs_on_an_h200_what_the_baseline_says() {
    own_convert_agreement("triton/hw_sm90_answers.json");
}

fn own_convert_agreement(file: &str) {
    let hw = common::vectors(file);
    let corpus = common::vectors("triton/swizzle_corpus.json");
    let pairs: BTreeMap<&str, &serde_json::Value> = corpus["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p))
        .collect();
    let machine = common::preset("sm90");
    let (mut kernels, mut accesses, mut agree) = (0, 0, 0);
    let mut wrong_instruction = Vec::new();
    let mut differences = Vec::new();
    for k in hw["kernels"].as_array().unwrap() {
        if k["kind"] != "own" || k.get("hw").is_none() {
            continue;
        }
        kernels += 1;
        let name = k["pair"].as_str().unwrap();
        let p = pairs[name];
        let bits = p["bits"].as_u64().unwrap() as u32;
        let req = common::request(
            &common::layout(&p["src"]),
            &common::layout(&p["dst"]),
            bits,
            machine.clone(),
            Family::Linear,
            InstructionPolicy::Best,
        );
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let base = sol
            .baseline
            .unwrap_or_else(|| panic!("{name}: no baseline"));
        let warps = k["num_warps"].as_u64().unwrap();
        for cost in &base.accesses {
            accesses += 1;
            let (metric, what) = match cost.direction {
                Direction::Store => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st", "store"),
                Direction::Load => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "load"),
            };
            let mnemonic = cost
                .instruction
                .mnemonic(cost.direction, Vendor::Nvidia, bits)
                .to_string();
            if k["ptx_shared_opcodes"][mnemonic.as_str()]
                .as_u64()
                .unwrap_or(0)
                == 0
            {
                wrong_instruction.push(format!(
                    "{name} {what}: {mnemonic}, PTX has {}",
                    k["ptx_shared_opcodes"]
                ));
                continue;
            }
            let model = cost.counts.wavefronts * warps;
            let measured = k["hw"][metric].as_u64().unwrap();
            if model == measured {
                agree += 1;
            } else {
                differences.push(format!(
                    "{name} {what}: {mnemonic}, {model} counted, {measured} measured"
                ));
            }
        }
    }
    eprintln!(
        "{file}: {kernels} kernels: {agree} of {accesses} accesses cost what the GPU measured"
    );
    for d in &differences {
        eprintln!("  {d}");
    }
    assert!(kernels >= 290, "{kernels} kernels");
    // FIXME: three loads where Triton takes fewer matrices per ldmatrix than
    // layoutc's choice (or none for 8-bit elements); how Triton picks the
    // count is not modelled yet.
    assert_eq!(wrong_instruction.len(), 3, "{wrong_instruction:#?}");
    assert!(agree >= 592, "{agree} of {accesses}: {differences:#?}");
}
