//! The exact search of each plan's bank subspaces, against two independent
//! computations: Z3 alone (the matrix encoding, started from the
//! unswizzled layout, with a long time limit) and random layouts. The
//! problems are the kind the construction leaves short of the bound: four
//! random accesses (one store, three loads) to 16x32 fp16 and 32x32 fp32
//! tensors.

use crate::common;

use std::time::Duration;

use layout_algebra::bank::{Direction, OffsetMap};
use layout_solve::{
    AccessRequest, Cancel, Candidate, Family, InstructionPolicy, Problem, Status, SwizzleRequest,
    solve_swizzle,
};
use layout_test_support::random_access;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn request(rng: &mut Rng, rows: i64, bits: u32) -> SwizzleRequest {
    let accesses: Vec<AccessRequest> = (0..4)
        .map(|i| AccessRequest {
            label: format!("a{i}"),
            direction: if i == 0 {
                Direction::Store
            } else {
                Direction::Load
            },
            layout: random_access(&mut || rng.next(), 32, rows as u64, 0),
            weight: 1,
        })
        .collect();
    SwizzleRequest {
        tensor: accesses[0].layout.out_dims(),
        element_bits: bits,
        accesses,
        family: Family::Linear,
        instructions: InstructionPolicy::Best,
        machine: common::preset("sm90"),
        min_vector_bits: None,
        budget_bytes: None,
        fixed: Vec::new(),
        timeout: Duration::from_secs(2),
        cute_base: None,
    }
}

#[cfg(feature = "z3")]
#[test]
fn exact_search_agrees_with_z3_alone_and_random_layouts() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let (mut compared, mut z3_finished, mut drawn) = (0, 0, 0);
    while compared < 10 && drawn < 2000 {
        drawn += 1;
        let (rows, bits) = if drawn % 2 == 0 { (16, 16) } else { (32, 32) };
        let req = request(&mut rng, rows, bits);
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap();
        if !sol.why.contains("bank subspace") {
            continue;
        }
        compared += 1;
        assert_eq!(sol.status, Status::Optimal, "{}", sol.why);
        let best = sol.score.as_ref().unwrap().weighted;
        // Z3's matrix encoding, from the unswizzled layout: never below the
        // exact optimum, equal when it proves its answer.
        let mut slow = req.clone();
        slow.timeout = Duration::from_secs(20);
        let (status, score) = layout_solve::solve_by_z3_alone(&slow, &Cancel::new()).unwrap();
        let z3 = score.unwrap().weighted;
        assert!(z3 >= best, "Z3 found {z3} < the exact optimum {best}");
        if status == Status::Optimal {
            assert_eq!(z3, best, "Z3 proved {z3}, the exact search {best}");
            z3_finished += 1;
        }
        // No random layout beats it either.
        let problem = Problem::new(&req).unwrap();
        let n = problem.tensor_bits();
        for _ in 0..2000 {
            let mut bases: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
            for i in 0..n as usize {
                let j = (rng.next() % n as u64) as usize;
                bases.swap(i, j);
            }
            for (i, b) in bases.iter_mut().enumerate() {
                if rng.next().is_multiple_of(3) {
                    *b ^= rng.next() & ((1u64 << i) - 1);
                }
            }
            let Some(map) = OffsetMap::from_offset_bases(&bases) else {
                continue;
            };
            if let Some(s) = problem.score(&Candidate::linear(map)) {
                assert!(
                    s.weighted >= best,
                    "a random layout costs {} < {best}",
                    s.weighted
                );
            }
        }
    }
    eprintln!("{compared} problems compared, Z3 finished {z3_finished}");
    assert!(
        compared >= 10 && z3_finished >= 5,
        "{compared} compared, {z3_finished} proved by Z3"
    );
}
