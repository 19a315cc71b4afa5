//! What the solver claims for an answer is what the compiled kernel does.
//!
//! `tests/vectors/triton/ptx_answers.json` (gen_ptx_answers.py) holds
//! problems drawn apart from the swizzle corpus (8- to 64-bit elements, 1 to
//! 16 warps, sm80 and sm90, 2 to 4 accesses), each answer `layoutc solve`
//! gave in the linear, triton and padded families compiled by the Triton 3.9
//! wheel into a kernel that does the accesses in order on a buffer in that
//! layout, and for 2-access problems Triton's own `convert_layout`. Every
//! thread's PTX was run by an interpreter of its address arithmetic: per
//! access and per warp, the instructions the warp issues, their wavefronts
//! and the lanes whose address is misaligned for the bytes they move.
//!
//! Each stored answer is scored again by the solver as it is now; every
//! access must name the instruction of every warp, as many of them, and the
//! wavefronts of the worst warp (CONTRACT §4), and no lane may be misaligned.

use crate::common;

use std::collections::BTreeMap;

use layout_algebra::bank::Direction;
use layout_algebra::machine::Vendor;
use layout_solve::{
    AccessCost, AccessRequest, Cancel, Family, InstructionPolicy, Problem, SwizzleRequest,
    solve_swizzle,
};
use serde_json::Value;

fn problems() -> Vec<Value> {
    layout_test_support::vectors("triton/ptx_answers.json")["problems"]
        .as_array()
        .unwrap()
        .clone()
}

/// The problem's accesses, in order, on its target.
fn request(problem: &Value) -> SwizzleRequest {
    let accesses: Vec<AccessRequest> = problem["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let write = a["direction"] == "write";
            AccessRequest {
                label: a["direction"].as_str().unwrap().into(),
                direction: if write {
                    Direction::Store
                } else {
                    Direction::Load
                },
                layout: common::layout(&a["ll"]),
                weight: 1,
            }
        })
        .collect();
    let mut req = common::request(
        &accesses[0].layout,
        &accesses[1].layout,
        problem["bits"].as_u64().unwrap() as u32,
        common::preset(problem["target"].as_str().unwrap()),
        Family::Linear,
        InstructionPolicy::Best,
    );
    req.accesses = accesses;
    req
}

/// One warp's part of one access in the compiled kernel.
struct WarpAccess {
    instructions: BTreeMap<String, u64>,
    wavefronts: u64,
    misaligned: u64,
}

fn warp_access(v: &Value) -> WarpAccess {
    WarpAccess {
        instructions: v["instructions"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, n)| (k.clone(), n.as_u64().unwrap()))
            .collect(),
        wavefronts: v["wavefronts"].as_u64().unwrap(),
        misaligned: v["misaligned"].as_u64().unwrap(),
    }
}

/// The kernel's accesses: per stretch of the PTX between barriers, per warp.
fn compiled(kernel: &Value) -> Vec<Vec<WarpAccess>> {
    kernel["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_array().unwrap().iter().map(warp_access).collect())
        .collect()
}

/// The instructions one warp issues for an access, as the PTX spells them.
fn claimed(cost: &AccessCost, bits: u32) -> BTreeMap<String, u64> {
    let mnemonic = cost
        .instruction
        .mnemonic(cost.direction, Vendor::Nvidia, bits);
    BTreeMap::from([(mnemonic.to_string(), cost.counts.instructions)])
}

/// How an access's claim differs from every warp of the compiled kernel.
fn difference(cost: &AccessCost, warps: &[WarpAccess], bits: u32) -> Option<String> {
    let claimed = claimed(cost, bits);
    if let Some(w) = warps.iter().find(|w| w.instructions != claimed) {
        return Some(format!(
            "instructions {claimed:?}, PTX {:?}",
            w.instructions
        ));
    }
    let worst = warps.iter().map(|w| w.wavefronts).max().unwrap_or(0);
    (worst != cost.counts.wavefronts).then(|| {
        format!(
            "{claimed:?}: {} wavefronts claimed, the worst warp takes {worst}",
            cost.counts.wavefronts
        )
    })
}

#[test]
fn answers_cost_what_their_compiled_kernels_do_in_every_warp() {
    let problems = problems();
    let (mut answers, mut accesses, mut agree) = (0, 0, 0);
    let mut misaligned = Vec::new();
    let mut differ = Vec::new();
    let mut covered = BTreeMap::<String, usize>::new();
    for p in &problems {
        let name = p["name"].as_str().unwrap();
        let bits = p["bits"].as_u64().unwrap() as u32;
        let req = request(p);
        let problem = Problem::new(&req).unwrap();
        for k in p["kernels"].as_array().unwrap() {
            if k["kind"] == "own" || k.get("accesses").is_none() {
                continue;
            }
            answers += 1;
            let kind = k["kind"].as_str().unwrap();
            let candidate = common::answer_candidate(&k["layoutc"], &req.tensor);
            let score = problem
                .score(&candidate)
                .unwrap_or_else(|| panic!("{name} {kind}: the answer no longer scores"));
            let stretches = compiled(k);
            assert_eq!(
                stretches.len(),
                score.accesses.len(),
                "{name} {kind}: one stretch of PTX per access"
            );
            for (i, (cost, warps)) in score.accesses.iter().zip(&stretches).enumerate() {
                accesses += 1;
                for class in [
                    format!("{} warps", warps.len()),
                    format!("{bits}-bit"),
                    format!("{} accesses", score.accesses.len()),
                    format!("{} {kind}", p["target"].as_str().unwrap()),
                ] {
                    *covered.entry(class).or_default() += 1;
                }
                let bad: u64 = warps.iter().map(|w| w.misaligned).sum();
                if bad > 0 {
                    misaligned.push(format!("{name} {kind} access {i}: {bad} lanes"));
                }
                match difference(cost, warps, bits) {
                    None => agree += 1,
                    Some(d) => differ.push(format!("{name} {kind} access {i}: {d}")),
                }
            }
        }
    }
    eprintln!("{agree} of {accesses} accesses of {answers} answers cost what the PTX does");
    for d in &differ {
        eprintln!("  {d}");
    }
    eprintln!("{covered:?}");
    assert!(problems.len() >= 300, "{} problems", problems.len());
    assert!(answers >= 950, "{answers} answers compiled");
    // Every class the corpus is drawn from is there, many times over.
    let at_least = |class: String, n: usize| {
        assert!(
            covered.get(&class).copied().unwrap_or(0) >= n,
            "{class}: {covered:?}"
        );
    };
    for warps in [1, 2, 4, 8, 16] {
        at_least(format!("{warps} warps"), 300);
    }
    for bits in [8, 16, 32, 64] {
        at_least(format!("{bits}-bit"), 300);
    }
    for n in [2, 3, 4] {
        at_least(format!("{n} accesses"), 300);
    }
    for target in ["sm80", "sm90"] {
        for kind in ["linear", "triton", "padded"] {
            at_least(format!("{target} {kind}"), 300);
        }
    }
    // No answer may need a misaligned access in any warp.
    assert!(misaligned.is_empty(), "{misaligned:#?}");
    assert!(differ.is_empty(), "{} differ: {differ:#?}", differ.len());
}

/// The "Triton's own" figure beside an answer is what Triton's own
/// `convert_layout` compiles to: per direction, the instructions of every
/// warp (all rounds of the conversion together) and the worst warp's
/// wavefronts.
#[test]
fn the_baseline_costs_what_tritons_own_convert_compiles_to() {
    let (mut converts, mut agree) = (0, 0);
    let mut differ = Vec::new();
    for p in problems() {
        let Some(own) = p["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kind"] == "own" && k.get("accesses").is_some())
        else {
            continue;
        };
        let stretches = compiled(own);
        if stretches.is_empty() {
            continue; // lowered without shared memory
        }
        converts += 1;
        let name = p["name"].as_str().unwrap();
        let bits = p["bits"].as_u64().unwrap() as u32;
        let req = request(&p);
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let base = sol
            .baseline
            .unwrap_or_else(|| panic!("{name}: no baseline"));
        let mut same = true;
        for cost in &base.accesses {
            let store = cost.direction == Direction::Store;
            // Each warp's instructions of this direction over every round.
            let warps = stretches[0].len();
            let per_warp: Vec<WarpAccess> = (0..warps)
                .map(|w| {
                    let mut sum = WarpAccess {
                        instructions: BTreeMap::new(),
                        wavefronts: 0,
                        misaligned: 0,
                    };
                    for s in &stretches {
                        let part = &s[w];
                        let stores = part.instructions.keys().any(|op| op.starts_with("st"));
                        if stores != store {
                            continue;
                        }
                        for (op, n) in &part.instructions {
                            *sum.instructions.entry(op.clone()).or_default() += n;
                        }
                        sum.wavefronts += part.wavefronts;
                        sum.misaligned += part.misaligned;
                    }
                    sum
                })
                .collect();
            if let Some(d) = difference(cost, &per_warp, bits) {
                differ.push(format!("{name} {:?}: {d}", cost.direction));
                same = false;
            }
        }
        agree += usize::from(same);
    }
    eprintln!("{agree} of {converts} own converts cost what the baseline says");
    for d in &differ {
        eprintln!("  {d}");
    }
    assert!(
        converts >= 100,
        "{converts} own converts through shared memory"
    );
    assert!(differ.is_empty(), "{} differ: {differ:#?}", differ.len());
}
