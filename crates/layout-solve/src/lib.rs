//! Swizzle and tiling search for layoutc.
//!
//! A swizzle request asks for the shared layout of a tensor that several
//! accesses store and load; the answer is the layout with the fewest
//! wavefronts (then the widest vectors, then the least scratch) within a
//! family, with a proof of optimality where one is found:
//! - the linear family by construction ([`linear`]) against the lower
//!   bound of [`bound`], and Z3 over the basis matrix where the
//!   construction stops short of the bound (feature `z3`);
//! - the restricted families (`triton`, `nvmma`, `cute`, `padded`) by
//!   scoring every member ([`families`]).
//!
//! Every answer is re-scored by enumerating the requests of a warp before
//! it is returned. A tiling request ([`tiling`]) picks an XLA TPU layout
//! with the least padding by listing every order and tile format, or
//! searches integer tile sizes (listed when few, Z3 otherwise).

pub mod bound;
mod exact;
pub mod families;
pub mod linear;
pub mod plan;
pub mod request;
pub mod score;
mod search_family;
#[cfg(feature = "z3")]
mod smt;
#[cfg(feature = "z3")]
mod smt_tiling;
mod tile_space;
pub mod tiling;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use layout_algebra::bank::{self, Direction, OffsetMap};
use layout_algebra::linear::LinearLayout;
use layout_algebra::machine::SharedInstructions;
use layout_algebra::triton::convert_layout;

pub use bound::Bound;
pub use request::{
    AccessRequest, Family, InstructionPolicy, Machine, SwizzleRequest, TileMethod, TileSearch,
    TilingRequest,
};
pub use score::{AccessCost, Candidate, Problem, Score};

/// Whether an answer is proved best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Nothing in the family does better.
    Optimal,
    /// Found, not proved best.
    Feasible,
    /// Nothing in the family meets the request.
    Infeasible,
    /// The search ran out of time; the best found is reported.
    Timeout,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::Feasible => "feasible",
            Status::Infeasible => "infeasible",
            Status::Timeout => "timeout",
        }
    }
}

/// A request the solver cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// An access or the tensor is not what a swizzle needs.
    Invalid(String),
    /// The answer's enumeration disagreed with its rank count: a bug.
    Inconsistent(String),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Invalid(why) => write!(f, "{why}"),
            SolveError::Inconsistent(why) => write!(f, "internal inconsistency: {why}"),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<layout_algebra::LayoutError> for SolveError {
    fn from(e: layout_algebra::LayoutError) -> Self {
        SolveError::Invalid(e.to_string())
    }
}

/// Asks a running search to stop; shared with other threads. It may also
/// follow a condition of the caller's (an editor's cancellation token),
/// which the search polls like the flag.
#[derive(Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    follows: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A search that also stops once `cancelled` returns true.
    pub fn following(cancelled: impl Fn() -> bool + Send + Sync + 'static) -> Cancel {
        Cancel {
            flag: Arc::default(),
            follows: Some(Arc::new(cancelled)),
        }
    }

    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.follows.as_ref().is_some_and(|f| f())
    }
}

/// What one access costs in the answer, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccessReport {
    pub label: String,
    pub direction: Direction,
    /// The shared-memory instruction the access is counted as.
    pub instruction: layout_algebra::bank::Mnemonic,
    /// As the machine's assembly spells the instruction issued
    /// (`st.shared.v4.b32`; a CuTe copy's own, such as `cp.async.cg.shared.global`).
    pub opcode: String,
    pub instructions: u64,
    /// The instructions by kind, when the access issues more than one
    /// (AMD's paired access whose requests the compiler pairs only in
    /// part: `ds_read2st64_b64` x 16 and `ds_read_b64` x 32).
    pub mix: Vec<(layout_algebra::bank::Mnemonic, u64)>,
    pub wavefronts: u64,
    pub ideal: u64,
    pub conflicts: u64,
}

/// The answer to a swizzle request.
#[derive(Clone, Debug)]
pub struct SwizzleSolution {
    pub status: Status,
    /// Why the status holds, in a kernel engineer's words.
    pub why: String,
    pub candidate: Option<Candidate>,
    /// `offset` -> the tensor dims (the unpadded part for `padded`).
    pub shared: Option<LinearLayout>,
    pub score: Option<Score>,
    pub accesses: Vec<AccessReport>,
    /// Every notation that writes the answer exactly: (`triton`, text), ...
    pub notations: Vec<(String, String)>,
    pub lower_bound: Option<Bound>,
    /// Triton's own swizzle for the same store and load, with the
    /// instructions Triton emits for it.
    pub baseline: Option<Score>,
    pub elapsed: Duration,
}

impl SwizzleSolution {
    pub fn notation(&self, key: &str) -> Option<&str> {
        self.notations
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The largest buffer a swizzle is searched for: the shared memory of one
/// CTA on the largest machine modelled (sm90/sm100: 228 KiB, rounded up to
/// a power of two).
const MAX_BUFFER_BYTES: u64 = 256 * 1024;

/// Solves a swizzle request.
pub fn solve_swizzle(
    request: &SwizzleRequest,
    cancel: &Cancel,
) -> Result<SwizzleSolution, SolveError> {
    let start = Instant::now();
    validate(request)?;
    let problem = Problem::new(request)?;
    let family = search_family::of(request.family);
    family.admits(&problem)?;
    let plans = linear::plans(&problem);
    // Padding is not linear: the bound holds for the XOR families only.
    let linear_bound = if plans.complete && family.is_linear() {
        bound::linear_bound(&problem, &plans.list)
    } else {
        None
    };
    if let Some(why) = provably_infeasible(&problem, &plans) {
        return Ok(SwizzleSolution {
            status: Status::Infeasible,
            why,
            candidate: None,
            shared: None,
            score: None,
            accesses: Vec::new(),
            notations: Vec::new(),
            lower_bound: linear_bound,
            baseline: None,
            elapsed: start.elapsed(),
        });
    }
    let baseline = triton_baseline(&problem);
    // Triton's own layout costs what Triton's own instructions make of it:
    // its conversion uses ldmatrix/stmatrix only where its swizzle search
    // paired them.
    let baseline_score = baseline
        .as_ref()
        .and_then(|(c, instructions)| problem.as_compiled(c, *instructions));
    let baseline = baseline.map(|(c, _)| c);

    let mut best: Option<(Candidate, Score)> = None;
    let consider = |c: Candidate, best: &mut Option<(Candidate, Score)>| {
        let limit = best.as_ref().map_or(u64::MAX, |(_, b)| b.weighted);
        if let Some(s) = problem.score_within(&c, limit)
            && best.as_ref().is_none_or(|(_, b)| s.key() < b.key())
        {
            *best = Some((c, s));
        }
    };
    // The families users write, listed once: to prefer them among equal
    // answers and to write the answer in their notations.
    let mut familiar_members: Vec<(Family, Arc<Vec<families::Member>>)> = Family::FAMILIAR
        .into_iter()
        .map(|f| {
            (
                f,
                families::members(f, &request.tensor, request.element_bits),
            )
        })
        .collect();
    if let Some(base) = &request.cute_base {
        let over =
            families::cute_members_over(base, &request.tensor).map_err(SolveError::Invalid)?;
        if let Some((_, members)) = familiar_members
            .iter_mut()
            .find(|(f, _)| *f == Family::Cute)
        {
            *members = Arc::new(over);
        }
    }
    let (status, why);
    match request.family {
        Family::Linear => {
            for plan in linear::to_construct(&plans) {
                let met = |best: &Option<(Candidate, Score)>| matches!((best, &linear_bound), (Some((_, s)), Some(b)) if s.weighted <= b.weighted);
                if met(&best) {
                    break;
                }
                if let Some(map) = linear::construct(&problem, plan) {
                    consider(Candidate::linear(map), &mut best);
                }
            }
            // As an answer, Triton's layout is one buffer for the whole
            // tensor, not rounds of its own.
            if request.fixed.is_empty()
                && let Some(c) = baseline.clone()
            {
                consider(Candidate { rounds: 1, ..c }, &mut best);
            }
            // Among equally good answers, one users already write is kept:
            // members with the same vector bits are scored, and one that
            // costs no more replaces the construction's.
            if request.fixed.is_empty()
                && let Some((c, s)) = &best
            {
                let key = s.key();
                let low: Vec<u64> = c.map.offset_bases().unwrap_or_default();
                let vector_bits = s
                    .accesses
                    .iter()
                    .map(|a| {
                        (a.vector_bits / request.element_bits.max(1))
                            .max(1)
                            .trailing_zeros() as usize
                    })
                    .max()
                    .unwrap_or(0);
                let same_vector = |m: &families::Member| {
                    low.iter()
                        .take(vector_bits)
                        .enumerate()
                        .all(|(j, &t)| m.candidate.map.apply(t) == 1 << j)
                };
                let familiar = familiar_members
                    .iter()
                    .flat_map(|(_, ms)| ms.iter())
                    .filter(|m| same_vector(m))
                    .find(|m| {
                        problem
                            .score_within(&m.candidate, key.0)
                            .is_some_and(|ms| ms.key() <= key)
                    });
                if let Some(m) = familiar {
                    let score = problem.score(&m.candidate).expect("scored above");
                    best = Some((m.candidate.clone(), score));
                }
            }
            let met = match (&best, &linear_bound) {
                (Some((_, s)), Some(b)) => s.weighted <= b.weighted,
                _ => false,
            };
            if met {
                status = Status::Optimal;
                why = bound_reason(
                    &linear_bound.expect("met implies a bound"),
                    request.instructions,
                );
            } else {
                let searched = search_further(&problem, &plans, &mut best, request, cancel);
                status = searched.0;
                why = searched.1;
            }
        }
        _ => {
            let listing = search_family::Listing {
                problem: &problem,
                plans: &plans,
                familiar: &familiar_members,
            };
            let mut members = family.members(&listing);
            let listed = members.len();
            // Branch and bound: members in order of what they cost at best
            // (one wavefront per phase at the widest vector they allow);
            // once that reaches the best found, no later member can win.
            members.sort_by_cached_key(|m| member_floor(&problem, &m.candidate));
            let floor = family.floor(&problem);
            let elements = 1u64 << problem.tensor_bits();
            for m in members {
                if let Some((_, b)) = &best {
                    if member_floor(&problem, &m.candidate) > b.weighted {
                        break;
                    }
                    // At the floor nothing costs fewer wavefronts, but a
                    // member that costs as many in less memory still wins
                    // the tie: only those are scored.
                    if floor.is_some_and(|f| b.weighted <= f)
                        && m.candidate.scratch_elements(elements) * request.element_bits as u64 / 8
                            >= b.scratch_bytes
                    {
                        continue;
                    }
                }
                consider(m.candidate, &mut best);
            }
            (status, why) = family.outcome(listed, best.as_ref().map(|(_, s)| s), &problem);
        }
    }
    let Some((candidate, score)) = best else {
        return Ok(SwizzleSolution {
            status: if status == Status::Optimal {
                Status::Infeasible
            } else {
                status
            },
            why,
            candidate: None,
            shared: None,
            score: None,
            accesses: Vec::new(),
            notations: Vec::new(),
            lower_bound: linear_bound,
            baseline: baseline_score,
            elapsed: start.elapsed(),
        });
    };
    recount(&problem, &candidate, &score)?;
    let shared = candidate.map.to_shared_layout(&request.tensor)?;
    let listing = search_family::Listing {
        problem: &problem,
        plans: &plans,
        familiar: &familiar_members,
    };
    let notations = notations(&candidate, &listing)?;
    let accesses = request
        .accesses
        .iter()
        .zip(&score.accesses)
        .map(|(a, c)| {
            let instruction =
                request
                    .machine
                    .mnemonic(c.instruction, a.direction, request.element_bits);
            AccessReport {
                label: a.label.clone(),
                direction: a.direction,
                instruction,
                opcode: instruction.to_string(),
                instructions: c.counts.instructions,
                mix: match c.mix() {
                    kinds if kinds.len() > 1 => kinds
                        .into_iter()
                        .map(|(i, n)| {
                            (
                                request
                                    .machine
                                    .mnemonic(i, a.direction, request.element_bits),
                                n,
                            )
                        })
                        .collect(),
                    _ => Vec::new(),
                },
                wavefronts: c.counts.wavefronts,
                ideal: c.counts.ideal,
                conflicts: c.conflicts,
            }
        })
        .collect();
    Ok(SwizzleSolution {
        status,
        why,
        candidate: Some(candidate),
        shared,
        score: Some(score),
        accesses,
        notations,
        lower_bound: linear_bound,
        baseline: baseline_score,
        elapsed: start.elapsed(),
    })
}

/// Limits no layout of the family can meet, found without a search.
fn provably_infeasible(problem: &Problem, plans: &plan::Plans) -> Option<String> {
    let req = problem.request;
    let bytes = (1u64 << problem.tensor_bits()) * req.element_bits as u64 / 8;
    if let Some(budget) = req.budget_bytes
        && budget < bytes
    {
        return Some(format!(
            "the tensor alone takes {bytes} bytes, more than the budget of {budget}"
        ));
    }
    if let Some(min) = req.min_vector_bits
        && plans.complete
        && !plans.list.iter().any(|p| {
            p.instructions.iter().all(|i| match i {
                layout_algebra::bank::Instruction::LdSt { bits }
                | layout_algebra::bank::Instruction::Paired { bits, .. } => *bits >= min,
                layout_algebra::bank::Instruction::ReadTransposed { .. } => {
                    i.bits_per_lane() >= min
                }
                layout_algebra::bank::Instruction::Matrix { .. } => true,
            })
        })
    {
        return Some(format!(
            "no layout lets every access move {min} bits per lane: the accesses do not hold enough consecutive elements in common"
        ));
    }
    None
}

/// The fewest weighted wavefronts a member can cost: each access at the
/// widest vector the member allows it (padding caps vectors at its
/// interval), one wavefront per phase.
fn member_floor(problem: &Problem, candidate: &Candidate) -> u64 {
    let interval = candidate.padding.iter().map(|&(i, _)| i as u64).min();
    floor_within(problem, interval.unwrap_or(u64::MAX))
}

/// The fewest weighted wavefronts of any layout whose vectors are at most
/// `interval` elements (`u64::MAX`: no padding caps them).
pub(crate) fn floor_within(problem: &Problem, interval: u64) -> u64 {
    use layout_algebra::bank::Instruction;
    let req = problem.request;
    let eb = req.element_bits;
    req.accesses
        .iter()
        .zip(&problem.geometries)
        .map(|(a, g)| {
            let vector = (1u64 << g.registers.len())
                .min((128 / eb).max(1) as u64)
                .min(interval);
            let ld_st = Instruction::LdSt {
                bits: (vector as u32 * eb).max(8),
            };
            // Padded layouts are served by plain vectors only (Triton's
            // lowering uses no ldmatrix/stmatrix there).
            let floor = g.ideal_wavefronts(ld_st, a.direction, &req.machine.banks);
            a.weight * floor
        })
        .sum()
}

fn bound_reason(b: &Bound, instructions: InstructionPolicy) -> String {
    // The bound holds for the instructions the request allows, not beyond.
    let allowed = match instructions {
        InstructionPolicy::Vector => " with ld/st.shared vectors",
        InstructionPolicy::Matrix | InstructionPolicy::Best => "",
    };
    format!(
        "meets the lower bound: {} write and {} read wavefronts per warp is the least any layout allows{allowed} (one wavefront per phase at the widest vectors the accesses can share, and the conflicts Lemma 9.5 forces)",
        b.write_wavefronts, b.read_wavefronts
    )
}

fn validate(request: &SwizzleRequest) -> Result<(), SolveError> {
    let eb = request.element_bits;
    if !(1..=64).contains(&eb) || !eb.is_power_of_two() {
        return Err(SolveError::Invalid(format!(
            "elements of {eb} bits: a swizzle needs a power-of-two element width up to 64"
        )));
    }
    if request.accesses.is_empty() {
        return Err(SolveError::Invalid(
            "a swizzle needs at least one access to the buffer".into(),
        ));
    }
    let sizes: Vec<u64> = request.tensor.iter().map(|(_, s)| *s).collect();
    if sizes.iter().any(|s| !s.is_power_of_two()) {
        return Err(SolveError::Invalid(format!(
            "a tensor of {sizes:?} elements: a swizzle is a GF(2) map, so every dim must be a power of two"
        )));
    }
    let bits: u32 = sizes.iter().map(|s| s.trailing_zeros()).sum();
    let bytes = (1u128 << bits) * eb as u128 / 8;
    if bytes > MAX_BUFFER_BYTES as u128 {
        return Err(SolveError::Invalid(format!(
            "a buffer of {sizes:?} elements of {eb} bits takes {} KiB, more than the {} KiB of shared memory a CTA has on any machine layoutc models; solve for the tile one CTA stages",
            bytes / 1024,
            MAX_BUFFER_BYTES / 1024
        )));
    }
    let warp = request.machine.banks.warp_size;
    for a in &request.accesses {
        let lanes = a.layout.in_dim_size("lane");
        if lanes != warp as u64 {
            return Err(SolveError::Invalid(format!(
                "{} has {lanes} lanes per warp, but {} has {warp}",
                a.label, request.machine.name
            )));
        }
    }
    Ok(())
}

/// Triton's swizzle for one store and one load (GenericSwizzling, the
/// baseline every linear answer must match or beat).
fn triton_baseline(problem: &Problem) -> Option<(Candidate, SharedInstructions)> {
    let req = problem.request;
    let stores: Vec<_> = req
        .accesses
        .iter()
        .filter(|a| a.direction == Direction::Store)
        .collect();
    let loads: Vec<_> = req
        .accesses
        .iter()
        .filter(|a| a.direction == Direction::Load)
        .collect();
    let ([store], [load]) = (stores.as_slice(), loads.as_slice()) else {
        return None;
    };
    let names: Vec<_> = req.tensor.iter().map(|(n, _)| n.clone()).collect();
    let prepare = |l: &LinearLayout| -> Option<LinearLayout> {
        layout_algebra::triton::strip_zero_register_bases(&l.transpose_outs(&names).ok()?).ok()
    };
    let (src, dst) = (prepare(&store.layout)?, prepare(&load.layout)?);
    // What Triton itself does on this machine, whatever the request allows.
    let chosen = convert_layout::optimal_swizzling(
        &src,
        &dst,
        req.element_bits,
        req.machine.matrix,
        req.machine.banks.banks,
    )
    .ok()?;
    let offsets = convert_layout::as_offset_layout(&chosen.layout).ok()?;
    let map = OffsetMap::from_shared(&offsets, &req.tensor).ok()?;
    map.offset_bases()?;
    let matrix = |i: bank::Instruction| matches!(i, bank::Instruction::Matrix { .. });
    let instructions = SharedInstructions {
        ldmatrix: matrix(chosen.load),
        stmatrix: matrix(chosen.store),
        ..req.machine.matrix
    };
    let candidate = Candidate {
        rounds: u32::try_from(chosen.layout.in_dim_size("reps")).unwrap_or(u32::MAX),
        ..Candidate::linear(map)
    };
    Some((candidate, instructions))
}

/// Where the construction stops short of the bound: Z3, when built in.
/// Z3 alone on a linear-family request, without the constructions' answer
/// to start from: a second, independent way to the optimum (the corpus
/// test compares the two) and the Z3 path's figures in the bench. The
/// answer is re-counted by enumeration like every other.
#[cfg(feature = "z3")]
pub fn solve_by_z3_alone(
    request: &SwizzleRequest,
    cancel: &Cancel,
) -> Result<(Status, Option<Score>), SolveError> {
    let problem = Problem::new(request)?;
    let plans = linear::plans(&problem);
    // Z3 tightens a known cost: start from the unswizzled layout (tensor
    // bit j at offset bit j), nothing the constructions chose.
    let identity = Candidate::linear(OffsetMap::from_columns(
        (0..problem.tensor_bits()).map(|j| 1 << j).collect(),
    ));
    let mut best = problem.score(&identity).map(|s| (identity, s));
    let deadline = std::time::Instant::now() + request.timeout;
    let (status, _) = smt::improve(&problem, &plans, &mut best, request, cancel, deadline);
    if let Some((candidate, score)) = &best {
        recount(&problem, candidate, score)?;
    }
    Ok((status, best.map(|(_, s)| s)))
}

/// The oracle: every access's wavefronts again, request by request, must
/// equal what the rank formula scored.
fn recount(problem: &Problem, candidate: &Candidate, score: &Score) -> Result<(), SolveError> {
    let counted = problem
        .enumerate(candidate, score)
        .ok_or_else(|| SolveError::Inconsistent("the answer could not be enumerated".into()))?;
    for (c, a) in counted.iter().zip(&score.accesses) {
        if *c != a.counts.wavefronts {
            return Err(SolveError::Inconsistent(format!(
                "the rank formula gives {} wavefronts but enumeration {}",
                a.counts.wavefronts, c
            )));
        }
    }
    Ok(())
}

fn search_further(
    problem: &Problem,
    plans: &plan::Plans,
    best: &mut Option<(Candidate, Score)>,
    request: &SwizzleRequest,
    cancel: &Cancel,
) -> (Status, String) {
    let deadline = std::time::Instant::now() + request.timeout;
    let sweep = exact::sweep(problem, &plans.list, best, cancel, deadline);
    if sweep.left.is_empty() && !sweep.stopped && plans.complete {
        return match best {
            Some((_, score)) => (
                Status::Optimal,
                format!(
                    "proved by enumerating every bank subspace each way of vectorising allows ({} plans, {} subspaces){}: no linear layout costs fewer than {} weighted wavefronts",
                    sweep.proved,
                    sweep.nodes,
                    if sweep.improved > 0 {
                        ", which improved the construction"
                    } else {
                        ""
                    },
                    score.weighted
                ),
            ),
            None => (
                Status::Infeasible,
                format!(
                    "no linear layout meets the request's limits (every bank subspace of {} plans enumerated)",
                    sweep.proved
                ),
            ),
        };
    }
    let plans = &plan::Plans {
        list: sweep.left,
        complete: plans.complete,
    };
    #[cfg(feature = "z3")]
    {
        smt::improve(problem, plans, best, request, cancel, deadline)
    }
    #[cfg(not(feature = "z3"))]
    {
        let _ = (problem, plans, request, cancel, deadline);
        let why = if best.is_some() {
            "the construction does not meet the lower bound, and this layoutc was built without Z3, which would search further"
        } else {
            "no construction meets the request's limits, and this layoutc was built without Z3, which would search further"
        };
        (Status::Feasible, why.to_string())
    }
}

/// Every notation that writes the answer exactly.
fn notations(
    candidate: &Candidate,
    listing: &search_family::Listing,
) -> Result<Vec<(String, String)>, SolveError> {
    Ok(search_family::NOTATION_ORDER
        .into_iter()
        .filter_map(|f| {
            search_family::of(f)
                .notation(candidate, listing)
                .map(|text| (f.name().to_string(), text))
        })
        .collect())
}
