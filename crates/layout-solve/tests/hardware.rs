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

use crate::common;

use layout_algebra::bank::Direction;
use layout_algebra::machine::Vendor;
use layout_solve::{Cancel, Family, InstructionPolicy, solve_swizzle};

/// The `own` kernels were run on an H100 and, again, on an H200: both
/// must agree with the baseline alike.
#[test]
fn triton_own_convert_costs_on_an_h100_what_the_baseline_says() {
    own_convert_agreement("hw_sm90_wavefronts.json");
}

#[test]
fn triton_own_convert_costs_on_an_h200_what_the_baseline_says() {
    own_convert_agreement("hw_sm90_answers.json");
}

fn own_convert_agreement(file: &str) {
    let pairs = layout_test_support::corpus_pairs();
    let machine = common::preset("sm90");
    let (mut kernels, mut accesses, mut agree, mut per_instruction) = (0, 0, 0, 0);
    let mut wrong_instruction = Vec::new();
    let mut differences = Vec::new();
    for k in layout_test_support::hw_kernels(file) {
        if k.kind != "own" || k.hw.is_none() {
            continue;
        }
        kernels += 1;
        let p = &pairs[&k.pair];
        let req = common::request(
            &common::layout(&p.src),
            &common::layout(&p.dst),
            p.bits,
            machine.clone(),
            Family::Linear,
            InstructionPolicy::Best,
        );
        let name = &k.pair;
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let base = sol
            .baseline
            .unwrap_or_else(|| panic!("{name}: no baseline"));
        for cost in &base.accesses {
            accesses += 1;
            let store = cost.direction == Direction::Store;
            let what = if store { "store" } else { "load" };
            let mnemonic = cost
                .instruction
                .mnemonic(cost.direction, Vendor::Nvidia, p.bits)
                .to_string();
            if k.ptx_shared_opcodes.get(&mnemonic).copied().unwrap_or(0) == 0 {
                wrong_instruction.push(format!(
                    "{name} {what}: {mnemonic}, PTX has {:?}",
                    k.ptx_shared_opcodes
                ));
                continue;
            }
            let model = cost.counts.wavefronts * k.num_warps;
            let measured = k.measured_wavefronts(store).unwrap();
            if model == measured {
                agree += 1;
            } else if !k.sass_runs.is_empty()
                && k.sass_runs
                    .iter()
                    .all(|r| r.wavefronts_past_exits(store, k.num_warps) == model)
            {
                // Per SASS instruction the GPU's count is the baseline's
                // (see hardware_wavefronts.rs).
                per_instruction += 1;
            } else {
                differences.push(format!(
                    "{name} {what}: {mnemonic}, {model} counted, {measured} measured"
                ));
            }
        }
    }
    eprintln!(
        "{file}: {kernels} kernels: {agree} of {accesses} accesses cost what the GPU measured, {per_instruction} more per SASS instruction"
    );
    for d in &differences {
        eprintln!("  {d}");
    }
    assert!(kernels >= 290, "{kernels} kernels");
    // Every instruction is the kernel's: where Triton's conversion goes
    // through its buffer in rounds, each ldmatrix moves one round's
    // matrices (blocked_random_0372: 8 rounds, `8 x ldmatrix...x1`).
    assert!(wrong_instruction.is_empty(), "{wrong_instruction:#?}");
    assert!(agree >= 600, "{agree} of {accesses}: {differences:#?}");
    // Every other one per SASS instruction: the totals also hold loads of
    // warps that exit early and wavefronts of no instruction.
    assert!(differences.is_empty(), "{differences:#?}");
}
