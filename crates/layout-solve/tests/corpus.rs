//! The regression corpus: 513 write/read pairs made with the Triton 3.9.0
//! wheel (tests/vectors/triton/gen_swizzle_corpus.py). Pair by pair (never
//! worse than Triton's swizzle, proved optimal) in `corpus_cases.rs`; here,
//! what holds over the whole corpus.

use crate::common;

use layout_solve::{Cancel, Family, InstructionPolicy, Status, solve_swizzle};

/// The bound holds for every layout, not just the ones the solver builds:
/// random invertible layouts for the first 60 pairs never cost less.
#[test]
fn no_random_layout_beats_the_bound() {
    use layout_algebra::bank::OffsetMap;
    use layout_solve::{Candidate, Problem};
    let v = common::vectors("triton/swizzle_corpus.json");
    let mut rng = 0x9e3779b97f4a7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut scored = 0;
    for p in v["pairs"].as_array().unwrap().iter().step_by(8).take(60) {
        let src = common::layout(&p["src"]);
        let dst = common::layout(&p["dst"]);
        let req = common::request(
            &src,
            &dst,
            p["bits"].as_u64().unwrap() as u32,
            common::machine_for(p["target"].as_str().unwrap()),
            Family::Linear,
            InstructionPolicy::Best,
        );
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap();
        let bound = sol.lower_bound.unwrap().weighted;
        let problem = Problem::new(&req).unwrap();
        let n = problem.tensor_bits();
        for _ in 0..40 {
            // A random basis: unit vectors with random lower bits mixed in,
            // sometimes kept in order so vectors stay possible.
            let mut bases: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
            for i in 0..n as usize {
                let j = (next() % n as u64) as usize;
                bases.swap(i, j);
            }
            for (i, b) in bases.iter_mut().enumerate() {
                let mix = next() & ((1u64 << i) - 1);
                if next() % 3 == 0 {
                    *b ^= mix;
                }
            }
            let Some(map) = OffsetMap::from_offset_bases(&bases) else {
                continue;
            };
            if let Some(s) = problem.score(&Candidate::linear(map)) {
                scored += 1;
                assert!(
                    s.weighted >= bound,
                    "{}: {} < bound {bound}",
                    p["name"],
                    s.weighted
                );
            }
        }
    }
    assert!(scored > 1000, "{scored}");
}

/// Z3 alone, with no construction to start from, reaches the same optimum
/// as the GF(2) construction on a sample of the corpus (tensors of at most
/// 2048 elements, where Z3 takes about a second at most): two independent
/// computations of each pair's least wavefronts.
#[cfg(feature = "z3")]
#[test]
fn z3_alone_reaches_the_constructions_optimum() {
    let v = common::vectors("triton/swizzle_corpus.json");
    let pairs = v["pairs"].as_array().unwrap();
    let (mut agreed, mut timed_out) = (0, 0);
    let small = |p: &&serde_json::Value| {
        p["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .product::<u64>()
            <= 2048
    };
    for p in pairs.iter().filter(small).step_by(5).take(20) {
        let name = p["name"].as_str().unwrap();
        let mut req = common::request(
            &common::layout(&p["src"]),
            &common::layout(&p["dst"]),
            p["bits"].as_u64().unwrap() as u32,
            common::machine_for(p["target"].as_str().unwrap()),
            Family::Linear,
            InstructionPolicy::Vector,
        );
        req.timeout = std::time::Duration::from_secs(10);
        let constructed = solve_swizzle(&req, &Cancel::new()).unwrap();
        assert_eq!(constructed.status, Status::Optimal, "{name}");
        let best = constructed.score.unwrap().weighted;
        let (status, score) = layout_solve::solve_by_z3_alone(&req, &Cancel::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let score = score.unwrap_or_else(|| panic!("{name}: Z3 found nothing ({status:?})"));
        // Never below the proved optimum; equal once Z3 finishes.
        assert!(
            score.weighted >= best,
            "{name}: Z3 {} < {best}",
            score.weighted
        );
        if status == Status::Optimal {
            assert_eq!(score.weighted, best, "{name}");
            agreed += 1;
        } else {
            timed_out += 1;
        }
    }
    eprintln!("Z3 alone: {agreed} pairs at the optimum, {timed_out} out of time");
    assert!(
        agreed >= 16 && timed_out * 4 <= agreed,
        "{agreed} agreed, {timed_out} timed out"
    );
}
