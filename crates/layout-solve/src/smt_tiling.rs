//! Z3 over integer tile sizes, for tile searches too large to list.
//!
//! Unknowns, per tiled dim `j` of one placement: the tile size
//! `t_j = g_j · m_j` (a multiple of its granule, at most the space's
//! bound) and the tile count `q_j`, pinned to `ceil(d_j / t_j)` by
//! `q_j · t_j >= d_j > (q_j - 1) · t_j`. The tile's element count stays
//! within the request's bounds, and the padded extents' product
//! `Π q_j · t_j` below what beats the best found. Each model found lowers
//! that bound; unsatisfiable proves the best optimal in the placement.
//!
//! Bit-vectors, not integers: every value is bounded, so products are
//! exact in a width that holds the largest product, and the solver
//! bit-blasts them instead of searching nonlinear integer arithmetic
//! (which does not finish on arrays of a few hundred elements a side).
//! Every check has a time limit and is interrupted on [`Cancel`].

use std::time::Instant;

use z3::ast::{BV, Bool};
use z3::{Params, SatResult, Solver};

use crate::Cancel;
use crate::request::{TileSearch, TilingRequest};
use crate::smt::interruptible;
use crate::tile_space::{TileSpace, elements_allowed};

/// Bits that hold `x`.
fn bits(x: u64) -> u32 {
    (64 - x.leading_zeros()).max(1)
}

/// The least padded tile of `space` below `below` (when given): `(padded,
/// sizes most minor first)`, and whether the search finished (so nothing
/// in the space pads less than what it returns, or than `below`).
pub(crate) fn best_in_space(
    request: &TilingRequest,
    search: &TileSearch,
    space: &TileSpace,
    below: Option<i64>,
    deadline: Instant,
    cancel: &Cancel,
) -> (Option<(i64, Vec<i64>)>, bool) {
    if space.upper.iter().zip(&space.granule).any(|(u, g)| u < g) {
        return (None, true);
    }
    let k = space.minor.len();
    let dims: Vec<u64> = space
        .minor
        .iter()
        .map(|&d| request.dims[d] as u64)
        .collect();
    // Each extent is below `upper + d`; a product of k of them fits in
    // the sum of their widths.
    let width: u32 = (0..k)
        .map(|j| bits(space.upper[j] as u64 + dims[j]))
        .sum::<u32>()
        + 1;
    if width > 62 {
        return (None, false);
    }
    let constant = |x: u64, w: u32| BV::from_u64(x.min((1 << w) - 1), w);
    let solver = Solver::new();
    let mut sizes = Vec::with_capacity(k);
    let mut extents = Vec::with_capacity(k);
    for (j, &d) in dims.iter().enumerate() {
        let g = space.granule[j] as u64;
        // Each dim's own unknowns in the fewest bits that hold them, so
        // the multipliers Z3 bit-blasts stay small; widened for products.
        let w = bits(space.upper[j] as u64 + d) + 1;
        let m = BV::new_const(format!("m{j}"), w);
        let q = BV::new_const(format!("q{j}"), w);
        solver.assert(m.bvuge(constant(1, w)));
        solver.assert(m.bvule(constant(space.upper[j] as u64 / g, w)));
        // A tile is at least one granule, so no more tiles than granules.
        solver.assert(q.bvuge(constant(1, w)));
        solver.assert(q.bvule(constant(d.div_ceil(g), w)));
        let t = m.bvmul(constant(g, w));
        let covered = q.bvmul(&t);
        // `t` stays within `upper` by `m`'s bound; `q · t` must not wrap.
        solver.assert(q.bvmul_no_overflow(&t, false));
        solver.assert(covered.bvuge(constant(d, w)));
        solver.assert(covered.bvsub(&t).bvult(constant(d, w)));
        sizes.push(t.zero_ext(width - w));
        extents.push(covered.zero_ext(width - w));
    }
    let product = |terms: &[BV]| {
        terms[1..]
            .iter()
            .fold(terms[0].clone(), |acc, t| acc.bvmul(t))
    };
    let elements = product(&sizes);
    if let Some(min) = search.min_elements {
        solver.assert(elements.bvuge(constant(min as u64, width)));
    }
    if let Some(max) = search.max_elements {
        solver.assert(elements.bvule(constant(max as u64, width)));
    }
    let padded = product(&extents);
    let untiled = space.untiled.max(1) as u64;
    let mut best: Option<(i64, Vec<i64>)> = None;
    let mut limit = below;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || cancel.is_cancelled() {
            return (best, false);
        }
        if let Some(l) = limit {
            // untiled · Π extents < l, with untiled fixed.
            let most = (l as u64 - 1) / untiled;
            let fits: Bool = padded.bvule(constant(most, width));
            solver.assert(&fits);
        }
        let mut params = Params::new();
        params.set_u32(
            "timeout",
            left.as_millis().clamp(1, u32::MAX as u128) as u32,
        );
        solver.set_params(&params);
        match interruptible(cancel, || solver.check()) {
            SatResult::Unsat => return (best, true),
            SatResult::Unknown => return (best, false),
            SatResult::Sat => {
                let Some(model) = solver.get_model() else {
                    return (best, false);
                };
                let found: Option<Vec<i64>> = sizes
                    .iter()
                    .map(|t| {
                        model
                            .eval(t, true)
                            .and_then(|v| v.as_u64())
                            .map(|v| v as i64)
                    })
                    .collect();
                let Some(found) = found else {
                    return (best, false);
                };
                // Counted again outside Z3: the model must be a real tile.
                let p = space.padded(&request.dims, &found);
                if !elements_allowed(search, &found) || limit.is_some_and(|l| p >= l) {
                    return (best, false);
                }
                limit = Some(p);
                best = Some((p, found));
            }
        }
    }
}
