//! The families a swizzle is searched in, each as one implementation of
//! [`SearchFamily`]: what its members are for a problem, whether the linear
//! machinery (plans, their lower bound, Z3's proofs) applies, the floor
//! that proves a listed answer optimal when the list is not the whole
//! family, how an answer is written in its notation, and why the outcome is
//! what it is. `solve_swizzle` asks the family instead of matching on it; a
//! new family is one implementation and one arm of [`of`].

use std::sync::Arc;

use crate::families::{self, Member};
use crate::request::{Family, SwizzleRequest};
use crate::score::{Candidate, Problem, Score};
use crate::{SolveError, Status, linear, plan};

/// What one solve knows when it lists a family: the problem, the linear
/// plans and the lists of the families users write (built once).
pub(crate) struct Listing<'a> {
    pub problem: &'a Problem<'a>,
    pub plans: &'a plan::Plans,
    /// [`Family::FAMILIAR`] with their members (CuTe's over the request's
    /// base when it gives one).
    pub familiar: &'a [(Family, Arc<Vec<Member>>)],
}

impl Listing<'_> {
    fn request(&self) -> &SwizzleRequest {
        self.problem.request
    }
}

/// One family of shared layouts, as the search sees it.
pub(crate) trait SearchFamily: Sync {
    /// Whether its offsets are a GF(2) map of the tensor's bits: then the
    /// linear plans, their lower bound and Z3's proofs apply.
    fn is_linear(&self) -> bool {
        true
    }

    /// Refuses a problem the family cannot be searched for in good time.
    fn admits(&self, _problem: &Problem) -> Result<(), SolveError> {
        Ok(())
    }

    /// The members to score (the linear family is constructed and searched
    /// by Z3 instead, and lists none).
    fn members(&self, listing: &Listing) -> Vec<Member>;

    /// The fewest weighted wavefronts any of its layouts can cost, when the
    /// list is not the whole family: only meeting it proves a listed answer
    /// optimal.
    fn floor(&self, _problem: &Problem) -> Option<u64> {
        None
    }

    /// `candidate` in this family's notation, when it is one of its layouts.
    fn notation(&self, candidate: &Candidate, listing: &Listing) -> Option<String>;

    /// The status and reason after `listed` members were scored, `best`
    /// the cheapest (none: no member serves the accesses).
    fn outcome(&self, listed: usize, best: Option<&Score>, problem: &Problem) -> (Status, String);
}

/// The family `family` as the search sees it.
pub(crate) fn of(family: Family) -> &'static dyn SearchFamily {
    match family {
        Family::Linear => &Linear,
        Family::Triton => &Listed(Family::Triton),
        Family::Nvmma => &Listed(Family::Nvmma),
        Family::Cute => &Listed(Family::Cute),
        Family::Padded => &Padded,
    }
}

/// The families, in the order answers list their notations.
pub(crate) const NOTATION_ORDER: [Family; 5] = [
    Family::Triton,
    Family::Nvmma,
    Family::Cute,
    Family::Linear,
    Family::Padded,
];

/// Any invertible GF(2) map: constructed from the plans and searched by Z3
/// (`solve_swizzle`'s own path), written as `#ttg.shared_linear`.
struct Linear;

impl SearchFamily for Linear {
    fn members(&self, _listing: &Listing) -> Vec<Member> {
        Vec::new()
    }

    fn notation(&self, candidate: &Candidate, listing: &Listing) -> Option<String> {
        if !candidate.padding.is_empty() {
            return None;
        }
        families::shared_linear_notation(&candidate.map, &listing.request().tensor)
    }

    fn outcome(
        &self,
        _listed: usize,
        _best: Option<&Score>,
        _problem: &Problem,
    ) -> (Status, String) {
        unreachable!("the linear family is searched by construction, not by listing")
    }
}

/// A family whose every layout for the tensor is listed (Triton's
/// swizzles, NVMMA's, CuTe's `Sw<B,M,S>` over a base): the best member is
/// the family's optimum.
struct Listed(Family);

impl SearchFamily for Listed {
    fn members(&self, listing: &Listing) -> Vec<Member> {
        match listing.familiar.iter().find(|(f, _)| *f == self.0) {
            Some((_, listed)) => listed.to_vec(),
            None => {
                let request = listing.request();
                families::members(self.0, &request.tensor, request.element_bits).to_vec()
            }
        }
    }

    fn notation(&self, candidate: &Candidate, listing: &Listing) -> Option<String> {
        if !candidate.padding.is_empty() {
            return None;
        }
        let (_, members) = listing.familiar.iter().find(|(f, _)| *f == self.0)?;
        members
            .iter()
            .find(|m| m.candidate == *candidate)
            .map(|m| m.notation.text())
    }

    fn outcome(&self, listed: usize, best: Option<&Score>, problem: &Problem) -> (Status, String) {
        let name = self.0.name();
        match best {
            None => (Status::Infeasible, none_serves(listed, name)),
            Some(_) => {
                let pruned = if self.0 == Family::Triton && problem.request.tensor.len() > 2 {
                    " (orders of the dims above the first 128 bytes taken once: they cannot change a wavefront)"
                } else {
                    ""
                };
                (
                    Status::Optimal,
                    format!(
                        "every one of the {listed} {name} layouts this tensor admits was scored{pruned}; none costs fewer wavefronts"
                    ),
                )
            }
        }
    }
}

fn none_serves(listed: usize, name: &str) -> String {
    format!(
        "none of the {listed} {name} layouts this tensor admits can serve these accesses within the request's limits (a vector the padding splits, sub-byte elements a byte access cannot hold, or a vector whose width the compiler decides only by proving its alignment, when the registers must be taken out of order or a load is narrowed by the padding, rule a layout out)"
    )
}

/// Padded layouts (`#ttg.padded_shared`): row- and column-major layouts
/// and the construction's best linear layout as a remap, each with every
/// interval and pad. Padding inserts words between rows, which no XOR map
/// does, so the linear bound does not hold; the floor (one wavefront per
/// phase at the widest vectors any interval allows) does.
struct Padded;

/// Padded offsets are counted by walking each warp's requests, which is
/// only quick for a warp's share up to this many elements (as a power of
/// two).
const MAX_PADDED_WARP_BITS: usize = 15;

impl SearchFamily for Padded {
    fn is_linear(&self) -> bool {
        false
    }

    fn admits(&self, problem: &Problem) -> Result<(), SolveError> {
        let most = problem
            .geometries
            .iter()
            .map(|g| g.registers.len() + g.lanes.len())
            .max()
            .unwrap_or(0);
        if most > MAX_PADDED_WARP_BITS {
            return Err(SolveError::Invalid(format!(
                "one warp's share here is 2^{most} elements; the padded family is searched for shares of at most 2^{MAX_PADDED_WARP_BITS} (spread the tensor over more warps, or ask another family)"
            )));
        }
        Ok(())
    }

    fn members(&self, listing: &Listing) -> Vec<Member> {
        let request = listing.request();
        let mut members =
            families::members(Family::Padded, &request.tensor, request.element_bits).to_vec();
        if !request.fixed.is_empty() {
            return members;
        }
        // Padding over a remap: the best linear layout, padded.
        let best_linear = linear::to_construct(listing.plans)
            .filter_map(|plan| linear::construct(listing.problem, plan))
            .map(Candidate::linear)
            .filter_map(|c| listing.problem.score(&c).map(|s| (c, s)))
            .min_by_key(|(_, s)| s.key());
        if let Some((c, _)) = best_linear
            && !members.iter().any(|m| m.candidate.map == c.map)
        {
            members.extend(families::padded_over(
                &c.map,
                &request.tensor,
                request.element_bits,
            ));
        }
        members
    }

    fn floor(&self, problem: &Problem) -> Option<u64> {
        Some(crate::floor_within(problem, u64::MAX))
    }

    fn notation(&self, candidate: &Candidate, listing: &Listing) -> Option<String> {
        if candidate.padding.is_empty() {
            return None;
        }
        // The short form over a row- or column-major layout, else with the
        // remap's bases.
        let request = listing.request();
        families::members(Family::Padded, &request.tensor, request.element_bits)
            .iter()
            .find(|m| m.candidate == *candidate)
            .map(|m| m.notation.text())
            .or_else(|| {
                families::padded_notation(candidate, &request.tensor).map(|e| e.to_string())
            })
    }

    fn outcome(&self, listed: usize, best: Option<&Score>, problem: &Problem) -> (Status, String) {
        let floor = crate::floor_within(problem, u64::MAX);
        match best {
            None => (Status::Infeasible, none_serves(listed, "padded")),
            Some(b) if b.weighted > floor => (
                Status::Feasible,
                format!(
                    "the best of {listed} padded layouts (row- and column-major, and the best linear layout as a remap, each with every interval and pad); other remaps are not searched, and the floor of {floor} weighted wavefronts is not met"
                ),
            ),
            Some(_) => (
                Status::Optimal,
                format!(
                    "meets the floor of every padded layout, whatever its remap: {floor} weighted wavefronts, one per phase at the widest vectors"
                ),
            ),
        }
    }
}
