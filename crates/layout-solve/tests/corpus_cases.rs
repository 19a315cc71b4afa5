//! The regression corpus pair by pair: 513 write/read pairs made with the
//! Triton 3.9.0 wheel (tests/vectors/triton/gen_swizzle_corpus.py). For
//! each, the answer in the linear family is never worse than Triton's own
//! swizzle (scored by the same bank model), never below its own lower
//! bound, and proved optimal.

use libtest_mimic::Trial;
use serde_json::Value;

use crate::common;
use layout_solve::{Cancel, Family, InstructionPolicy, Status, solve_swizzle};

/// Every pair as a test of its own, `solve_corpus/NAME`.
pub fn trials() -> Vec<Trial> {
    let v = common::vectors("triton/swizzle_corpus.json");
    let pairs = v["pairs"].as_array().unwrap().clone();
    let n = pairs.len();
    let mut out = vec![Trial::test("solve_corpus/at_least_300", move || {
        if n >= 300 {
            Ok(())
        } else {
            Err(format!("{n} pairs").into())
        }
    })];
    out.extend(pairs.into_iter().map(|p| {
        let name = format!("solve_corpus/{}", p["name"].as_str().unwrap_or("?"));
        Trial::test(name, move || check_pair(&p).map_err(Into::into))
    }));
    out
}

fn check_pair(p: &Value) -> Result<(), String> {
    let src = common::layout(&p["src"]);
    let dst = common::layout(&p["dst"]);
    let bits = p["bits"].as_u64().unwrap() as u32;
    let req = common::request(
        &src,
        &dst,
        bits,
        common::machine_for(p["target"].as_str().unwrap()),
        Family::Linear,
        InstructionPolicy::Best,
    );
    let sol = solve_swizzle(&req, &Cancel::new()).map_err(|e| e.to_string())?;
    let score = sol.score.as_ref().ok_or("no answer")?;
    let base = sol
        .baseline
        .as_ref()
        .ok_or("no score for Triton's own swizzle")?;
    if score.weighted > base.weighted {
        return Err(format!(
            "{} wavefronts, Triton's swizzle {}",
            score.weighted, base.weighted
        ));
    }
    if let Some(b) = sol.lower_bound
        && score.weighted < b.weighted
    {
        return Err(format!("below its own bound {b:?}: {:?}", sol.accesses));
    }
    if sol.status != Status::Optimal {
        return Err(format!("not proved optimal: {}", sol.why));
    }
    Ok(())
}
