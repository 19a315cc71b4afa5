//! The linear family: any invertible GF(2) map from offsets to the tensor.
//!
//! A shared layout is a basis: the tensor coordinate stored at each offset
//! bit. The low bits hold the *vector* (the elements one lane moves in one
//! instruction, a chain of register bases shared by the accesses that
//! vectorise); above them, up to one line of banks, the *bank* bits; the
//! rest are *segment* bits, whose directions land in the same bank on
//! another word. Lanes of one phase conflict exactly where their span meets
//! the segment directions (Lemma 9.4 of the Linear Layouts paper), so the
//! construction picks the segment subspace `G` to avoid every access's
//! phase span. For two accesses the greedy choice reaches Lemma 9.5's
//! bound (the largest subspace meeting two subspaces `U`, `V` trivially has
//! dimension `d - max(dim U, dim V)`): a vector outside `G + U` and
//! `G + V` exists until then, since two proper subspaces never cover the
//! space.

use layout_algebra::bank::{Instruction, OffsetMap};
use layout_algebra::f2::{self, Echelon};

use crate::plan::{Plan, Plans, line_and_word_bits, phase_spans};
use crate::request::InstructionPolicy;
use crate::score::Problem;

/// How many of the cheapest assignments get a construction.
const CONSTRUCTED: usize = 6;
/// Chains tried per assignment.
const CHAINS_PER_PLAN: usize = 4;

/// Every assignment of vector widths (and matrix instructions) that some
/// layout gives the accesses. Access `a` vectorises `k_a` register bases
/// when the chain's first `k_a` offsets are its registers; widths `k` are
/// possible together exactly when, for every position `j`, the registers
/// common to the accesses with `k_a > j` number more than `j` (the sets
/// grow with `j`, so distinct choices exist).
pub fn plans(problem: &Problem) -> Plans {
    let req = problem.request;
    let eb = req.element_bits;
    let max_len = ((128 / eb).max(1).trailing_zeros() as usize).min(problem.tensor_bits() as usize);
    let geoms = &problem.geometries;
    let mut list: Vec<Plan> = Vec::new();
    let mut widths = vec![0usize; geoms.len()];
    let limits: Vec<usize> = geoms
        .iter()
        .map(|g| g.registers.len().min(max_len))
        .collect();
    loop {
        if let Some(chains) = chains_for(geoms, &widths) {
            let instructions = widths
                .iter()
                .map(|&k| Instruction::LdSt {
                    bits: (eb << k).max(8),
                })
                .collect();
            for chain in chains {
                list.push(Plan {
                    chain,
                    instructions: Clone::clone(&instructions),
                });
            }
        }
        // Next width vector (odometer).
        let mut i = 0;
        while i < widths.len() && widths[i] == limits[i] {
            widths[i] = 0;
            i += 1;
        }
        if i == widths.len() {
            break;
        }
        widths[i] += 1;
    }
    // Matrix rows fix the first three offset bits.
    if req.instructions != InstructionPolicy::Vector && eb == 16 {
        for (g, access) in geoms.iter().zip(&req.accesses) {
            let allowed = match access.direction {
                layout_algebra::bank::Direction::Load => req.machine.matrix.ldmatrix,
                layout_algebra::bank::Direction::Store => req.machine.matrix.stmatrix,
            };
            for trans in [false, true] {
                let instruction = Instruction::Matrix { count: 1, trans };
                if let Some(row) = g.matrix_row(instruction).filter(|_| allowed)
                    && row.len() == 3
                    && f2::rank(row.iter().copied()) == 3
                {
                    let instructions: Vec<Instruction> = geoms
                        .iter()
                        .zip(&req.accesses)
                        .map(|(g, a)| expected_instruction(problem, g, a.direction, &row))
                        .collect();
                    let plan = Plan {
                        chain: row,
                        instructions,
                    };
                    if !list.contains(&plan) {
                        list.push(plan);
                    }
                }
            }
        }
    }
    let mut keyed: Vec<(u64, Plan)> = list
        .into_iter()
        .map(|p| (crate::bound::plan_bound(problem, &p).weighted, p))
        .collect();
    keyed.sort_by_key(|(b, _)| *b);
    Plans {
        list: keyed.into_iter().map(|(_, p)| p).collect(),
        complete: true,
    }
}

/// The plans worth a construction: the cheapest bounds first.
pub fn to_construct(plans: &Plans) -> impl Iterator<Item = &Plan> {
    let mut seen: Vec<&Vec<Instruction>> = Vec::new();
    plans.list.iter().filter(move |p| {
        if seen.contains(&&p.instructions) {
            return seen.len() <= CONSTRUCTED;
        }
        seen.push(&p.instructions);
        seen.len() <= CONSTRUCTED
    })
}

/// A few chains giving each access `widths[a]` vector bases, or `None`
/// when no chain does.
fn chains_for(
    geoms: &[layout_algebra::bank::AccessGeometry],
    widths: &[usize],
) -> Option<Vec<Vec<u64>>> {
    let len = widths.iter().copied().max().unwrap_or(0);
    // The registers common to the accesses that still vectorise at `j`.
    let common = |j: usize| -> Vec<u64> {
        let users: Vec<_> = geoms
            .iter()
            .zip(widths)
            .filter(|(_, k)| **k > j)
            .map(|(g, _)| g)
            .collect();
        users[0]
            .registers
            .iter()
            .copied()
            .filter(|r| *r != 0 && users.iter().all(|g| g.registers.contains(r)))
            .collect()
    };
    // Each access's width must be exact: the chain's next element must
    // not be one of its registers (else it vectorises further).
    let mut chains: Vec<Vec<u64>> = vec![Vec::new()];
    for j in 0..len {
        let options = common(j);
        let mut next = Vec::new();
        for chain in &chains {
            for &r in &options {
                let widens = geoms
                    .iter()
                    .zip(widths)
                    .any(|(g, &k)| k == j && g.registers.contains(&r));
                if chain.contains(&r) || widens {
                    continue;
                }
                let mut c = chain.clone();
                c.push(r);
                next.push(c);
                if next.len() >= CHAINS_PER_PLAN {
                    break;
                }
            }
            if next.len() >= CHAINS_PER_PLAN {
                break;
            }
        }
        if next.is_empty() {
            return None;
        }
        chains = next;
    }
    Some(chains)
}

/// The instruction an access would use if the chain sits at the low
/// offsets: a matrix instruction when the chain is its row, else the widest
/// ld/st whose vector is a prefix of the chain made of its registers.
fn expected_instruction(
    problem: &Problem,
    g: &layout_algebra::bank::AccessGeometry,
    direction: layout_algebra::bank::Direction,
    chain: &[u64],
) -> Instruction {
    let req = problem.request;
    if req.instructions != InstructionPolicy::Vector && req.element_bits == 16 {
        let allowed = match direction {
            layout_algebra::bank::Direction::Load => req.machine.matrix.ldmatrix,
            layout_algebra::bank::Direction::Store => req.machine.matrix.stmatrix,
        };
        for trans in [false, true] {
            let i = Instruction::Matrix { count: 1, trans };
            if allowed && g.matrix_row(i).is_some_and(|row| chain.starts_with(&row)) {
                let count = matrix_count(g.registers.len());
                return Instruction::Matrix { count, trans };
            }
        }
    }
    let k = chain.iter().take_while(|t| g.registers.contains(t)).count();
    Instruction::LdSt {
        bits: (req.element_bits << k).max(8),
    }
}

/// `ldmatrix.x4` needs 8 registers of 16-bit elements per lane (4 matrices
/// of 2); fewer registers allow fewer matrices.
fn matrix_count(registers: usize) -> u32 {
    match registers {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// `log2` of the wavefronts per phase an access takes when the offsets
/// below `low` (a subspace of the tensor, given by a basis) stay inside a
/// word and those in `low + segment` land in one bank: the rank formula
/// in tensor coordinates.
pub fn conflict_bits(span: &[u64], word: &[u64], word_and_segment: &[u64]) -> u32 {
    let dim = |vs: &[&[u64]]| f2::rank(vs.iter().flat_map(|v| v.iter().copied()));
    let words = dim(&[span, word]) - dim(&[word]);
    let banks = dim(&[span, word_and_segment]) - dim(&[word_and_segment]);
    words - banks
}

/// What a plan fixes before the segment subspace is chosen: the complement
/// of the chain the rest of the basis is drawn from, and the offsets inside
/// one word.
pub struct Frame {
    /// Phase vectors first (so they can be bank bits), then the other lanes
    /// and registers, then unit vectors. Everything in its span has
    /// offsets aligned to every vector.
    pub complement: Vec<u64>,
    /// The chain's low bits, then (when the chain is shorter than a word)
    /// complement vectors, phase vectors first.
    pub word: Vec<u64>,
    /// Segment vectors the request pins.
    pub pinned_segment: Vec<u64>,
    pub segment_len: usize,
}

/// The frame of a plan; `None` when the chain does not fit the request's
/// fixed bases.
pub fn frame(problem: &Problem, plan: &Plan) -> Option<Frame> {
    let n = problem.tensor_bits();
    let k = plan.chain.len() as u32;
    let (line, word_bits) = line_and_word_bits(problem);
    let line = line.min(n);
    let phase = phase_spans(problem, plan);
    let fixed = &problem.request.fixed;
    for &(bit, coordinate) in fixed {
        if bit < k && plan.chain[bit as usize] != coordinate {
            return None;
        }
    }
    let mut span = Echelon::new();
    for &t in &plan.chain {
        if !span.insert(t) {
            return None;
        }
    }
    let mut complement = Vec::new();
    let pinned: Vec<u64> = fixed
        .iter()
        .filter(|&&(bit, _)| bit >= k)
        .map(|&(_, c)| c)
        .collect();
    let pool = pinned
        .iter()
        .chain(phase.spans.iter().flatten())
        .chain(problem.geometries.iter().flat_map(|g| &g.lanes))
        .chain(problem.geometries.iter().flat_map(|g| &g.registers))
        .copied()
        .chain((0..n).map(|b| 1u64 << b));
    for v in pool {
        if v != 0 && !span.contains(v) {
            span.insert(v);
            complement.push(v);
        }
    }
    if complement.len() + plan.chain.len() != n as usize {
        return None;
    }
    let word: Vec<u64> = plan
        .chain
        .iter()
        .chain(&complement)
        .take(word_bits.min(n) as usize)
        .copied()
        .collect();
    let pinned_segment = fixed
        .iter()
        .filter(|&&(bit, _)| bit >= line)
        .map(|&(_, c)| c)
        .collect();
    Some(Frame {
        complement,
        word,
        pinned_segment,
        segment_len: (n - line) as usize,
    })
}

/// Builds the shared layout for one plan: the chain at the low offsets, a
/// segment subspace chosen greedily against every access's phase span, and
/// bank bits filling the rest of the line.
pub fn construct(problem: &Problem, plan: &Plan) -> Option<OffsetMap> {
    let frame = frame(problem, plan)?;
    let phase = phase_spans(problem, plan);
    let mut segment = frame.pinned_segment.clone();
    let candidates = segment_candidates(&frame.complement);
    // Adding `c` to the segment adds a conflict dimension to access `a`
    // exactly when `c` already lies in `U_a + W + G` (the rank formula:
    // `dim(W + G)` grows, `dim(U_a + W + G)` does not). Each access keeps
    // that span in echelon form, so a candidate costs one reduction each.
    let span_of = |extra: &[u64]| {
        let mut e = Echelon::new();
        for &v in extra.iter().chain(&frame.word).chain(&segment) {
            if v != 0 && !e.contains(v) {
                e.insert(v);
            }
        }
        e
    };
    let mut spans: Vec<Echelon> = phase.spans.iter().map(|s| span_of(s)).collect();
    let mut conflicts: Vec<u32> = phase
        .spans
        .iter()
        .map(|s| {
            conflict_bits(
                s,
                &frame.word,
                &frame
                    .word
                    .iter()
                    .chain(&segment)
                    .copied()
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let mut taken = span_of(&[]);
    while segment.len() < frame.segment_len {
        let mut best: Option<(u64, u64)> = None;
        let floor: u64 = phase
            .unit_cost
            .iter()
            .zip(&conflicts)
            .map(|(&u, &c)| u << c)
            .sum();
        for &c in &candidates {
            if taken.contains(c) {
                continue;
            }
            let cost: u64 = spans
                .iter()
                .zip(&phase.unit_cost)
                .zip(&conflicts)
                .map(|((span, &u), &k)| u << (k + u32::from(span.contains(c))))
                .sum();
            if best.is_none_or(|(b, _)| cost < b) {
                best = Some((cost, c));
                if cost == floor {
                    // No candidate adds fewer conflicts than none.
                    break;
                }
            }
        }
        let c = best?.1;
        for ((span, k), _) in spans.iter_mut().zip(conflicts.iter_mut()).zip(&phase.spans) {
            if span.contains(c) {
                *k += 1;
            } else {
                span.insert(c);
            }
        }
        taken.insert(c);
        segment.push(c);
    }
    assemble(problem, plan, &frame, &segment)
}

/// The layout of a plan with its segment subspace: chain, then bank bits
/// (the complement vectors outside word + segment, in order), then the
/// segment.
pub fn assemble(
    problem: &Problem,
    plan: &Plan,
    frame: &Frame,
    segment: &[u64],
) -> Option<OffsetMap> {
    let mut placed = Echelon::new();
    for &t in plan.chain.iter().chain(segment) {
        if placed.contains(t) {
            return None;
        }
        placed.insert(t);
    }
    let mut bank: Vec<u64> = Vec::new();
    for &v in &frame.complement {
        if !placed.contains(v) {
            placed.insert(v);
            bank.push(v);
        }
    }
    let mut bases: Vec<u64> = plan.chain.clone();
    bases.extend(bank);
    bases.extend(segment);
    // Fixed bases at a given offset bit: swap them into place.
    for &(bit, coordinate) in &problem.request.fixed {
        let at = bases.iter().position(|&b| b == coordinate)?;
        let bit = bit as usize;
        if bit >= bases.len() {
            return None;
        }
        bases.swap(at, bit);
    }
    OffsetMap::from_offset_bases(&bases)
}

/// Vectors the segment subspace is drawn from: every vector of the
/// complement's span when it is small, else its basis and sums of pairs.
fn segment_candidates(complement: &[u64]) -> Vec<u64> {
    let d = complement.len();
    if d <= 12 {
        // Every nonzero combination, each from one before it by one XOR;
        // the complement is independent, so they are distinct.
        let mut out = vec![0u64; 1 << d];
        for mask in 1usize..1 << d {
            out[mask] = out[mask & (mask - 1)] ^ complement[mask.trailing_zeros() as usize];
        }
        out.swap_remove(0);
        out.sort_unstable_by_key(|v| (v.count_ones(), *v));
        return out;
    }
    let mut out = complement.to_vec();
    for i in 0..d {
        for j in i + 1..d {
            out.push(complement[i] ^ complement[j]);
        }
    }
    out
}
