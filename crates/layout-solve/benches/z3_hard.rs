//! The hard sets for the search past the construction: four random accesses
//! (one store, three loads) to an fp16 tensor on sm90 with `instructions =
//! best` (32x32 with one warp; 32x128 and 32x512 with four), drawn from a
//! fixed seed until 34 are problems the greedy construction leaves short of
//! the lower bound, so the plans must be searched and the answer proved.
//! Each is solved with the 2 s limit a `solve` block has by default; prints
//! the statuses, median, p90 and max of the whole solve. `cargo bench -p layout-solve --bench z3_hard`.

use std::time::{Duration, Instant};

use layout_algebra::LinearLayout;
use layout_algebra::bank::{Direction, TensorDims};
use layout_solve::{
    AccessRequest, Cancel, Family, InstructionPolicy, Machine, SwizzleRequest, solve_swizzle,
};
use layout_test_support::random_access;

const HARD: usize = 34;

/// One xorshift step of `state` per call.
fn xorshift(state: &mut u64) -> impl FnMut() -> u64 + '_ {
    move || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }
}

fn request(accesses: Vec<(Direction, LinearLayout)>, machine: &Machine) -> SwizzleRequest {
    let tensor: TensorDims = accesses[0].1.out_dims();
    SwizzleRequest {
        tensor,
        element_bits: 16,
        accesses: accesses
            .into_iter()
            .map(|(direction, layout)| AccessRequest {
                label: String::new(),
                direction,
                layout,
                weight: 1,
            })
            .collect(),
        family: Family::Linear,
        instructions: InstructionPolicy::Best,
        machine: machine.clone(),
        min_vector_bits: None,
        budget_bytes: None,
        fixed: Vec::new(),
        timeout: Duration::from_secs(2),
        cute_base: None,
    }
}

fn main() {
    // 32x32 with one warp (the set), 32x128 and 32x512 with four.
    for (row_bits, warp_bits) in [(5, 0), (7, 2), (9, 2)] {
        hard_set(row_bits, warp_bits);
    }
}

fn hard_set(row_bits: u32, warp_bits: u32) {
    let machine = Machine::from_preset(layout_algebra::machine::preset("sm90").unwrap());
    let mut state = 0x9e3779b97f4a7c15u64;
    let (mut times, mut statuses, mut drawn) = (Vec::new(), std::collections::BTreeMap::new(), 0);
    while times.len() < HARD && drawn < 5000 {
        drawn += 1;
        let mut accesses = vec![(
            Direction::Store,
            random_access(&mut xorshift(&mut state), 32, 1 << row_bits, warp_bits),
        )];
        for _ in 0..3 {
            accesses.push((
                Direction::Load,
                random_access(&mut xorshift(&mut state), 32, 1 << row_bits, warp_bits),
            ));
        }
        let req = request(accesses, &machine);
        let t = Instant::now();
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap();
        let elapsed = t.elapsed();
        // The construction stopped short of the bound: the exact search
        // of the plans, then Z3 for what it leaves, had to run.
        if !(sol.why.contains("Z3") || sol.why.contains("bank subspace")) {
            continue;
        }
        times.push(elapsed);
        *statuses.entry(format!("{:?}", sol.status)).or_insert(0) += 1;
        if std::env::var_os("Z3_HARD_VERBOSE").is_some() {
            println!(
                "#{drawn}: {:?} in {:.0} ms: {}",
                sol.status,
                elapsed.as_secs_f64() * 1e3,
                sol.why
            );
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "four accesses, 32x{} fp16, {} warp(s): drawn {drawn}, {} past the construction; {statuses:?}",
        1 << row_bits,
        1 << warp_bits,
        times.len()
    );
    println!(
        "    median {:.0} ms, p90 {:.0} ms, max {:.0} ms",
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    );
}
