//! The optimal-swizzle cases of Triton's SwizzleTest: the answer is
//! conflict-free both ways, proved optimal, re-counted by enumeration, and
//! never worse than Triton's own choice.

use crate::common;

use layout_solve::{Cancel, Family, InstructionPolicy, Status, solve_swizzle};

#[test]
fn triton_swizzle_property_cases_are_conflict_free_and_optimal() {
    let v = common::vectors("reference/triton/swizzle_vectors.json");
    let cases = v["swizzle_property"].as_array().unwrap();
    assert_eq!(cases.len(), 7);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let src = common::layout(&case["src"]);
        let dst = common::layout(&case["dst"]);
        let bits = case["bitwidth"].as_u64().unwrap() as u32;
        let banks = case["numBanks"].as_u64().unwrap() as u32;
        let warp = src.in_dim_size("lane") as u32;
        let req = common::request(
            &src,
            &dst,
            bits,
            common::plain_machine(banks, warp),
            Family::Linear,
            InstructionPolicy::Vector,
        );
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let score = sol.score.as_ref().unwrap();
        eprintln!(
            "{name}: {:?} {:?} bound {:?} base {:?} {:?}",
            sol.status,
            sol.accesses,
            sol.lower_bound,
            sol.baseline
                .as_ref()
                .map(|b| (b.weighted, b.read_conflicts(), b.write_conflicts())),
            sol.elapsed
        );
        assert_eq!(sol.status, Status::Optimal, "{name}: {}", sol.why);
        assert_eq!(
            (score.read_conflicts(), score.write_conflicts()),
            (0, 0),
            "{name}"
        );
        let bound = sol.lower_bound.unwrap();
        assert_eq!(score.weighted, bound.weighted, "{name}");
        if let Some(base) = &sol.baseline {
            assert!(score.key() <= base.key(), "{name}: worse than Triton's");
        }
    }
}
