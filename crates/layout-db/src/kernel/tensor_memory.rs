//! Blackwell's tensor memory as Triton 3.9 allocates it
//! (`TensorMemoryAllocation`): 128 lanes in two halves of 64 by 512 and
//! more 32-bit columns. Each `ttng.tmem_alloc` takes whole columns and
//! both halves of the lanes, or one half for a 64-row block; allocations
//! are placed in program order, first fit, at columns aligned to 4, among
//! those still live; an MMA whose A operand sits in tensor memory in
//! 64-row blocks needs it in the same half as its accumulator. The kernel
//! allocates the end of the highest column, rounded up to 32, 64, 128, 256
//! or 512 columns.

use super::allocator::Interval;

/// One allocation's size: 32-bit columns, and lanes (64 or 128).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMemorySize {
    pub columns: u64,
    pub rows: u64,
}

/// What `getTmemAllocSizes` gives a memdesc of `shape` (leading
/// multi-buffering dims included) and `bits`-wide elements in the encoding
/// `encoding` (its attribute text: `#ttng.tensor_memory_encoding<blockM =
/// 64, blockN = 64, colStride = 1>` or `#ttng.tensor_memory_scales_encoding<>`).
pub fn size(shape: &[u32], bits: u32, encoding: &str) -> Option<TensorMemorySize> {
    let (m, n) = match shape {
        [.., m, n] => (*m as u64, *n as u64),
        _ => return None,
    };
    // A cluster's CTAs each hold their own tile of the tensor.
    let (m, n) = match cta_placement(encoding)?.shape_per_cta(&[m as u32, n as u32]) {
        Ok(tile) => (tile[0] as u64, tile[1] as u64),
        Err(_) => return None,
    };
    if encoding.contains("tensor_memory_scales_encoding") {
        // Scales: packed and replicated four times.
        return Some(TensorMemorySize {
            columns: m.div_ceil(32) * n.div_ceil(4),
            rows: 128,
        });
    }
    if !encoding.contains("tensor_memory_encoding") {
        return None;
    }
    let key = |name: &str| -> Option<u64> {
        let at = encoding.find(&format!("{name} = "))? + name.len() + 3;
        encoding[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let block_m = key("blockM")?.max(1);
    let bits = bits as u64;
    // Elements one 32-bit column holds of a row: packed 16-bit elements two,
    // unpacked ones (`colStride = 32 / bits`, or `unpacked = true`) one.
    let stride = if encoding.contains("unpacked = true") {
        32 / bits.clamp(1, 32)
    } else {
        key("colStride").unwrap_or(1)
    };
    let stages = shape[..shape.len() - 2]
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d as u64))?;
    let columns = stages
        .checked_mul(m.div_ceil(block_m))?
        .checked_mul(n.checked_mul(bits)?.checked_mul(stride)?.div_ceil(32))?;
    // Far beyond the 512 columns a CTA has: not a tensor this allocator
    // places (and not one to lay out column by column).
    if columns > MAX_COLUMNS {
        return None;
    }
    Some(TensorMemorySize {
        columns,
        rows: if block_m == 64 { 64 } else { 128 },
    })
}

/// How a cluster's CTAs split the tensor: the encoding's `CGALayout = [[..],
/// ..]` bases (none: one CTA). `None` for bases that are not a CTA
/// placement.
fn cta_placement(encoding: &str) -> Option<layout_algebra::triton::CgaLayout> {
    let Some(at) = encoding.find("CGALayout = ") else {
        return Some(layout_algebra::triton::CgaLayout::single(2));
    };
    let text = &encoding[at + "CGALayout = ".len()..];
    let list = &text[..text.find("]]").map_or(2, |e| e + 2)];
    let bases: Vec<Vec<u32>> = list
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split("], [")
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            b.trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .map(|v| v.trim().parse().ok())
                .collect::<Option<Vec<u32>>>()
        })
        .collect::<Option<_>>()?;
    layout_algebra::triton::CgaLayout::from_bases(2, bases).ok()
}

/// The most columns one allocation may ask for and still be placed (the
/// hardware has 512; a kernel over that is reported, not placed).
const MAX_COLUMNS: u64 = 1 << 16;

/// One allocation to place.
#[derive(Clone, Debug)]
pub struct Request {
    pub size: TensorMemorySize,
    pub live: Interval,
    /// Allocations that must share a half of the lanes (an MMA's A
    /// operand and its accumulator): the same number.
    pub group: Option<usize>,
}

/// Where each allocation starts (column, and the first lane: 0 or 16 as
/// Triton's `tensor_memory_row_offset` says it, in 16-lane units of a
/// warp's quarter), and the columns the kernel allocates.
pub fn place(requests: &[Request]) -> (Vec<(u64, u64)>, u64) {
    const ALIGNMENT: usize = 4;
    // used[column][half]
    let mut used: Vec<[bool; 2]> = Vec::new();
    let mut live: Vec<(usize, Interval)> = Vec::new();
    let mut group_half: std::collections::HashMap<usize, usize> = Default::default();
    let mut placed = Vec::with_capacity(requests.len());
    let mut chunks: Vec<(usize, usize, usize, usize)> = Vec::new(); // col, cols, half, halves
    let mut end = 0u64;
    for (i, r) in requests.iter().enumerate() {
        // Free what died before this one starts.
        live.retain(|&(j, interval)| {
            if interval.end <= r.live.start {
                mark(&mut used, chunks[j], false);
                false
            } else {
                true
            }
        });
        let cols = r.size.columns as usize;
        let halves = if r.size.rows <= 64 { 1 } else { 2 };
        // Only a 64-row block has a half to share with its group.
        let wanted = r
            .group
            .filter(|_| halves == 1)
            .and_then(|g| group_half.get(&g).copied());
        let free = |used: &Vec<[bool; 2]>, col: usize, half: usize| {
            (col..col + cols)
                .all(|c| (half..half + halves).all(|h| !used.get(c).is_some_and(|u| u[h])))
        };
        let mut col = 0;
        let (col, half) = loop {
            let fit = (0..=2 - halves)
                .filter(|&h| wanted.is_none_or(|w| w == h))
                .find(|&h| free(&used, col, h));
            if let Some(h) = fit {
                break (col, h);
            }
            // Past every used column both halves are free.
            if col >= used.len() {
                break (col, wanted.unwrap_or(0));
            }
            col += ALIGNMENT;
        };
        if used.len() < col + cols {
            used.resize(col + cols, [false; 2]);
        }
        mark(&mut used, (col, cols, half, halves), true);
        chunks.push((col, cols, half, halves));
        live.push((i, r.live));
        if let Some(g) = r.group.filter(|_| halves == 1) {
            group_half.entry(g).or_insert(half);
        }
        placed.push((col as u64, half as u64 * 16));
        end = end.max((col + cols) as u64);
    }
    let total = [0, 32, 64, 128, 256, 512]
        .into_iter()
        .find(|&s| end <= s)
        .unwrap_or(end);
    (placed, total)
}

/// Marks a chunk (first column, columns, first half, halves) used or free.
fn mark(used: &mut [[bool; 2]], (col, cols, half, halves): (usize, usize, usize, usize), to: bool) {
    for c in &mut used[col..col + cols] {
        for h in c.iter_mut().skip(half).take(halves) {
            *h = to;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(columns: u64, rows: u64, start: usize, end: usize) -> Request {
        Request {
            size: TensorMemorySize { columns, rows },
            live: Interval { start, end },
            group: None,
        }
    }

    /// Two 64-row blocks share columns in the two halves of the lanes; an
    /// operand tied to the first's half goes after it.
    #[test]
    fn sixty_four_row_blocks_share_columns() {
        let mut operand = request(32, 64, 2, 8);
        operand.group = Some(0);
        let mut accumulator = request(64, 64, 0, 10);
        accumulator.group = Some(0);
        let (placed, total) = place(&[accumulator, request(64, 64, 1, 9), operand]);
        assert_eq!(placed, [(0, 0), (0, 16), (64, 0)]);
        assert_eq!(total, 128);
    }

    /// A dead allocation's columns are taken again; the total rounds up.
    #[test]
    fn dead_columns_are_reused() {
        let (placed, total) = place(&[request(128, 128, 0, 2), request(96, 128, 3, 5)]);
        assert_eq!(placed, [(0, 0), (0, 0)]);
        assert_eq!(total, 128);
        let (_, total) = place(&[request(128, 128, 0, 4), request(96, 128, 3, 5)]);
        assert_eq!(total, 256);
    }

    #[test]
    fn sizes_follow_the_encoding() {
        let enc = "#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>";
        assert_eq!(
            size(&[64, 64], 32, enc),
            Some(TensorMemorySize {
                columns: 64,
                rows: 64
            })
        );
        assert_eq!(
            size(&[64, 64], 16, enc),
            Some(TensorMemorySize {
                columns: 32,
                rows: 64
            })
        );
        let wide = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>";
        assert_eq!(
            size(&[2, 128, 128], 32, wide),
            Some(TensorMemorySize {
                columns: 256,
                rows: 128
            })
        );
    }

    /// A cluster of two CTAs splitting the columns (tests/corpus/kernels'
    /// `cluster_matmul` on sm100): each CTA allocates its 64 of 128.
    #[test]
    fn each_cta_of_a_cluster_holds_its_own_tile() {
        let split = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = [[0, 1]]>";
        assert_eq!(size(&[128, 128], 32, split).map(|s| s.columns), Some(64));
        let repeated = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1, CGALayout = [[0, 0]]>";
        assert_eq!(
            size(&[128, 128], 32, repeated).map(|s| s.columns),
            Some(128)
        );
        let both = "#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1, CGALayout = [[0, 1], [1, 0]]>";
        assert_eq!(size(&[128, 128], 32, both).map(|s| s.columns), Some(64));
        let broken = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = [[0, x]]>";
        assert_eq!(size(&[128, 128], 32, broken), None);
    }
}

#[cfg(test)]
mod edge_cases {
    use super::*;

    /// A 64-row operand that lands in the second half does not hold its
    /// 128-row accumulator to that half (which could never fit it).
    #[test]
    fn a_whole_lane_allocation_ignores_its_group_s_half() {
        let block = |columns, rows, group| Request {
            size: TensorMemorySize { columns, rows },
            live: Interval { start: 0, end: 10 },
            group,
        };
        let (placed, total) = place(&[
            block(64, 64, None),
            block(32, 64, Some(0)),
            block(128, 128, Some(0)),
        ]);
        assert_eq!(placed, [(0, 0), (0, 16), (64, 0)]);
        assert_eq!(total, 256);
    }

    /// Sizes that overflow, or far beyond the hardware, are not placed.
    #[test]
    fn huge_allocations_are_not_sized() {
        let enc = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>";
        assert_eq!(size(&[u32::MAX, u32::MAX, u32::MAX], 32, enc), None);
        let strided = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 18446744073709551615>";
        assert_eq!(size(&[128, 128], 32, strided), None);
    }
}
