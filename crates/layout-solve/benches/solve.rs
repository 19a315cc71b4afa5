//! Solve time per problem, as a user waits for it: the 513 write/read pairs
//! of the regression corpus (the GF(2) path: construction and bound), the
//! same pairs through Triton's own swizzle search (the baseline ported in
//! layout-algebra, and the wheel's figures that
//! `benches/triton/time_triton_swizzle.py` recorded), and four-access
//! requests that need Z3. Prints median, p99 and max.
//! `cargo bench -p layout-solve --bench solve` (`-- corpus`: the corpus pairs only).

use std::time::{Duration, Instant};

// The allocator of the `layoutc` binary, so the figures are what a user of
// `layoutc solve` waits for.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use layout_algebra::LinearLayout;
use layout_algebra::bank::{Direction, TensorDims};
use layout_algebra::machine::SharedInstructions;
use layout_algebra::triton::convert_layout::optimal_swizzling;
use layout_solve::{
    AccessRequest, Cancel, Family, InstructionPolicy, Machine, SwizzleRequest, solve_swizzle,
};
use layout_test_support::{layout, random_access};
use serde_json::Value;

fn request(
    accesses: Vec<(Direction, LinearLayout)>,
    bits: u32,
    machine: Machine,
) -> SwizzleRequest {
    let tensor: TensorDims = accesses[0].1.out_dims();
    SwizzleRequest {
        tensor,
        element_bits: bits,
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
        machine,
        min_vector_bits: None,
        budget_bytes: None,
        fixed: Vec::new(),
        timeout: Duration::from_secs(10),
        cute_base: None,
    }
}

/// Runs of each corpus pair; the median is its figure, as the wheel's
/// figures are medians of 21 runs.
const REPEATS: usize = 7;

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "{what:<52} n={:<4} median {:>9.3} ms   p99 {:>9.3} ms   max {:>9.3} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    );
}

/// One xorshift step of `state` per call.
fn xorshift(state: &mut u64) -> impl FnMut() -> u64 + '_ {
    move || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }
}

fn main() {
    let corpus = layout_test_support::vectors("triton/swizzle_corpus.json");
    let wheel_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benches/triton/triton_swizzle_timings.json"
    );
    let wheel: Value = serde_json::from_str(&std::fs::read_to_string(wheel_path).unwrap()).unwrap();
    let wheel_ns = |name: &str| {
        wheel["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map(|r| Duration::from_nanos(r["swizzle_ns"].as_u64().unwrap()))
    };
    let (mut ours, mut first, mut triton, mut in_wheel, mut ratios) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in corpus["pairs"].as_array().unwrap() {
        let preset =
            layout_algebra::machine::preset_for_triton_target(p["target"].as_str().unwrap())
                .unwrap();
        let machine = Machine::from_preset(preset);
        let bits = p["bits"].as_u64().unwrap() as u32;
        let (src, dst) = (layout(&p["src"]), layout(&p["dst"]));
        let req = request(
            vec![
                (Direction::Store, src.clone()),
                (Direction::Load, dst.clone()),
            ],
            bits,
            machine.clone(),
        );
        // As the wheel's figures are taken: the median of repeated runs
        // of the pair (the first also alone: a one-shot `layoutc solve`
        // lists the families afresh).
        let mut runs: Vec<Duration> = (0..REPEATS)
            .map(|_| {
                let t = Instant::now();
                let sol = solve_swizzle(&req, &Cancel::new()).unwrap();
                let elapsed = t.elapsed();
                assert!(sol.score.is_some());
                elapsed
            })
            .collect();
        first.push(runs[0]);
        runs.sort();
        let elapsed = runs[REPEATS / 2];
        ours.push(elapsed);
        if let Some(wheel) = wheel_ns(p["name"].as_str().unwrap()) {
            in_wheel.push(wheel);
            ratios.push(elapsed.as_secs_f64() / wheel.as_secs_f64().max(1e-9));
        }
        let strip =
            |l: &LinearLayout| layout_algebra::triton::strip_zero_register_bases(l).unwrap();
        let t = Instant::now();
        let _ = optimal_swizzling(
            &strip(&src),
            &strip(&dst),
            bits,
            SharedInstructions::SM90,
            machine.banks.banks,
        );
        triton.push(t.elapsed());
    }
    report("corpus pairs, layoutc solve (GF(2) path)", ours);
    report("corpus pairs, layoutc solve, first run of each", first);
    report("corpus pairs, Triton's optimalSwizzling (ported)", triton);
    report(
        "corpus pairs, Triton 3.9.0 wheel (allocation pass)",
        in_wheel,
    );
    ratios.sort_by(f64::total_cmp);
    println!(
        "layoutc solve / Triton wheel, per pair: median {:.1}x; layoutc faster on {} of {}",
        ratios[ratios.len() / 2],
        ratios.iter().filter(|&&r| r < 1.0).count(),
        ratios.len()
    );

    // `-- corpus` stops here (to profile the GF(2) path alone).
    if std::env::args().any(|a| a == "corpus") {
        return;
    }
    let machine = Machine::from_preset(layout_algebra::machine::preset("sm90").unwrap());
    let mut state = 0x2545f4914f6cdd1du64;
    let (mut z3, mut gf2) = (Vec::new(), Vec::new());
    // Most random requests are solved by construction; keep drawing until a
    // dozen need Z3.
    for _ in 0..600 {
        if z3.len() >= 12 {
            break;
        }
        let mut accesses = vec![(
            Direction::Store,
            random_access(&mut xorshift(&mut state), 32, 32, 0),
        )];
        for _ in 0..3 {
            accesses.push((
                Direction::Load,
                random_access(&mut xorshift(&mut state), 32, 32, 0),
            ));
        }
        let mut req = request(accesses, 32, machine.clone());
        req.instructions = InstructionPolicy::Vector;
        let t = Instant::now();
        let sol = solve_swizzle(&req, &Cancel::new()).unwrap();
        let e = t.elapsed();
        if sol.why.contains("Z3") || sol.why.contains("bank subspace") {
            z3.push(e);
        } else {
            gf2.push(e);
        }
    }
    report("four random accesses, solved by construction", gf2);
    if !z3.is_empty() {
        report("four random accesses, searched past the construction", z3);
    }

    z3_alone_on_the_corpus(&corpus);
    tile_searches();
}

/// The Z3 path over corpus pairs: Z3 alone, from the unswizzled layout,
/// for every pair of at most 4096 elements (where the construction needs
/// no Z3, this times what Z3 takes to find and prove the same optimum).
fn z3_alone_on_the_corpus(corpus: &Value) {
    let (mut times, mut timeouts) = (Vec::new(), 0);
    for p in corpus["pairs"].as_array().unwrap() {
        let elements: u64 = p["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .product();
        if elements > 4096 {
            continue;
        }
        let preset =
            layout_algebra::machine::preset_for_triton_target(p["target"].as_str().unwrap())
                .unwrap();
        let mut req = request(
            vec![
                (Direction::Store, layout(&p["src"])),
                (Direction::Load, layout(&p["dst"])),
            ],
            p["bits"].as_u64().unwrap() as u32,
            Machine::from_preset(preset),
        );
        req.instructions = InstructionPolicy::Vector;
        req.timeout = Duration::from_secs(2);
        let t = Instant::now();
        let (status, _) = layout_solve::solve_by_z3_alone(&req, &Cancel::new()).unwrap();
        times.push(t.elapsed());
        if status != layout_solve::Status::Optimal {
            timeouts += 1;
        }
    }
    println!("Z3 alone on corpus pairs of at most 4096 elements: {timeouts} reached the 2 s limit");
    report("corpus pairs <= 4096 elements, Z3 alone", times);
}

/// Tile-size searches over spaces too large to list (unit granules, a
/// tile of 2048..4096 elements, rank-2 arrays of two primes a side, so
/// no tile divides them and the floor never proves the answer).
fn tile_searches() {
    use layout_solve::tiling::solve_tiling;
    use layout_solve::{Status, TileMethod, TileSearch, TilingRequest};
    const PRIMES: [i64; 8] = [401, 509, 701, 907, 1201, 1601, 2003, 3001];
    let mut times = Vec::new();
    for (i, &a) in PRIMES.iter().enumerate() {
        for &b in PRIMES.iter().skip(i + 1).take(2) {
            let request = TilingRequest {
                element_type: "f32".into(),
                dims: vec![a, b],
                minor_dim: None,
                max_padded_bytes: None,
                candidate_tiles: Vec::new(),
                tile_search: Some(TileSearch {
                    multiple: vec![1, 1],
                    min_elements: Some(2048),
                    max_elements: Some(4096),
                    method: TileMethod::Auto,
                }),
                timeout: Duration::from_secs(10),
            };
            let t = Instant::now();
            let s = solve_tiling(&request, &Cancel::new()).unwrap();
            times.push(t.elapsed());
            assert_eq!(s.status, Status::Optimal, "{}", s.why);
        }
    }
    report("tile-size search, Z3 (unit granules, 2..4K)", times);
}
