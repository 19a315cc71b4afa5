//! Where Triton's shared-memory allocator puts each buffer of a function:
//! the liveness of every buffer over the operations numbered in post order,
//! then the placement of "Algorithms for Compile-Time Memory Optimization"
//! (Gergov) that Triton implements — first starts by liveness triples,
//! then first-fit colouring of the interference graph, repeated until no
//! two live buffers overlap. The kernel's shared memory is the end of the
//! highest buffer: what the compiled kernel's `metadata.shared` reports.

use std::collections::{BTreeSet, HashMap};

use super::mlir::{Function, OpId};

/// Half-open `[start, end)`, over operation numbers or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub start: usize,
    pub end: usize,
}

impl Interval {
    pub const EVERYTHING: Interval = Interval {
        start: 0,
        end: usize::MAX,
    };

    pub fn intersects(self, other: Interval) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// One buffer to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub size: u64,
    pub alignment: u64,
    /// The operations (post-order numbers) during which it is live.
    pub live: Interval,
}

/// Each buffer's offset, and the bytes the function needs.
pub fn place(buffers: &[Buffer]) -> (Vec<u64>, u64) {
    if buffers.is_empty() {
        return (Vec::new(), 0);
    }
    // Largest first (stable): big buffers get a slot of their own.
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by(|&a, &b| buffers[b].size.cmp(&buffers[a].size));
    let mut offsets = vec![0u64; buffers.len()];
    calculate_starts(buffers, &order, &mut offsets);
    let mut total;
    loop {
        let graph = interference(buffers, &order, &offsets);
        total = colour(buffers, &order, &graph, &mut offsets);
        if interference(buffers, &order, &offsets)
            .iter()
            .all(|n| n.is_empty())
        {
            break;
        }
    }
    (offsets, total)
}

fn align(offset: u64, alignment: u64) -> u64 {
    offset.div_ceil(alignment.max(1)) * alignment.max(1)
}

/// The first offsets, by liveness triples (offset, live range): the lowest
/// free slot goes to the first buffer live in it and in no other open slot.
fn calculate_starts(buffers: &[Buffer], order: &[usize], offsets: &mut [u64]) {
    // (offset, insertion number, range): a multimap ordered by offset, equal
    // offsets in insertion order.
    let mut slots: BTreeSet<(u64, usize, usize, usize)> = BTreeSet::new();
    let mut inserted = 0;
    let mut insert = |slots: &mut BTreeSet<_>, offset: u64, range: Interval| {
        slots.insert((offset, inserted, range.start, range.end));
        inserted += 1;
    };
    insert(&mut slots, 0, Interval::EVERYTHING);
    let mut pending: Vec<usize> = order.to_vec();
    while !pending.is_empty() {
        let Some(first) = slots.pop_first() else {
            // No slot left for what remains: place it above everything.
            break;
        };
        let (offset, range) = (
            first.0,
            Interval {
                start: first.2,
                end: first.3,
            },
        );
        let chosen = pending.iter().position(|&b| {
            let live = buffers[b].live;
            live.intersects(range)
                && !slots.iter().any(|s| {
                    Interval {
                        start: s.2,
                        end: s.3,
                    }
                    .intersects(live)
                })
        });
        if let Some(at) = chosen {
            let b = pending.remove(at);
            let live = buffers[b].live;
            let aligned = align(offset, buffers[b].alignment);
            offsets[b] = aligned;
            insert(
                &mut slots,
                aligned + buffers[b].size,
                Interval {
                    start: range.start.max(live.start),
                    end: range.end.min(live.end),
                },
            );
            if range.start < live.start {
                insert(
                    &mut slots,
                    offset,
                    Interval {
                        start: range.start,
                        end: live.end,
                    },
                );
            }
            if live.end < range.end {
                insert(
                    &mut slots,
                    offset,
                    Interval {
                        start: live.start,
                        end: range.end,
                    },
                );
            }
        }
    }
}

/// For each buffer, the buffers live at the same time whose bytes overlap.
fn interference(buffers: &[Buffer], order: &[usize], offsets: &[u64]) -> Vec<Vec<usize>> {
    let bytes = |b: usize| Interval {
        start: offsets[b] as usize,
        end: (offsets[b] + buffers[b].size) as usize,
    };
    let mut graph = vec![Vec::new(); buffers.len()];
    for &x in order {
        for &y in order {
            if x != y
                && buffers[x].live.intersects(buffers[y].live)
                && bytes(x).intersects(bytes(y))
            {
                graph[x].push(y);
            }
        }
    }
    graph
}

/// First-fit colouring; a buffer of colour > 0 moves above every buffer it
/// interferes with. Returns the end of the highest buffer.
fn colour(buffers: &[Buffer], order: &[usize], graph: &[Vec<usize>], offsets: &mut [u64]) -> u64 {
    let mut colours: HashMap<usize, usize> = HashMap::new();
    colours.insert(order[0], 0);
    for &x in order {
        let taken: BTreeSet<usize> = graph[x]
            .iter()
            .filter_map(|y| colours.get(y).copied())
            .collect();
        let c = (0..).find(|c| !taken.contains(c)).unwrap_or(0);
        colours.insert(x, c);
    }
    let mut total = 0;
    for &x in order {
        let above = graph[x]
            .iter()
            .map(|&y| offsets[y] + buffers[y].size)
            .max()
            .unwrap_or(0);
        if colours[&x] != 0 {
            offsets[x] = align(above, buffers[x].alignment);
        }
        total = total.max(offsets[x] + buffers[x].size);
    }
    total
}

/// Post-order numbers of a function's operations.
pub fn numbering(f: &Function) -> Vec<usize> {
    let mut ids = vec![0; f.ops.len()];
    for (n, op) in f.post_order().into_iter().enumerate() {
        ids[op] = n;
    }
    ids
}

/// The operations during which `value` is live, as MLIR's liveness
/// resolves it: in its defining block from the definition (or the block's
/// start) to the last operation that uses it there (directly or inside a
/// region), and in each block that uses it from the block's start to the
/// last use. Blocks of structured control flow have no successors.
pub fn live_range(f: &Function, ids: &[usize], users: &[OpId], value: &str) -> Option<Interval> {
    let (def_block, def_op) = definition(f, value)?;
    let mut blocks = vec![def_block];
    for &u in users {
        if let Some(b) = f.ops[u].block
            && !blocks.contains(&b)
        {
            blocks.push(b);
        }
    }
    let mut range: Option<Interval> = None;
    for b in blocks {
        let ops = &f.blocks[b].ops;
        if ops.is_empty() {
            continue;
        }
        let start = match def_op {
            Some(d) if b == def_block => ops.iter().position(|&o| o == d).unwrap_or(0),
            _ => 0,
        };
        let mut end = start;
        for &u in users {
            if let Some(a) = f.ancestor_in(b, u)
                && let Some(p) = ops.iter().position(|&o| o == a)
                && p > end
            {
                end = p;
            }
        }
        for &o in &ops[start..=end] {
            let id = ids[o];
            range = Some(match range {
                None => Interval {
                    start: id,
                    end: id + 1,
                },
                Some(r) => Interval {
                    start: r.start.min(id),
                    end: r.end.max(id + 1),
                },
            });
        }
    }
    range
}

/// The block that defines `value` and the operation that does (none for a
/// block argument).
fn definition(f: &Function, value: &str) -> Option<(usize, Option<OpId>)> {
    if let Some((id, op)) = f
        .ops
        .iter()
        .enumerate()
        .find(|(_, op)| op.results.iter().any(|r| r == value))
    {
        return Some((op.block?, Some(id)));
    }
    f.blocks
        .iter()
        .position(|b| b.arguments.iter().any(|a| a == value))
        .map(|b| (b, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(size: u64, start: usize, end: usize) -> Buffer {
        Buffer {
            size,
            alignment: 16,
            live: Interval { start, end },
        }
    }

    #[test]
    fn buffers_live_apart_share_an_offset() {
        // A reduction's scratch and a later conversion's scratch: both at 0.
        let (offsets, total) = place(&[buffer(1024, 10, 11), buffer(256, 14, 15)]);
        assert_eq!(offsets, [0, 0]);
        assert_eq!(total, 1024);
    }

    #[test]
    fn buffers_live_together_stack_and_stay_aligned() {
        // Two pipelined operand buffers live over the whole loop, and a
        // conversion inside it.
        let mut c = buffer(100, 5, 6);
        c.alignment = 128;
        let (offsets, total) = place(&[buffer(24576, 1, 40), buffer(8192, 2, 40), c]);
        let overlapping = |a: usize, b: usize, sizes: [u64; 3]| {
            offsets[a] < offsets[b] + sizes[b] && offsets[b] < offsets[a] + sizes[a]
        };
        let sizes = [24576, 8192, 100];
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            assert!(!overlapping(a, b, sizes), "{offsets:?}");
        }
        assert_eq!(offsets[2] % 128, 0);
        assert_eq!(
            total,
            offsets.iter().zip(sizes).map(|(o, s)| o + s).max().unwrap()
        );
        assert_eq!(total, 24576 + 8192 + 100);
    }
}
