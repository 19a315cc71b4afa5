//! Where Triton's shared-memory allocator puts each buffer of a function:
//! the liveness of every buffer over the operations numbered in post order,
//! then the placement of "Algorithms for Compile-Time Memory Optimization"
//! (Gergov) that Triton implements — first starts by liveness triples,
//! then first-fit colouring of the interference graph, repeated until no
//! two live buffers overlap. The kernel's shared memory is the end of the
//! highest buffer: what the compiled kernel's `metadata.shared` reports.
//!
//! Two rules beyond liveness: buffers of different partitions of one
//! `ttg.warp_specialize` run at the same time, so they never share bytes;
//! and on a target whose shared memory is cut into physical partitions
//! (gfx1250: 64 KiB each) the pieces of a `#ttg.partitioned_shared` tensor
//! sit in different partitions.

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub size: u64,
    pub alignment: u64,
    /// The operations (post-order numbers) during which it is live.
    pub live: Interval,
    /// The other pieces of the same partitioned tensor (indices into the
    /// buffers placed together): they must sit in other physical partitions.
    pub neighbours: Vec<usize>,
    /// For an owner nested in a `ttg.warp_specialize`: that op, and the
    /// region the owner sits in (its op and number). Buffers of one
    /// `ttg.warp_specialize` owned in different regions may run at once.
    pub concurrent: Option<(OpId, (OpId, usize))>,
}

impl Buffer {
    /// A buffer with no partition rules.
    pub fn new(size: u64, alignment: u64, live: Interval) -> Buffer {
        Buffer {
            size,
            alignment,
            live,
            neighbours: Vec::new(),
            concurrent: None,
        }
    }
}

/// Each buffer's offset, and the bytes the function needs.
/// `partition_size`: the bytes of one physical partition of shared memory,
/// 0 where it is not partitioned.
pub fn place(buffers: &[Buffer], partition_size: u64) -> (Vec<u64>, u64) {
    if buffers.is_empty() {
        return (Vec::new(), 0);
    }
    let rules = Rules {
        buffers,
        partition_size,
    };
    // Largest first (stable): big buffers get a slot of their own.
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by(|&a, &b| buffers[b].size.cmp(&buffers[a].size));
    let mut offsets = vec![0u64; buffers.len()];
    rules.calculate_starts(&order, &mut offsets);
    let mut total;
    loop {
        let graph = rules.interference(&order, &offsets);
        total = rules.colour(&order, &graph, &mut offsets);
        if rules
            .interference(&order, &offsets)
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

struct Rules<'a> {
    buffers: &'a [Buffer],
    partition_size: u64,
}

impl Rules<'_> {
    /// The physical partition that holds byte `at`.
    fn partition_of(&self, at: u64) -> u64 {
        at.checked_div(self.partition_size).unwrap_or(0)
    }

    /// The partitions `[first, last]` a buffer at `offset` spans.
    fn partitions(&self, b: usize, offset: u64) -> (u64, u64) {
        let size = self.buffers[b].size.max(1);
        (
            self.partition_of(offset),
            self.partition_of(offset + size - 1),
        )
    }

    /// Whether `b` at `offset` stays out of the partitions of every placed
    /// neighbour.
    fn clear_of_neighbours(&self, b: usize, offset: u64, offsets: &[u64], placed: &[bool]) -> bool {
        if self.partition_size == 0 {
            return true;
        }
        let (lo, hi) = self.partitions(b, offset);
        self.buffers[b].neighbours.iter().all(|&n| {
            if !placed[n] {
                return true;
            }
            let (nlo, nhi) = self.partitions(n, offsets[n]);
            hi < nlo || nhi < lo
        })
    }

    /// The first byte above every partition neighbour `n` takes.
    fn past_partitions_of(&self, n: usize, offsets: &[u64]) -> u64 {
        (self.partitions(n, offsets[n]).1 + 1) * self.partition_size
    }

    /// The first offsets, by liveness triples (offset, live range): the
    /// lowest free slot goes to the first buffer live in it and in no other
    /// open slot (and clear of its neighbours' partitions).
    fn calculate_starts(&self, order: &[usize], offsets: &mut [u64]) {
        let buffers = self.buffers;
        // (offset, insertion number, range): a multimap ordered by offset,
        // equal offsets in insertion order.
        let mut slots: BTreeSet<(u64, usize, usize, usize)> = BTreeSet::new();
        let mut inserted = 0;
        let mut insert = |slots: &mut BTreeSet<_>, offset: u64, range: Interval| {
            slots.insert((offset, inserted, range.start, range.end));
            inserted += 1;
        };
        insert(&mut slots, 0, Interval::EVERYTHING);
        let mut placed = vec![false; buffers.len()];
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
            let eligible: Vec<usize> = pending
                .iter()
                .copied()
                .filter(|&b| {
                    let live = buffers[b].live;
                    live.intersects(range)
                        && !slots.iter().any(|s| {
                            Interval {
                                start: s.2,
                                end: s.3,
                            }
                            .intersects(live)
                        })
                })
                .collect();
            let chosen = eligible.iter().copied().find(|&b| {
                self.clear_of_neighbours(b, align(offset, buffers[b].alignment), offsets, &placed)
            });
            let Some(b) = chosen else {
                if !eligible.is_empty() && self.partition_size > 0 {
                    // Every candidate shares a partition with a placed
                    // neighbour: reopen the slot past the nearest such one.
                    let reopened = eligible
                        .iter()
                        .map(|&b| {
                            buffers[b]
                                .neighbours
                                .iter()
                                .filter(|&&n| placed[n])
                                .map(|&n| self.past_partitions_of(n, offsets))
                                .max()
                                .unwrap_or(0)
                        })
                        .min()
                        .unwrap_or(offset);
                    if reopened > offset {
                        insert(&mut slots, reopened, range);
                    }
                }
                continue;
            };
            pending.retain(|&p| p != b);
            placed[b] = true;
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

    /// For each buffer, the buffers whose bytes it may not share: live at
    /// the same time, or run concurrently by another partition of the same
    /// `ttg.warp_specialize`, with overlapping bytes; and partition
    /// neighbours in a common physical partition.
    fn interference(&self, order: &[usize], offsets: &[u64]) -> Vec<Vec<usize>> {
        let buffers = self.buffers;
        let bytes = |b: usize| Interval {
            start: offsets[b] as usize,
            end: (offsets[b] + buffers[b].size) as usize,
        };
        let concurrent = |x: usize, y: usize| match (buffers[x].concurrent, buffers[y].concurrent) {
            (Some((op_x, region_x)), Some((op_y, region_y))) => {
                op_x == op_y && region_x != region_y
            }
            _ => false,
        };
        let mut graph = vec![Vec::new(); buffers.len()];
        for &x in order {
            for &y in order {
                if x != y
                    && (buffers[x].live.intersects(buffers[y].live) || concurrent(x, y))
                    && bytes(x).intersects(bytes(y))
                {
                    graph[x].push(y);
                }
            }
            if self.partition_size > 0 {
                let (lo, hi) = self.partitions(x, offsets[x]);
                for &n in &buffers[x].neighbours {
                    let (nlo, nhi) = self.partitions(n, offsets[n]);
                    if lo <= nhi && nlo <= hi && !graph[x].contains(&n) {
                        graph[x].push(n);
                    }
                }
            }
        }
        graph
    }

    /// First-fit colouring; a buffer of colour > 0 moves above every buffer
    /// it interferes with (above a neighbour's partitions, for a piece of
    /// a partitioned tensor). Returns the end of the highest buffer.
    fn colour(&self, order: &[usize], graph: &[Vec<usize>], offsets: &mut [u64]) -> u64 {
        let buffers = self.buffers;
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
                .map(|&y| {
                    if self.partition_size > 0 && buffers[x].neighbours.contains(&y) {
                        self.past_partitions_of(y, offsets)
                    } else {
                        offsets[y] + buffers[y].size
                    }
                })
                .max()
                .unwrap_or(0);
            if colours[&x] != 0 {
                offsets[x] = align(above, buffers[x].alignment);
            }
            total = total.max(offsets[x] + buffers[x].size);
        }
        total
    }
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
/// start), in each block where it is live on entry from the block's start,
/// to the last operation that uses it there (directly or inside a region)
/// or, where a successor needs it, to the block's end. Blocks of structured
/// control flow have no successors; the lowered form's `cf` branches do
/// (a value used in a loop's body is then live over the whole loop).
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
    // The blocks of the defining region that hold a use, at any depth.
    let region: Vec<usize> = f.ops[f.blocks[def_block].owner]
        .regions
        .iter()
        .find(|r| r.contains(&def_block))
        .cloned()
        .unwrap_or_default();
    let using: Vec<usize> = region
        .into_iter()
        .filter(|&b| users.iter().any(|&u| f.ancestor_in(b, u).is_some()))
        .collect();
    let live_out = live_out_blocks(f, def_block, &using);
    for &b in &live_out {
        if !blocks.contains(&b) {
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
        if live_out.contains(&b) {
            end = ops.len() - 1;
        }
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

/// The blocks a value defined in `def_block` and used in `use_blocks` is
/// live out of through `cf` branches: every predecessor of a block where it
/// is live on entry (used there, or live out, and not defined there).
fn live_out_blocks(f: &Function, def_block: usize, use_blocks: &[usize]) -> Vec<usize> {
    let branches = f.blocks.iter().any(|b| !b.successors.is_empty());
    if !branches {
        return Vec::new();
    }
    let predecessors =
        |block: usize| (0..f.blocks.len()).filter(move |&p| f.successors(p).contains(&block));
    let mut live_in: Vec<usize> = Vec::new();
    let mut live_out: Vec<usize> = Vec::new();
    let mut work: Vec<usize> = use_blocks
        .iter()
        .copied()
        .filter(|&b| b != def_block)
        .collect();
    while let Some(b) = work.pop() {
        if live_in.contains(&b) {
            continue;
        }
        live_in.push(b);
        for p in predecessors(b) {
            if !live_out.contains(&p) {
                live_out.push(p);
            }
            if p != def_block && !live_in.contains(&p) {
                work.push(p);
            }
        }
    }
    live_out
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
        Buffer::new(size, 16, Interval { start, end })
    }

    /// A loop in the lowered form: `%k`, stored before the loop and read
    /// early in its body, is live over the whole body (the back edge takes
    /// it round again), so the body's `%t`, made after `%k`'s last read,
    /// cannot take its bytes; `%t` itself is dead after its read. Without
    /// the back edge (structured form, one block) they would not overlap.
    #[test]
    fn a_value_read_in_a_cf_loop_body_lives_over_the_whole_loop() {
        let text = r#"module {
  tt.func public @k(%n: i32) {
    %k = ttg.local_alloc %x : (tensor<32x64xf16, #b>) -> !ttg.memdesc<32x64xf16, #s, #smem>
    cf.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %c = arith.cmpi slt, %i, %n : i32
    cf.cond_br %c, ^bb2, ^bb3
  ^bb2:
    %a = ttg.local_load %k : !ttg.memdesc<32x64xf16, #s, #smem> -> tensor<32x64xf16, #b>
    %t = ttg.local_alloc %a : (tensor<32x64xf16, #b>) -> !ttg.memdesc<32x64xf16, #s, #smem>
    %u = ttg.local_load %t : !ttg.memdesc<32x64xf16, #s, #smem> -> tensor<32x64xf16, #b>
    %j = arith.addi %i, %c1 : i32
    cf.br ^bb1(%j : i32)
  ^bb3:
    tt.return
  }
}
"#;
        let f = &crate::kernel::mlir::functions(text)[0];
        let ids = numbering(f);
        let users = |v: &str| -> Vec<OpId> {
            (0..f.ops.len())
                .filter(|&o| f.ops[o].operands.iter().any(|x| x == v))
                .collect()
        };
        let k = live_range(f, &ids, &users("%k"), "%k").unwrap();
        let t = live_range(f, &ids, &users("%t"), "%t").unwrap();
        assert!(k.intersects(t), "{k:?} {t:?}");
        // %t's own range ends at its read: the back edge does not need it.
        let read_t = f
            .ops
            .iter()
            .position(|o| o.operands.contains(&"%t".to_string()));
        assert_eq!(t.end, ids[read_t.unwrap()] + 1);
        let (offsets, total) = place(&[Buffer::new(4096, 16, k), Buffer::new(4096, 16, t)], 0);
        assert_ne!(offsets[0], offsets[1]);
        assert_eq!(total, 8192);
    }

    #[test]
    fn buffers_live_apart_share_an_offset() {
        // A reduction's scratch and a later conversion's scratch: both at 0.
        let (offsets, total) = place(&[buffer(1024, 10, 11), buffer(256, 14, 15)], 0);
        assert_eq!(offsets, [0, 0]);
        assert_eq!(total, 1024);
    }

    #[test]
    fn buffers_live_together_stack_and_stay_aligned() {
        // Two pipelined operand buffers live over the whole loop, and a
        // conversion inside it.
        let mut c = buffer(100, 5, 6);
        c.alignment = 128;
        let (offsets, total) = place(&[buffer(24576, 1, 40), buffer(8192, 2, 40), c], 0);
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

    #[test]
    fn pieces_of_a_partitioned_tensor_sit_in_different_partitions() {
        // Two 128x64 f32 tensors cut in two pieces each (16 KiB), live
        // together, on gfx1250's 64 KiB partitions: the Triton 3.9 wheel
        // places them at [0, 65536] and [16384, 81920], 98304 bytes in all
        // (tests/corpus/kernels/partitioned_pair_gfx1250.allocated.ttgir).
        let mut pieces: Vec<Buffer> = (0..4).map(|_| buffer(16384, 2, 9)).collect();
        for (a, b) in [(0, 1), (2, 3)] {
            pieces[a].neighbours = vec![b];
            pieces[b].neighbours = vec![a];
        }
        let (offsets, total) = place(&pieces, 65536);
        assert_eq!(offsets, [0, 65536, 16384, 81920]);
        assert_eq!(total, 98304);
        // Without partitions they simply stack.
        let (offsets, total) = place(&pieces, 0);
        assert_eq!(total, 65536, "{offsets:?}");
    }

    #[test]
    fn partitions_of_a_warp_specialize_never_share_bytes() {
        // Scratch of three reductions, live at different operations: one
        // in the default region and one in each of two partitions of the
        // same `ttg.warp_specialize` (op 7, regions 0..3). They run at once,
        // so none shares bytes (Triton 3.9: offsets 0, 128, 256).
        let mut scratch: Vec<Buffer> = [(3, 0), (5, 1), (8, 2)]
            .into_iter()
            .map(|(at, region)| {
                let mut b = buffer(128, at, at + 1);
                b.alignment = 128;
                b.concurrent = Some((7, (7, region)));
                b
            })
            .collect();
        let (offsets, total) = place(&scratch, 0);
        assert_eq!(offsets, [0, 128, 256]);
        assert_eq!(total, 384);
        // Outside a `ttg.warp_specialize` they would all sit at 0.
        for b in &mut scratch {
            b.concurrent = None;
        }
        assert_eq!(place(&scratch, 0), (vec![0, 0, 0], 128));
    }
}
