//! The exact search of a plan: every layout the plan allows, counted
//! subspace by subspace, so that "no layout of this plan costs less" is
//! proved by exhaustion, without Z3, where the plan pins enough.
//!
//! Under a plan (a vector width or matrix instruction per access) a layout's
//! cost depends on far less than its matrix. Offsets split into word bits,
//! bank bits and the bits above one line of banks; an access's phase takes
//! `|U ∩ K_B| / |U ∩ K_W|` wavefronts, where `K_W` and `K_B` are the
//! tensor vectors whose offsets stay in one word and in one bank (the rank
//! formula of [`crate::linear`]). The plan's chain puts tensor vectors at
//! offsets 1, 2, 4, ...; every other register, lane and warp of an access
//! that vectorises fully must lie in the complement `T` that holds the
//! offsets above the chain, and when those vectors span `T` it is forced.
//! What remains free is which functionals of `T` give the bank bits above
//! the chain: `b` of them, and only their span matters (any invertible
//! recombination moves the same words to other banks of one line). So the
//! search runs over `b`-dimensional subspaces of `T`'s dual, each written
//! once in reduced row echelon form — the symmetry a matrix encoding has
//! to refute copy by copy is gone — built row by row with a bound: rows
//! not chosen yet can raise a phase's rank by at most one each.
//!
//! Plans this does not cover (pinned offsets, a complement the accesses do
//! not force, paired or transposing reads, more nodes than
//! [`MAX_NODES`]) are left to Z3.

use std::time::Instant;

use layout_algebra::bank::{Instruction, OffsetMap};
use layout_algebra::f2::{self, Echelon};

use crate::Cancel;
use crate::plan::Plan;
use crate::score::Problem;

/// Nodes one plan's search may visit before it is left to Z3.
pub const MAX_NODES: u64 = 4_000_000;

/// What the exact search says of one plan.
pub enum PlanSearch {
    /// The plan's cheapest layout within the limit, and its modelled cost.
    Found(OffsetMap, u64),
    /// No layout of the plan costs the limit or less.
    Nothing,
    /// The plan is not one this search covers; Z3 must look.
    NotCovered,
    /// Stopped by the deadline or a cancel.
    Stopped,
}

/// What the search found over a plan list.
pub struct Sweep {
    /// Plans proved: their best is known, or nothing of theirs is cheaper.
    pub proved: usize,
    /// Plans left to Z3.
    pub left: Vec<Plan>,
    /// Subspaces (tree nodes) visited.
    pub nodes: u64,
    /// Answers better than the best before.
    pub improved: usize,
    pub stopped: bool,
}

/// How an access constrains the layout under a plan.
struct AccessRule {
    /// Tensor vectors that must sit at offsets 1, 2, 4, ... (`None`: any
    /// of the access's registers).
    row: Option<Vec<u64>>,
    /// How many low offset bits its vectors take.
    width: usize,
    registers: Vec<u64>,
    /// Lanes and warps, and registers outside the vector.
    others: Vec<u64>,
    phase: Vec<u64>,
    unit: u64,
}

impl AccessRule {
    /// The access's vectors that must keep off its own vector bits: its
    /// registers outside the chain's first `width`, its lanes and warps.
    fn outside<'a>(&'a self, chain: &'a [u64]) -> impl Iterator<Item = &'a u64> + 'a {
        self.registers
            .iter()
            .filter(move |v| !chain[..self.width].contains(v))
            .chain(&self.others)
    }
}

/// The plan's rules, or `None` when it holds an instruction this search
/// does not model.
fn rules(problem: &Problem, plan: &Plan) -> Option<(Vec<AccessRule>, u32, u32)> {
    let req = problem.request;
    let n = problem.tensor_bits();
    let mut out = Vec::new();
    let mut bits: Option<(u32, u32)> = None;
    for ((g, access), &instruction) in problem
        .geometries
        .iter()
        .zip(&req.accesses)
        .zip(&plan.instructions)
    {
        let (row, width) = match instruction {
            Instruction::LdSt { bits } => {
                let k = (bits / req.element_bits).max(1).trailing_zeros().min(n);
                (None, k as usize)
            }
            Instruction::Matrix { .. } => {
                let row = g.matrix_row(instruction)?;
                let width = row.len();
                (Some(row), width)
            }
            Instruction::Paired { .. } | Instruction::ReadTransposed { .. } => return None,
        };
        let these = crate::plan::word_and_bank_bits(problem, instruction, access.direction);
        if bits.is_some_and(|b| b != these) {
            return None;
        }
        bits = Some(these);
        let registers: Vec<u64> = g.registers.iter().copied().filter(|&r| r != 0).collect();
        let others: Vec<u64> = g
            .lanes
            .iter()
            .chain(&g.warps)
            .copied()
            .filter(|&v| v != 0)
            .collect();
        out.push(AccessRule {
            row,
            width,
            registers,
            others,
            phase: g.phase_vectors(instruction, access.direction, &req.machine.banks),
            unit: access.weight
                * g.ideal_wavefronts(instruction, access.direction, &req.machine.banks),
        });
    }
    let (sub, bank_high) = bits?;
    Some((out, sub, bank_high))
}

/// Every chain (tensor vectors at offsets 1, 2, 4, ...) the rules allow.
fn chains(rules: &[AccessRule], width: usize) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    let mut chain = Vec::with_capacity(width);
    fn extend(rules: &[AccessRule], width: usize, chain: &mut Vec<u64>, out: &mut Vec<Vec<u64>>) {
        let j = chain.len();
        if j == width {
            out.push(chain.clone());
            return;
        }
        let mut candidates: Option<Vec<u64>> = None;
        for r in rules.iter().filter(|r| r.width > j) {
            let here: Vec<u64> = match &r.row {
                Some(row) => vec![row[j]],
                None => r.registers.clone(),
            };
            candidates = Some(match candidates {
                None => here,
                Some(c) => c.into_iter().filter(|v| here.contains(v)).collect(),
            });
        }
        for v in candidates.unwrap_or_default() {
            if v != 0 && f2::rank(chain.iter().copied().chain([v])) as usize == j + 1 {
                chain.push(v);
                extend(rules, width, chain, out);
                chain.pop();
            }
        }
    }
    extend(rules, width, &mut chain, &mut out);
    out
}

/// One chain's frame: the forced complement and every access's phase in
/// its coordinates.
struct ChainFrame {
    /// Basis of the complement `T`.
    complement: Vec<u64>,
    phases: Vec<PhaseFrame>,
}

/// One access's phase in a chain's frame.
struct PhaseFrame {
    /// Per phase vector: the bank bits the chain fixes, and its `T`
    /// coordinates.
    vectors: Vec<(u64, u64)>,
    /// The phase span's dimension less its part inside one word: the most
    /// its bank bits can separate.
    separable: u32,
    /// Weighted wavefronts of the access without conflicts.
    unit: u64,
}

/// Why a chain has no frame.
enum Gap {
    /// No layout puts this chain at the low offsets and keeps every access
    /// aligned.
    Infeasible,
    /// The accesses do not force the complement (broadcasts, or fewer
    /// vectors than offset bits).
    Open,
}

fn frame(
    rules: &[AccessRule],
    chain: &[u64],
    n: u32,
    sub: u32,
    bank_high: u32,
) -> Result<ChainFrame, Gap> {
    let width = chain.len();
    // Everything an access of full width must keep off the chain's bits.
    let mut forced = Echelon::new();
    for &c in chain {
        forced.insert(c);
    }
    let mut complement = Vec::new();
    for r in rules.iter().filter(|r| r.width == width) {
        let outside = r.outside(chain);
        for &v in outside {
            if forced.contains(v) {
                if f2::rank(complement.iter().copied().chain([v])) as usize == complement.len() {
                    continue; // already in T
                }
                return Err(Gap::Infeasible); // it meets the chain: not aligned
            }
            forced.insert(v);
            complement.push(v);
        }
    }
    if width + complement.len() != n as usize {
        return Err(Gap::Open);
    }
    // Coordinates over chain ++ complement.
    let mut basis = Echelon::new();
    for &v in chain.iter().chain(&complement) {
        basis.insert(v);
    }
    let coords = |v: u64| -> (u64, u64) {
        let (rest, combination) = basis.reduce(v);
        debug_assert_eq!(rest, 0);
        (combination & ((1 << width) - 1), combination >> width)
    };
    // Narrower accesses: their other vectors keep off their own vector bits.
    for r in rules.iter().filter(|r| r.width < width) {
        if r.row
            .as_ref()
            .is_some_and(|row| row[..] != chain[..r.width])
        {
            return Err(Gap::Infeasible);
        }
        let outside = r.outside(chain);
        for &v in outside {
            if coords(v).0 & ((1 << r.width) - 1) != 0 {
                return Err(Gap::Infeasible);
            }
        }
    }
    let word: Vec<u64> = chain[..(sub as usize).min(width)].to_vec();
    let fixed_high = (bank_high as usize).min(width);
    let phases = rules
        .iter()
        .map(|r| {
            let vectors = r
                .phase
                .iter()
                .map(|&u| {
                    let (on_chain, on_t) = coords(u);
                    let bank = (sub as usize..fixed_high)
                        .filter(|&j| on_chain >> j & 1 == 1)
                        .fold(0u64, |acc, j| acc | 1 << (j - sub as usize));
                    (bank, on_t)
                })
                .collect();
            let span = f2::rank(r.phase.iter().copied());
            let with_word = f2::rank(r.phase.iter().chain(&word).copied());
            let in_word = span + word.len() as u32 - with_word;
            PhaseFrame {
                vectors,
                separable: span - in_word,
                unit: r.unit,
            }
        })
        .collect();
    Ok(ChainFrame { complement, phases })
}

/// Rank of a handful of bit vectors.
fn small_rank(vectors: &mut [u64]) -> u32 {
    let mut rank = 0;
    for i in 0..vectors.len() {
        let v = vectors[i];
        if v == 0 {
            continue;
        }
        rank += 1;
        let low = v & v.wrapping_neg();
        for w in vectors.iter_mut().skip(i + 1) {
            if *w & low != 0 {
                *w ^= v;
            }
        }
    }
    rank
}

struct Dfs<'a> {
    frame: &'a ChainFrame,
    /// Bank bits above the chain that the search chooses.
    free: usize,
    /// Bank bits the chain fixes (their positions come first).
    fixed: usize,
    m: usize,
    /// Rows chosen so far, `(pivot, row)`, from the last row up.
    rows: Vec<(usize, u64)>,
    limit: u64,
    best: Option<(u64, Vec<(usize, u64)>)>,
    nodes: u64,
    stop: &'a dyn Fn() -> bool,
    stopped: bool,
}

impl Dfs<'_> {
    /// The cost's lower bound with `rows` chosen (exact when all are).
    fn bound(&self) -> u64 {
        let remaining = (self.free - self.rows.len()) as u32;
        let mut total = 0u64;
        let mut scratch = [0u64; 64];
        for phase in &self.frame.phases {
            let (vectors, d, unit) = (&phase.vectors, &phase.separable, &phase.unit);
            for (i, &(bank, on_t)) in vectors.iter().enumerate() {
                let mut v = bank;
                for (r, &(_, row)) in self.rows.iter().enumerate() {
                    // Row r of `rows` is bank bit fixed + free - 1 - r.
                    if (row & on_t).count_ones() % 2 == 1 {
                        v |= 1 << (self.fixed + self.free - 1 - r);
                    }
                }
                scratch[i] = v;
            }
            let rank = small_rank(&mut scratch[..vectors.len()]);
            let exponent = d.saturating_sub((rank + remaining).min(*d));
            total = total.saturating_add(unit << exponent);
        }
        total
    }

    fn run(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(4096) && (self.stop)() {
            self.stopped = true;
        }
        if self.stopped || self.nodes > MAX_NODES {
            return;
        }
        let bound = self.bound();
        if bound > self.limit {
            return;
        }
        let chosen = self.rows.len();
        if chosen == self.free {
            self.best = Some((bound, self.rows.clone()));
            self.limit = bound.saturating_sub(1);
            return;
        }
        // Row index (from the top) being chosen, its pivot below the last.
        let row_index = self.free - 1 - chosen;
        let upper = self.rows.last().map_or(self.m, |&(p, _)| p);
        let later: u64 = self.rows.iter().fold(0, |acc, &(p, _)| acc | 1 << p);
        for pivot in (row_index..upper).rev() {
            let free_columns: Vec<usize> = (pivot + 1..self.m)
                .filter(|c| later >> c & 1 == 0)
                .collect();
            for mask in 0u64..1 << free_columns.len() {
                let row = free_columns
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .fold(1u64 << pivot, |acc, (_, &c)| acc | 1 << c);
                self.rows.push((pivot, row));
                self.run();
                self.rows.pop();
                if self.stopped || self.nodes > MAX_NODES {
                    return;
                }
            }
        }
    }
}

/// The offset bases (tensor vector at each offset bit) of the layout with
/// `chain`, the complement and the chosen bank rows.
fn assemble(chain: &[u64], frame: &ChainFrame, rows: &[(usize, u64)]) -> Option<OffsetMap> {
    let t = &frame.complement;
    let vector = |coords: u64| -> u64 {
        (0..t.len())
            .filter(|i| coords >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ t[i])
    };
    let mut bases = chain.to_vec();
    // Rows were chosen from the last bank bit down: bank bit i is rows[free - 1 - i].
    let ordered: Vec<(usize, u64)> = rows.iter().rev().copied().collect();
    let pivots: u64 = ordered.iter().fold(0, |acc, &(p, _)| acc | 1 << p);
    for &(p, _) in &ordered {
        bases.push(vector(1 << p));
    }
    // The kernel of the rows: one vector per non-pivot column.
    for c in (0..t.len()).filter(|c| pivots >> c & 1 == 0) {
        let coords = ordered
            .iter()
            .filter(|(_, row)| row >> c & 1 == 1)
            .fold(1u64 << c, |acc, &(p, _)| acc | 1 << p);
        bases.push(vector(coords));
    }
    OffsetMap::from_offset_bases(&bases)
}

/// The cheapest layout of `plan` costing at most `max_cost` weighted
/// wavefronts.
pub fn search_plan(
    problem: &Problem,
    plan: &Plan,
    max_cost: u64,
    nodes: &mut u64,
    stop: &dyn Fn() -> bool,
) -> PlanSearch {
    if !problem.request.fixed.is_empty() {
        return PlanSearch::NotCovered;
    }
    let n = problem.tensor_bits();
    let Some((rules, sub, bank_high)) = rules(problem, plan) else {
        return PlanSearch::NotCovered;
    };
    let width = rules.iter().map(|r| r.width).max().unwrap_or(0);
    if width < sub as usize {
        return PlanSearch::NotCovered;
    }
    let mut limit = max_cost;
    let mut best: Option<(u64, OffsetMap)> = None;
    for chain in chains(&rules, width) {
        let frame = match frame(&rules, &chain, n, sub, bank_high) {
            Ok(frame) => frame,
            Err(Gap::Infeasible) => continue,
            Err(Gap::Open) => return PlanSearch::NotCovered,
        };
        let fixed = (bank_high as usize).min(width).saturating_sub(sub as usize);
        let free = (bank_high as usize).saturating_sub(width);
        let m = frame.complement.len();
        if free > m {
            continue;
        }
        let mut dfs = Dfs {
            frame: &frame,
            free,
            fixed,
            m,
            rows: Vec::with_capacity(free),
            limit,
            best: None,
            nodes: 0,
            stop,
            stopped: false,
        };
        dfs.run();
        *nodes += dfs.nodes;
        if dfs.stopped {
            return PlanSearch::Stopped;
        }
        if dfs.nodes > MAX_NODES {
            return PlanSearch::NotCovered;
        }
        if let Some((cost, rows)) = dfs.best {
            let Some(map) = assemble(&chain, &frame, &rows) else {
                return PlanSearch::NotCovered;
            };
            limit = cost.saturating_sub(1);
            best = Some((cost, map));
        }
    }
    match best {
        Some((cost, map)) => PlanSearch::Found(map, cost),
        None => PlanSearch::Nothing,
    }
}

/// Runs [`search_plan`] over every plan that could beat the best, cheapest
/// bound first, improving `best` as it goes.
pub fn sweep(
    problem: &Problem,
    plans: &[Plan],
    best: &mut Option<(crate::score::Candidate, crate::score::Score)>,
    cancel: &Cancel,
    deadline: Instant,
) -> Sweep {
    let mut sweep = Sweep {
        proved: 0,
        left: Vec::new(),
        nodes: 0,
        improved: 0,
        stopped: false,
    };
    let stop = || cancel.is_cancelled() || Instant::now() >= deadline;
    let mut seen: Vec<&Vec<Instruction>> = Vec::new();
    for plan in plans {
        if seen.contains(&&plan.instructions) {
            continue;
        }
        seen.push(&plan.instructions);
        let limit = best.as_ref().map_or(u64::MAX, |(_, s)| s.weighted);
        if crate::bound::plan_bound(problem, plan).weighted >= limit {
            sweep.proved += 1;
            continue;
        }
        if sweep.stopped || stop() {
            sweep.stopped = true;
            sweep.left.push(plan.clone());
            continue;
        }
        match search_plan(
            problem,
            plan,
            limit.saturating_sub(1),
            &mut sweep.nodes,
            &stop,
        ) {
            PlanSearch::Nothing => sweep.proved += 1,
            PlanSearch::Found(map, cost) => {
                let candidate = crate::score::Candidate::linear(map);
                match problem.score(&candidate) {
                    Some(s) if s.weighted == cost => {
                        if best.as_ref().is_none_or(|(_, b)| s.key() < b.key()) {
                            *best = Some((candidate, s));
                            sweep.improved += 1;
                        }
                        sweep.proved += 1;
                    }
                    // The layout does not do what the plan assumed: Z3
                    // looks at the plan instead.
                    _ => sweep.left.push(plan.clone()),
                }
            }
            PlanSearch::NotCovered => sweep.left.push(plan.clone()),
            PlanSearch::Stopped => {
                sweep.stopped = true;
                sweep.left.push(plan.clone());
            }
        }
    }
    sweep
}
