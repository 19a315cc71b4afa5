//! Lower bounds on the wavefronts of any answer in the linear family.
//!
//! For a shared layout `S`, let its chain be the tensor coordinates at
//! offsets 1, 2, 4, ... that some access uses as its vector. Every chain a
//! layout can have is among [`crate::linear::plans`], so the least bound
//! over all plans bounds every layout. For one plan, an access costs at
//! least its ideal wavefronts (one per phase, with the vector the plan
//! allows it: a narrower one only costs more), times `2^c` where `c` is
//! what Lemma 9.5's counting forces: a segment subspace of dimension `g`
//! in an `n`-bit space meets a phase span `U` (plus the bits inside a
//! word, `W`) in at least `dim(U + W) + g - n` dimensions.

use layout_algebra::bank::Direction;
use layout_algebra::f2;

use crate::plan::{Plan, line_and_word_bits, phase_spans};

use crate::score::Problem;

/// A bound split by direction, with the weighted total it implies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    pub weighted: u64,
    pub read_wavefronts: u64,
    pub write_wavefronts: u64,
}

/// The bound of one plan.
pub fn plan_bound(problem: &Problem, plan: &Plan) -> Bound {
    let n = problem.tensor_bits();
    let (line, word_bits) = line_and_word_bits(problem);
    let segment = n.saturating_sub(line);
    // The chain's bits inside one word; a layout with a longer chain has
    // more there, which only adds to `dim(U + W)`.
    let _ = word_bits;
    let word: Vec<u64> = Vec::new();
    let spans = phase_spans(problem, plan);
    let mut bound = Bound::default();
    for ((span, access), g) in spans
        .spans
        .iter()
        .zip(&problem.request.accesses)
        .zip(&problem.geometries)
    {
        let instruction = plan.instructions[bound_index(problem, access)];
        let ideal = g.ideal_wavefronts(
            instruction,
            access.direction,
            &problem.request.machine.banks,
        );
        let dim = f2::rank(span.iter().chain(&word).copied());
        let forced = (dim + segment).saturating_sub(n);
        let w = ideal << forced;
        bound.weighted += access.weight * w;
        match access.direction {
            Direction::Load => bound.read_wavefronts += w,
            Direction::Store => bound.write_wavefronts += w,
        }
    }
    bound
}

fn bound_index(problem: &Problem, access: &crate::request::AccessRequest) -> usize {
    problem
        .request
        .accesses
        .iter()
        .position(|a| std::ptr::eq(a, access))
        .expect("the access belongs to the request")
}

/// The least bound over all plans: no linear layout does better.
pub fn linear_bound(problem: &Problem, plans: &[Plan]) -> Option<Bound> {
    plans
        .iter()
        .map(|p| plan_bound(problem, p))
        .min_by_key(|b| b.weighted)
}
