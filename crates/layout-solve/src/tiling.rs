//! TPU tilings: the `minor_to_major` and tile format with the least padded
//! bytes, proved by listing every order and every TPU format for
//! the element type (or the user's tiles); or, for a [`TileSearch`], the
//! integer tile sizes with the least padding, listed when there are few
//! and searched with Z3 when there are too many.

use std::time::{Duration, Instant};

use layout_algebra::xla::{XlaShape, element_type_bits};

use crate::request::{TileMethod, TileSearch, TilingRequest};
use crate::tile_space::{TileSpace, elements_allowed};
use crate::{Cancel, SolveError, Status};

/// The answer to a tiling request.
#[derive(Clone, Debug)]
pub struct TilingSolution {
    pub status: Status,
    pub why: String,
    pub shape: Option<XlaShape>,
    /// Layouts scored.
    pub candidates: usize,
    pub elapsed: Duration,
}

/// The TPU formats for an element type, for an array whose second-minor
/// dim (after the order is chosen) is `second_minor`: seed 001's, and what
/// XLA's TPU backend is seen to emit besides. XLA's layout assignment for
/// TPU is in libtpu, not in its public sources
/// (`xla/stream_executor/tpu/tpu_transfer_manager.cc` only forwards
/// `ChooseCompactLayoutForShape` to it), so the evidence is its output in
/// XLA's tests and the public rule Mosaic used before it moved into libtpu:
/// - 16-bit arrays with two or four rows tile `(2,128)(2,1)` /
///   `(4,128)(2,1)`, as 32-bit ones tile `(2,128)` / `(4,128)`: Mosaic's
///   `getTilingFactor` (jax `jaxlib/mosaic/dialect/tpu/transforms/
///   infer_memref_layout.cc`, before jax commit 43d14afad3) doubles the
///   sublane tiling from its minimum while it is below the second-minor
///   size; XLA's `xla/tools/hlo_isolation/hlo_isolation_test_base_test.cc`
///   holds a TPU dump with `bf16[1,1,40,100,128]{4,1,3,2,0:T(2,128)(2,1)}`,
///   and `xla/hlo/transforms/host_offload_legalize_test.cc` expects
///   `T(4,128)(2,1)` on a bf16 array with four rows.
/// - pred is stored one byte per element (`docs/tiled_layout.md` in XLA:
///   "the size in bytes of the PRED element type is 1"; its `(32,128)(32,1)`
///   is what would be less wasteful), and XLA's TPU dumps tile it as 8-bit
///   data: `pred[14,40,100,128]{3,0,2,1:T(8,128)(4,1)}` in
///   `hlo_isolation_test_base_test.cc`; with four rows or fewer,
///   `(4,128)(4,1)` by the same Mosaic rule for 8-bit data.
pub fn tpu_formats(element_type: &str, second_minor: i64) -> Vec<Vec<Vec<i64>>> {
    let bits = element_type_bits(element_type).unwrap_or(0);
    match (element_type, bits) {
        ("pred", _) => {
            let mut out = vec![
                vec![vec![32, 128], vec![32, 1]],
                vec![vec![8, 128], vec![4, 1]],
            ];
            if second_minor <= 4 {
                out.push(vec![vec![4, 128], vec![4, 1]]);
            }
            out
        }
        (_, 32) => {
            let mut out = vec![vec![vec![8, 128]]];
            if second_minor <= 4 {
                out.push(vec![vec![4, 128]]);
            }
            if second_minor <= 2 {
                out.push(vec![vec![2, 128]]);
            }
            out
        }
        (_, 16) => {
            let mut out = vec![
                vec![vec![8, 128], vec![2, 1]],
                vec![vec![16, 128], vec![2, 1]],
            ];
            if second_minor <= 4 {
                out.push(vec![vec![4, 128], vec![2, 1]]);
            }
            if second_minor <= 2 {
                out.push(vec![vec![2, 128], vec![2, 1]]);
            }
            out
        }
        (_, 8) => vec![
            vec![vec![8, 128], vec![4, 1]],
            vec![vec![32, 128], vec![4, 1]],
        ],
        _ => Vec::new(),
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(rest: &mut Vec<usize>, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(prefix.clone());
            return;
        }
        for i in 0..rest.len() {
            let d = rest.remove(i);
            prefix.push(d);
            go(rest, prefix, out);
            prefix.pop();
            rest.insert(i, d);
        }
    }
    let mut out = Vec::new();
    // Row-major (`{n-1,...,0}`) first, so ties keep XLA's default order.
    go(&mut (0..n).rev().collect(), &mut Vec::new(), &mut out);
    out
}

fn text(element_type: &str, dims: &[i64], minor_to_major: &[usize], tiles: &[Vec<i64>]) -> String {
    let join = |v: &[String]| v.join(",");
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    let order: Vec<String> = minor_to_major.iter().map(|d| d.to_string()).collect();
    // `T(8,128)(2,1)`: one `T`, then each level in parentheses.
    let tiles: String = tiles
        .iter()
        .map(|t| {
            let t: Vec<String> = t.iter().map(|x| x.to_string()).collect();
            format!("({})", join(&t))
        })
        .collect();
    let tiles = if tiles.is_empty() {
        tiles
    } else {
        format!("T{tiles}")
    };
    format!(
        "{element_type}[{}]{{{}:{tiles}}}",
        join(&dims),
        join(&order)
    )
}

/// Solves a tiling request: by listing every candidate format, or by a
/// tile-size search.
pub fn solve_tiling(
    request: &TilingRequest,
    cancel: &Cancel,
) -> Result<TilingSolution, SolveError> {
    let start = Instant::now();
    let rank = request.dims.len();
    if rank > 7 {
        return Err(SolveError::Invalid(format!(
            "an array of rank {rank}: tilings are searched up to rank 7"
        )));
    }
    if element_type_bits(&request.element_type).is_none() {
        return Err(SolveError::Invalid(format!(
            "'{}' is not an XLA element type",
            request.element_type
        )));
    }
    if let Some(d) = request.minor_dim
        && d >= rank
    {
        return Err(SolveError::Invalid(format!(
            "the fixed minor dim {d} is not a dim of a rank-{rank} array"
        )));
    }
    // An array that is itself out of range is refused before any search,
    // so the error names the array, not whichever tile was best so far.
    let row_major: Vec<usize> = (0..rank).rev().collect();
    let plain = text(&request.element_type, &request.dims, &row_major, &[]);
    XlaShape::parse(&plain).map_err(|e| SolveError::Invalid(e.to_string()))?;
    if let Some(search) = &request.tile_search {
        return solve_tile_search(request, search, cancel, start);
    }
    let mut best: Option<(i64, XlaShape)> = None;
    let mut candidates = 0;
    for order in permutations(rank) {
        if request.minor_dim.is_some_and(|d| order.first() != Some(&d)) {
            continue;
        }
        let second_minor = if rank >= 2 { request.dims[order[1]] } else { 1 };
        let formats = if request.candidate_tiles.is_empty() {
            tpu_formats(&request.element_type, second_minor)
        } else {
            request.candidate_tiles.clone()
        };
        if formats.is_empty() {
            return Err(SolveError::Invalid(format!(
                "seed 001 gives no TPU format for '{}'",
                request.element_type
            )));
        }
        for tiles in formats {
            let t = text(&request.element_type, &request.dims, &order, &tiles);
            let shape =
                XlaShape::parse(&t).map_err(|e| SolveError::Invalid(format!("{t}: {e}")))?;
            candidates += 1;
            let bytes = shape.padded_bytes();
            if request
                .max_padded_bytes
                .is_some_and(|max| bytes as u64 > max)
            {
                continue;
            }
            if best.as_ref().is_none_or(|(b, _)| bytes < *b) {
                best = Some((bytes, shape));
            }
        }
    }
    let elapsed = start.elapsed();
    Ok(match best {
        Some((bytes, shape)) => TilingSolution {
            status: Status::Optimal,
            why: format!(
                "every one of the {candidates} orders and TPU formats was scored; none pads to fewer than {bytes} bytes"
            ),
            shape: Some(shape),
            candidates,
            elapsed,
        },
        None => TilingSolution {
            status: Status::Infeasible,
            why: format!(
                "none of the {candidates} orders and TPU formats stays within {} padded bytes",
                request.max_padded_bytes.unwrap_or(0)
            ),
            shape: None,
            candidates,
            elapsed,
        },
    })
}

/// More tiles than this are searched with Z3 (when built with it).
pub const ENUMERATION_LIMIT: u64 = 1 << 17;

/// The best tile over a coarse grid of each dim's sizes: the granule's
/// powers of two, the array dim split into 1..=64 tiles, and the least
/// tile's size; a starting point for Z3.
#[cfg_attr(not(feature = "z3"), allow(dead_code))]
fn coarse_best(
    request: &TilingRequest,
    search: &TileSearch,
    space: &TileSpace,
) -> Option<(i64, Vec<i64>)> {
    let round_up = |x: i64, g: i64| (x + g - 1) / g * g;
    let grids: Vec<Vec<i64>> = space
        .minor
        .iter()
        .zip(space.granule.iter().zip(&space.upper))
        .map(|(&d, (&g, &u))| {
            let d = request.dims[d];
            let mut sizes: Vec<i64> = (0..40)
                .map(|i| g << i)
                .take_while(|&t| t <= u)
                .chain((1..=64).map(|c| round_up((d + c - 1) / c, g)))
                .chain(search.min_elements.map(|m| round_up(m, g)))
                .filter(|&t| t >= g && t <= u)
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
        })
        .collect();
    if grids.iter().any(Vec::is_empty) {
        return None;
    }
    let mut best: Option<(i64, Vec<i64>)> = None;
    let mut at = vec![0; grids.len()];
    loop {
        let sizes: Vec<i64> = at.iter().zip(&grids).map(|(&i, g)| g[i]).collect();
        if elements_allowed(search, &sizes) {
            let p = space.padded(&request.dims, &sizes);
            if best.as_ref().is_none_or(|(b, _)| p < *b) {
                best = Some((p, sizes));
            }
        }
        let mut j = grids.len();
        loop {
            if j == 0 {
                return best;
            }
            j -= 1;
            at[j] += 1;
            if at[j] < grids[j].len() {
                break;
            }
            at[j] = 0;
        }
    }
}

/// Every way to put the tile over `k` dims, with size bounds that keep
/// every optimum: a tile dim larger than both its array dim and the least
/// tile (each rounded up to the granule) pads more than one that is not.
fn tile_spaces(request: &TilingRequest, search: &TileSearch) -> Vec<TileSpace> {
    let rank = request.dims.len();
    let k = search.multiple.len();
    // Granules most minor first.
    let granule: Vec<i64> = search.multiple.iter().rev().copied().collect();
    let round_up = |x: i64, g: i64| (x + g - 1) / g * g;
    let least = search.min_elements.unwrap_or(1);
    let mut spaces = Vec::new();
    for order in permutations(rank) {
        let minor: Vec<usize> = order[..k].to_vec();
        if request.minor_dim.is_some_and(|d| minor[0] != d) {
            continue;
        }
        // The dims after the tile keep XLA's row-major order, so only
        // the tiled prefix tells spaces apart.
        if spaces.iter().any(|s: &TileSpace| s.minor == minor) {
            continue;
        }
        let upper: Vec<i64> = minor
            .iter()
            .zip(&granule)
            .enumerate()
            .map(|(j, (&d, &g))| {
                let mut u = round_up(request.dims[d], g).max(round_up(least, g));
                if let Some(max) = search.max_elements {
                    let others: i64 = granule
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != j)
                        .map(|(_, g)| g)
                        .product();
                    u = u.min(max / others / g * g);
                }
                u
            })
            .collect();
        let untiled = (0..rank)
            .filter(|d| !minor.contains(d))
            .map(|d| request.dims[d])
            .product();
        spaces.push(TileSpace {
            minor,
            granule: granule.clone(),
            upper,
            untiled,
        });
    }
    spaces
}

/// The best tile of a space by listing every size: `(padded, sizes)`,
/// the smallest sizes first among equals.
fn enumerate_space(
    request: &TilingRequest,
    search: &TileSearch,
    space: &TileSpace,
    deadline: Instant,
    cancel: &Cancel,
) -> (Option<(i64, Vec<i64>)>, bool) {
    let k = space.minor.len();
    let mut sizes = space.granule.clone();
    let mut best: Option<(i64, Vec<i64>)> = None;
    let mut steps = 0u64;
    if space.upper.iter().zip(&space.granule).any(|(u, g)| u < g) {
        return (None, true);
    }
    loop {
        if elements_allowed(search, &sizes) {
            let p = space.padded(&request.dims, &sizes);
            if best.as_ref().is_none_or(|(b, _)| p < *b) {
                best = Some((p, sizes.clone()));
            }
        }
        steps += 1;
        if steps.is_multiple_of(4096) && (Instant::now() > deadline || cancel.is_cancelled()) {
            return (best, false);
        }
        // The next size, the most minor dim slowest.
        let mut j = k;
        loop {
            if j == 0 {
                return (best, true);
            }
            j -= 1;
            if sizes[j] + space.granule[j] <= space.upper[j] {
                sizes[j] += space.granule[j];
                break;
            }
            sizes[j] = space.granule[j];
        }
    }
}

/// The array with the tiled dims most minor, the rest row-major, and the
/// tile (`sizes` most minor first) written as XLA writes it.
fn tiled_shape(
    request: &TilingRequest,
    space: &TileSpace,
    sizes: &[i64],
) -> Result<XlaShape, SolveError> {
    let rank = request.dims.len();
    let mut order = space.minor.clone();
    order.extend((0..rank).rev().filter(|d| !space.minor.contains(d)));
    let tile: Vec<i64> = sizes.iter().rev().copied().collect();
    let t = text(&request.element_type, &request.dims, &order, &[tile]);
    XlaShape::parse(&t).map_err(|e| SolveError::Invalid(format!("{t}: {e}")))
}

fn solve_tile_search(
    request: &TilingRequest,
    search: &TileSearch,
    cancel: &Cancel,
    start: Instant,
) -> Result<TilingSolution, SolveError> {
    let rank = request.dims.len();
    let k = search.multiple.len();
    if k == 0 || k > rank {
        return Err(SolveError::Invalid(format!(
            "a tile of {k} dims over an array of rank {rank}: `tile_multiple` needs 1 to {rank} granules"
        )));
    }
    if let Some(&g) = search.multiple.iter().find(|&&g| g < 1) {
        return Err(SolveError::Invalid(format!(
            "a tile granule of {g}: each must be at least 1"
        )));
    }
    if let (Some(lo), Some(hi)) = (search.min_elements, search.max_elements)
        && lo > hi
    {
        return Err(SolveError::Invalid(format!(
            "a tile of at least {lo} and at most {hi} elements"
        )));
    }
    let deadline = start + request.timeout;
    let spaces = tile_spaces(request, search);
    let total: u64 = spaces
        .iter()
        .map(TileSpace::len)
        .fold(0, u64::saturating_add);
    let use_z3 = match search.method {
        TileMethod::Enumerate => false,
        TileMethod::Z3 => true,
        TileMethod::Auto => total > ENUMERATION_LIMIT,
    };
    let mut best: Option<(i64, usize, Vec<i64>)> = None;
    let mut complete = true;
    // How the answer is proved: listing, or Z3 in some placements and
    // the floor in the rest.
    #[cfg_attr(not(feature = "z3"), allow(unused_mut))]
    let mut z3_placements: Option<usize> = None;
    if use_z3 {
        #[cfg(feature = "z3")]
        {
            z3_placements = Some(0);
            // A good answer first, from a coarse grid of sizes, so Z3
            // mostly proves that nothing beats it.
            for (i, space) in spaces.iter().enumerate() {
                if let Some((p, sizes)) = coarse_best(request, search, space)
                    && best.as_ref().is_none_or(|(b, _, _)| p < *b)
                {
                    best = Some((p, i, sizes));
                }
            }
            for (i, space) in spaces.iter().enumerate() {
                let bound = best.as_ref().map(|(p, _, _)| *p);
                if bound.is_some_and(|b| b <= space.floor(&request.dims)) {
                    continue;
                }
                z3_placements = z3_placements.map(|n| n + 1);
                let (found, proved) = crate::smt_tiling::best_in_space(
                    request, search, space, bound, deadline, cancel,
                );
                complete &= proved;
                if let Some((p, sizes)) = found
                    && best.as_ref().is_none_or(|(b, _, _)| p < *b)
                {
                    best = Some((p, i, sizes));
                }
            }
        }
        #[cfg(not(feature = "z3"))]
        {
            let _ = cancel;
            return Err(SolveError::Invalid(format!(
                "{total} tiles are too many to list, and this layoutc was built without Z3"
            )));
        }
    } else {
        for (i, space) in spaces.iter().enumerate() {
            let (found, finished) = enumerate_space(request, search, space, deadline, cancel);
            complete &= finished;
            if let Some((p, sizes)) = found
                && best.as_ref().is_none_or(|(b, _, _)| p < *b)
            {
                best = Some((p, i, sizes));
            }
        }
    }
    let candidates = total.min(usize::MAX as u64) as usize;
    let elapsed = start.elapsed();
    let Some((padded, i, sizes)) = best else {
        let status = if complete {
            Status::Infeasible
        } else {
            Status::Timeout
        };
        return Ok(TilingSolution {
            status,
            why: if complete {
                "no tile of those granules holds an allowed number of elements".to_string()
            } else {
                format!("no tile found within {} ms", request.timeout.as_millis())
            },
            shape: None,
            candidates,
            elapsed,
        });
    };
    // The array itself is in range (checked first), so a tile that is not
    // is one whose padding takes it past XLA's limit: said without the
    // tile, which depends on how far a time-limited search got.
    let shape = tiled_shape(request, &spaces[i], &sizes).map_err(|_| {
        SolveError::Invalid(format!(
            "{}[{}]: its least padded tiling found is past 2^40 elements",
            request.element_type,
            request
                .dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ))
    })?;
    // Re-scored by XLA's own padding rule, not the search's formula.
    if shape.padded_elements() != padded {
        return Err(SolveError::Inconsistent(format!(
            "{shape} pads to {} elements, the search counted {padded}",
            shape.padded_elements()
        )));
    }
    let bytes = shape.padded_bytes();
    if request
        .max_padded_bytes
        .is_some_and(|max| bytes as u64 > max)
    {
        return Ok(TilingSolution {
            status: if complete {
                Status::Infeasible
            } else {
                Status::Timeout
            },
            why: format!(
                "the least padding any tile gives is {bytes} bytes, over the {} allowed",
                request.max_padded_bytes.unwrap_or(0)
            ),
            shape: None,
            candidates,
            elapsed,
        });
    }
    let placements = spaces.len();
    let (status, why) = if complete {
        (
            Status::Optimal,
            match z3_placements {
                None => format!(
                    "every one of the {candidates} tile sizes in {placements} placements was scored; none pads to fewer than {bytes} bytes"
                ),
                Some(0) => format!(
                    "{candidates} tile sizes in {placements} placements; the answer meets the floor (each tiled dim rounded up to its granule), so none pads to fewer than {bytes} bytes"
                ),
                Some(n) => format!(
                    "{candidates} tile sizes in {placements} placements; Z3 proved that none pads to fewer than {bytes} bytes (searching {n} of them; no other placement's floor is lower)"
                ),
            },
        )
    } else {
        (
            Status::Timeout,
            format!(
                "the search stopped after {} ms; the best tile found pads to {bytes} bytes",
                request.timeout.as_millis()
            ),
        )
    };
    Ok(TilingSolution {
        status,
        why,
        shape: Some(shape),
        candidates,
        elapsed,
    })
}
