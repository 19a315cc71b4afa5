//! Z3 over the basis matrix, for the linear family where the construction
//! stops short of the lower bound.
//!
//! Unknowns: the map `M` from tensor bits to offsets (one bit-vector per
//! tensor bit) and a matrix `N` with `N·M = I` (so `M` is invertible). For
//! one assignment of instructions (a [`Plan`]):
//! - each vectorising access has registers at offsets 1, 2, 4, ... and
//!   every other register and lane aligned to its vector (matrix
//!   instructions: their row at offsets 1, 2, 4, the rest aligned to 8);
//! - for every non-zero combination `c` of an access's phase vectors,
//!   `M(c)` lands in the word 0 (same word) or in bank 0 (same bank);
//!   with `N0` and `N1` those counts (plus one), the phase takes
//!   `N1 / N0` wavefronts — the rank formula, counted;
//! - the weighted wavefronts stay below the best answer found.
//!
//! Unsatisfiable for every plan whose bound is below the best proves the
//! best optimal. Every check has a time limit; [`crate::Cancel`] interrupts
//! one from a watcher thread. Z3 values never leave this thread.

use std::time::{Duration, Instant};

use layout_algebra::bank::{Instruction, OffsetMap};
use z3::ast::{BV, Bool};
use z3::{Context, Params, SatResult, Solver};

use crate::plan::{Plan, Plans};
use crate::request::SwizzleRequest;
use crate::score::{Candidate, Problem, Score};
use crate::{Cancel, Status};

enum Outcome {
    Found(OffsetMap),
    Unsat,
    Unknown,
}

/// Searches for answers cheaper than `best`: first the segment subspace of
/// each plan's frame (small and quick), then, where the bound is still not
/// met, the whole basis matrix (which also proves optimality).
pub(crate) fn improve(
    problem: &Problem,
    plans: &Plans,
    best: &mut Option<(Candidate, Score)>,
    request: &SwizzleRequest,
    cancel: &Cancel,
    deadline: Instant,
) -> (Status, String) {
    let global = if plans.complete {
        crate::bound::linear_bound(problem, &plans.list)
    } else {
        None
    };
    let met = |best: &Option<(Candidate, Score)>| matches!((best, &global), (Some((_, s)), Some(b)) if s.weighted <= b.weighted);
    let mut found = 0;
    for plan in &plans.list {
        if met(best) || cancel.is_cancelled() {
            break;
        }
        let Some(frame) = crate::linear::frame(problem, plan) else {
            continue;
        };
        if !frame.pinned_segment.is_empty() {
            continue;
        }
        loop {
            let limit = best.as_ref().map_or(u64::MAX, |(_, s)| s.weighted);
            let left = deadline.saturating_duration_since(Instant::now());
            if crate::bound::plan_bound(problem, plan).weighted >= limit || left.is_zero() {
                break;
            }
            let Some(segment) = segment_search(problem, plan, &frame, limit - 1, left, cancel)
            else {
                break;
            };
            let Some(map) = crate::linear::assemble(problem, plan, &frame, &segment) else {
                break;
            };
            let candidate = Candidate::linear(map);
            match problem.score(&candidate) {
                Some(s) if best.as_ref().is_none_or(|(_, b)| s.key() < b.key()) => {
                    *best = Some((candidate, s));
                    found += 1;
                }
                _ => break,
            }
        }
    }
    if met(best) {
        let cost = best.as_ref().map_or(0, |(_, s)| s.weighted);
        return (
            Status::Optimal,
            format!(
                "Z3 found a segment subspace the greedy construction missed; the layout costs {cost} weighted wavefronts, which meets the lower bound"
            ),
        );
    }
    let (status, why) = prove(problem, plans, best, request, cancel, deadline);
    if found > 0 && status != Status::Optimal {
        return (
            status,
            format!("{why}; Z3 improved the construction {found} time(s)"),
        );
    }
    (status, why)
}

/// Z3 picks the segment subspace of a plan's frame: `g` vectors in the span
/// of the complement (outside the word's bits), independent, such that the
/// weighted count of segment combinations inside each access's phase span
/// (plus the word) stays within `max_cost`. A combination `c` lies in
/// `U + W` exactly when every parity check of `U + W` vanishes on it, and
/// those counts are the `2^dim` of the rank formula, so the cost is linear
/// in them.
fn segment_search(
    problem: &Problem,
    plan: &Plan,
    frame: &crate::linear::Frame,
    max_cost: u64,
    time: Duration,
    cancel: &Cancel,
) -> Option<Vec<u64>> {
    let n = problem.tensor_bits();
    let in_word = frame
        .word
        .iter()
        .filter(|w| frame.complement.contains(w))
        .count();
    let basis = &frame.complement[in_word..];
    let d = basis.len() as u32;
    let g = frame.segment_len;
    if g == 0 || d == 0 || g > 10 {
        return None;
    }
    let phase = crate::plan::phase_spans(problem, plan);
    let fixed_cost: u64 = phase.unit_cost.iter().sum();
    if max_cost < fixed_cost || max_cost - fixed_cost > i32::MAX as u64 {
        return None;
    }
    // Parity checks of U + W, in the coordinates of `basis`.
    let checks: Vec<Vec<u64>> = phase
        .spans
        .iter()
        .map(|span| {
            let vectors: Vec<u64> = span.iter().chain(&frame.word).copied().collect();
            layout_algebra::f2::nullspace_basis(&vectors, n)
                .into_iter()
                .map(|h| {
                    basis
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| (h & **b).count_ones() % 2 == 1)
                        .fold(0u64, |acc, (j, _)| acc | 1 << j)
                })
                .filter(|&row| row != 0)
                .collect()
        })
        .collect();
    interruptible(cancel, || {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32(
            "timeout",
            time.as_millis().clamp(1, u32::MAX as u128) as u32,
        );
        solver.set_params(&params);
        let ys: Vec<BV> = (0..g).map(|i| BV::new_const(format!("g{i}"), d)).collect();
        let zero = BV::from_u64(0, d);
        let mut terms: Vec<(Bool, i32)> = Vec::new();
        for mask in 1u64..1 << g {
            let y = (0..g)
                .filter(|i| mask >> i & 1 == 1)
                .fold(zero.clone(), |acc, i| acc.bvxor(&ys[i]));
            solver.assert(y.eq(&zero).not());
            for (rows, &unit) in checks.iter().zip(&phase.unit_cost) {
                let inside: Vec<Bool> = rows
                    .iter()
                    .map(|&row| {
                        let masked = y.bvand(BV::from_u64(row, d));
                        let parity =
                            (1..d).fold(masked.extract(0, 0), |p, k| p.bvxor(masked.extract(k, k)));
                        parity.eq(BV::from_u64(0, 1))
                    })
                    .collect();
                let member = if inside.is_empty() {
                    Bool::from_bool(true)
                } else {
                    Bool::and(&inside)
                };
                terms.push((member, unit as i32));
            }
        }
        let refs: Vec<(&Bool, i32)> = terms.iter().map(|(b, w)| (b, *w)).collect();
        solver.assert(Bool::pb_le(&refs, (max_cost - fixed_cost) as i32));
        match solver.check() {
            SatResult::Sat => solver.get_model().and_then(|model| {
                ys.iter()
                    .map(|y| {
                        let coefficients = model.eval(y, true)?.as_u64()?;
                        Some(
                            (0..d as usize)
                                .filter(|j| coefficients >> j & 1 == 1)
                                .fold(0u64, |acc, j| acc ^ basis[j]),
                        )
                    })
                    .collect()
            }),
            _ => None,
        }
    })
}

/// Searches the whole basis matrix for answers cheaper than `best`, plan by
/// plan, and says whether the best is proved.
fn prove(
    problem: &Problem,
    plans: &Plans,
    best: &mut Option<(Candidate, Score)>,
    request: &SwizzleRequest,
    cancel: &Cancel,
    deadline: Instant,
) -> (Status, String) {
    let mut proved = plans.complete;
    let mut timed_out = false;
    let mut tried: Vec<(&Vec<Instruction>, Option<&Vec<u64>>)> = Vec::new();
    let mut checks = 0;
    let mut found = 0;
    for plan in &plans.list {
        let matrix = plan
            .instructions
            .iter()
            .any(|i| matches!(i, Instruction::Matrix { .. }));
        // Ld/st plans range over every chain; matrix plans fix theirs.
        let key = (&plan.instructions, matrix.then_some(&plan.chain));
        if tried.contains(&key) {
            continue;
        }
        tried.push(key);
        loop {
            let limit = best.as_ref().map_or(u64::MAX, |(_, s)| s.weighted);
            if crate::bound::plan_bound(problem, plan).weighted >= limit {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || cancel.is_cancelled() {
                timed_out = true;
                break;
            }
            checks += 1;
            match search(problem, plan, limit.saturating_sub(1), left, cancel) {
                Outcome::Unsat => break,
                Outcome::Unknown => {
                    timed_out = true;
                    break;
                }
                Outcome::Found(map) => {
                    let candidate = Candidate::linear(map);
                    match problem.score(&candidate) {
                        Some(s) if best.as_ref().is_none_or(|(_, b)| s.key() < b.key()) => {
                            *best = Some((candidate, s));
                            found += 1;
                        }
                        // The model counts what the plan assumes; a layout
                        // whose accesses do otherwise is another plan's.
                        _ => {
                            proved = false;
                            break;
                        }
                    }
                }
            }
        }
        if timed_out {
            break;
        }
    }
    let cost = best.as_ref().map(|(_, s)| s.weighted);
    match (best.is_some(), timed_out, proved) {
        (_, true, _) => (
            Status::Timeout,
            format!(
                "the search stopped at the time limit ({} ms) after {checks} Z3 checks; the best layout found is reported, not proved best",
                request.timeout.as_millis()
            ),
        ),
        (true, false, true) => (
            Status::Optimal,
            if found > 0 {
                format!(
                    "Z3 found {found} layout(s) better than the construction, the last one costing {} weighted wavefronts, and proved none costs fewer ({checks} checks)",
                    cost.unwrap_or(0)
                )
            } else {
                format!(
                    "Z3 proved that no linear layout costs fewer than {} weighted wavefronts ({checks} checks, one per way the accesses can vectorise)",
                    cost.unwrap_or(0)
                )
            },
        ),
        (false, false, true) => (
            Status::Infeasible,
            "Z3 proved that no linear layout meets the request's limits".to_string(),
        ),
        (_, false, false) => (
            Status::Feasible,
            "found by construction and Z3; optimality is not proved".to_string(),
        ),
    }
}

/// `x` XOR-combined over the set bits of `v`.
fn image(columns: &[BV], v: u64, n: u32) -> BV {
    columns
        .iter()
        .enumerate()
        .filter(|(j, _)| v >> j & 1 == 1)
        .fold(BV::from_u64(0, n), |acc, (_, c)| acc.bvxor(c))
}

fn bits_zero(x: &BV, low: u32, high: u32) -> Bool {
    // Bits [low, high) of x are zero.
    if high <= low {
        return Bool::from_bool(true);
    }
    x.extract(high - 1, low).eq(BV::from_u64(0, high - low))
}

fn search(
    problem: &Problem,
    plan: &Plan,
    max_cost: u64,
    time: Duration,
    cancel: &Cancel,
) -> Outcome {
    interruptible(cancel, || encode_and_check(problem, plan, max_cost, time))
}

/// Runs `check` (which makes and asks Z3 values on this thread) while a
/// watcher thread interrupts this thread's Z3 context when `cancel` is set.
pub(crate) fn interruptible<T>(cancel: &Cancel, check: impl FnOnce() -> T) -> T {
    let ctx = Context::thread_local();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let handle = ctx.handle();
        let done = &done;
        scope.spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if cancel.is_cancelled() {
                    handle.interrupt();
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        let outcome = check();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        outcome
    })
}

fn encode_and_check(problem: &Problem, plan: &Plan, max_cost: u64, time: Duration) -> Outcome {
    let req = problem.request;
    let n = problem.tensor_bits();
    let eb = req.element_bits;
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32(
        "timeout",
        time.as_millis().clamp(1, u32::MAX as u128) as u32,
    );
    solver.set_params(&params);

    let columns: Vec<BV> = (0..n).map(|j| BV::new_const(format!("m{j}"), n)).collect();
    let inverse: Vec<BV> = (0..n).map(|t| BV::new_const(format!("n{t}"), n)).collect();
    // N·M = I: row t of N dotted with column j of M is [t == j].
    for (t, row) in inverse.iter().enumerate() {
        for (j, col) in columns.iter().enumerate() {
            let both = row.bvand(col);
            let parity = (1..n).fold(both.extract(0, 0), |p, k| p.bvxor(both.extract(k, k)));
            solver.assert(parity.eq(BV::from_u64((t == j) as u64, 1)));
        }
    }

    // Offsets the request pins: S(1 << bit) = coordinate.
    for &(bit, coordinate) in &req.fixed {
        solver.assert(image(&columns, coordinate, n).eq(BV::from_u64(1 << bit, n)));
    }
    let mut pb: Vec<(Bool, i64)> = Vec::new();
    let mut fixed_cost: u64 = 0;
    for ((g, access), &instruction) in problem
        .geometries
        .iter()
        .zip(&req.accesses)
        .zip(&plan.instructions)
    {
        let m = |v: u64| image(&columns, v, n);
        let is_offset = |v: u64, o: u64| m(v).eq(BV::from_u64(o, n));
        match instruction {
            Instruction::LdSt { bits } => {
                let k = (bits / eb).max(1).trailing_zeros().min(n);
                for j in 0..k {
                    let any: Vec<Bool> =
                        g.registers.iter().map(|&r| is_offset(r, 1 << j)).collect();
                    solver.assert(Bool::or(&any));
                }
                for &r in &g.registers {
                    let mut ok = vec![bits_zero(&m(r), 0, k)];
                    ok.extend((0..k).map(|j| is_offset(r, 1 << j)));
                    solver.assert(Bool::or(&ok));
                }
                for &l in &g.lanes {
                    solver.assert(bits_zero(&m(l), 0, k));
                }
            }
            // The search plans ld/st and matrix instructions only.
            Instruction::Paired { .. } | Instruction::ReadTransposed { .. } => {
                return Outcome::Unknown;
            }
            Instruction::Matrix { .. } => {
                let Some(row) = g.matrix_row(instruction) else {
                    return Outcome::Unknown;
                };
                for (i, &t) in row.iter().enumerate() {
                    solver.assert(is_offset(t, 1 << i));
                }
                // Rows start on 16-byte boundaries.
                let row_bits = row.len() as u32;
                for &v in g.registers.iter().chain(&g.lanes) {
                    if !row.contains(&v) {
                        solver.assert(bits_zero(&m(v), 0, row_bits.min(n)));
                    }
                }
            }
        }
        // Conflicts of one phase, counted over the combinations.
        let phase = g.phase_vectors(instruction, access.direction, &req.machine.banks);
        let (sub, bank_high) =
            crate::plan::word_and_bank_bits(problem, instruction, access.direction);
        let unit =
            access.weight * g.ideal_wavefronts(instruction, access.direction, &req.machine.banks);
        fixed_cost += unit;
        let u = phase.len() as u32;
        if u == 0 {
            continue;
        }
        let wide = 16;
        let one = BV::from_u64(1, wide);
        let zero = BV::from_u64(0, wide);
        let (mut n0, mut n1) = (one.clone(), one.clone());
        for mask in 1u64..1 << u {
            let c = (0..u as usize)
                .filter(|i| mask >> i & 1 == 1)
                .fold(0, |acc, i| acc ^ phase[i]);
            let x = m(c);
            let same_word = bits_zero(&x, sub, n);
            let same_bank = bits_zero(&x, sub, bank_high);
            n0 = n0.bvadd(same_word.ite(&one, &zero));
            n1 = n1.bvadd(same_bank.ite(&one, &zero));
        }
        for level in 1..=u {
            let at_least = n1.bvuge(n0.bvshl(BV::from_u64(level as u64, wide)));
            pb.push((at_least, (unit << (level - 1)) as i64));
        }
    }
    if max_cost < fixed_cost {
        return Outcome::Unsat;
    }
    let budget = max_cost - fixed_cost;
    if budget > i32::MAX as u64 || pb.iter().any(|(_, w)| *w > i32::MAX as i64) {
        return Outcome::Unknown;
    }
    if !pb.is_empty() {
        let terms: Vec<(&Bool, i32)> = pb.iter().map(|(b, w)| (b, *w as i32)).collect();
        solver.assert(Bool::pb_le(&terms, budget as i32));
    }
    match solver.check() {
        SatResult::Unsat => Outcome::Unsat,
        SatResult::Unknown => Outcome::Unknown,
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Outcome::Unknown;
            };
            let values: Option<Vec<u64>> = columns
                .iter()
                .map(|c| model.eval(c, true).and_then(|v| v.as_u64()))
                .collect();
            match values.map(OffsetMap::from_columns) {
                Some(map) if map.offset_bases().is_some() => Outcome::Found(map),
                _ => Outcome::Unknown,
            }
        }
    }
}
