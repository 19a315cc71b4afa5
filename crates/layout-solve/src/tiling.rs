//! TPU tilings: the `minor_to_major` and tile format with the least padded
//! bytes, proved by listing every order and every format of seed 001 for
//! the element type (or the user's tiles).

use std::time::{Duration, Instant};

use layout_algebra::xla::{XlaShape, element_type_bits};

use crate::request::TilingRequest;
use crate::{SolveError, Status};

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

/// The TPU formats of seed 001 for an element type, for an array whose
/// second-minor dim (after the order is chosen) is `second_minor`.
pub fn tpu_formats(element_type: &str, second_minor: i64) -> Vec<Vec<Vec<i64>>> {
    let bits = element_type_bits(element_type).unwrap_or(0);
    match (element_type, bits) {
        ("pred", _) => vec![vec![vec![32, 128], vec![32, 1]]],
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
        (_, 16) => vec![
            vec![vec![8, 128], vec![2, 1]],
            vec![vec![16, 128], vec![2, 1]],
        ],
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

/// Solves a tiling request by listing every candidate.
pub fn solve_tiling(request: &TilingRequest) -> Result<TilingSolution, SolveError> {
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
