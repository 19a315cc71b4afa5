//! Shared-memory wavefronts of a tiled copy's instructions against a CuTe
//! shared layout: the question every CuTe user asks of a copy into a
//! swizzled tile. The shared tensor is partitioned as `ThrCopy::partition_S`
//! / `partition_D` partitions it; each warp's instructions are split into
//! phases as the hardware serves them (ldmatrix/stmatrix: one phase per 8x16-byte
//! matrix, with rows addressed by lanes `8j..8j+7`; vector accesses: lanes
//! filling 128 bytes), and a phase takes as many wavefronts as the most
//! distinct 4-byte words any one bank serves (the model of
//! [`crate::bank`], CONTRACT section 4).

use std::collections::BTreeSet;

use super::atom::CopyInstruction;
use super::partition::{PartitionLayout, TensorLayout};
use super::tiled::{Side, TiledCopy};
use super::{Int, Layout, SwizzledLayout, Tiler, Tuple};
use crate::bank::{BankTarget, Direction};
use crate::error::{LayoutError, Result};

/// The largest shared tensor whose copy is counted (every element is
/// visited once per count).
pub const MAX_COUNTED_ELEMENTS: i64 = 1 << 22;

/// What one warp's share of a copy costs, for the worst warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyWavefronts {
    /// Instructions the worst warp issues.
    pub instructions: u64,
    /// Wavefronts they take.
    pub wavefronts: u64,
    /// Wavefronts without conflicts (one per phase).
    pub ideal: u64,
    /// Which warp is the worst (the first of equals).
    pub worst_warp: u64,
    /// Wavefronts of every warp together, as a profiler counts a launch.
    pub all_warps_wavefronts: u64,
    /// Instructions of every warp together.
    pub all_warps_instructions: u64,
    /// Wavefronts of every warp together without conflicts.
    pub all_warps_ideal: u64,
}

/// Whether the copy reads shared memory on `side` (ldmatrix's source,
/// stmatrix's and cp.async's destination); plain copies take the side the
/// caller names.
pub fn shared_side(instruction: CopyInstruction) -> Option<Side> {
    match instruction {
        CopyInstruction::Ldmatrix { .. } => Some(Side::Source),
        CopyInstruction::Stmatrix { .. } | CopyInstruction::CpAsync { .. } => {
            Some(Side::Destination)
        }
        CopyInstruction::Universal { .. } | CopyInstruction::AutoVectorizing { .. } => None,
    }
}

impl TiledCopy {
    /// `ThrCopy::partition_S/D` of a whole tensor: `(thread, value, rest)`
    /// -> the tensor's offset (CuTe's `tidfrg_S` / `tidfrg_D`).
    pub fn partition(&self, tensor: &Layout, side: Side) -> Result<Layout> {
        let tiler = match &self.tiler {
            Tuple(modes) => Tiler::Modes(modes.iter().map(|m| Tiler::Int(m.product())).collect()),
            Int(n) => Tiler::Int(*n),
        };
        let zipped = tensor.zipped_divide(&tiler)?;
        self.tile2thrfrg(&zipped, side)
    }

    /// Shared-memory wavefronts of the copy of the whole `smem` tensor (a
    /// CuTe layout of the copy's value type, swizzled or not) on `side`.
    pub fn wavefronts(
        &self,
        smem: &SwizzledLayout,
        side: Side,
        target: &BankTarget,
    ) -> Result<CopyWavefronts> {
        self.shared_offsets(&smem.layout, side)?
            .wavefronts(smem.swizzle, smem.offset, target)
    }

    /// The unswizzled offset of every `(thread, value, rest)` of the copy
    /// of a whole tensor: computed once, then costed under any swizzle.
    pub fn shared_offsets(&self, tensor: &Layout, side: Side) -> Result<CopyOffsets> {
        if tensor.size() > MAX_COUNTED_ELEMENTS {
            return Err(LayoutError::invalid(
                "wavefronts",
                format!(
                    "the tensor {tensor} has {} elements; a copy is counted element by element, up to 2^22",
                    tensor.size()
                ),
            ));
        }
        let part = self.partition(tensor, side)?;
        // A copy tile larger than the tensor (or threads that share
        // elements) makes the partition larger than the tensor.
        if part.size() > MAX_COUNTED_ELEMENTS {
            return Err(LayoutError::invalid(
                "wavefronts",
                format!(
                    "partitioned by this copy, the tensor {tensor} has {} (thread, value) pairs; they are counted one by one, up to 2^22",
                    part.size()
                ),
            ));
        }
        let target_layout = match side {
            Side::Source => &self.atom.val_src,
            Side::Destination => &self.atom.val_dst,
        };
        // An auto-vectorising copy moves what `cute::copy` proves it can
        // move at once, in the order of the thread's register fragment.
        let (per_instruction, order) = match self.atom.instruction {
            CopyInstruction::AutoVectorizing { max_bits } => {
                let vector = self.auto_vector(tensor, side, max_bits)?;
                (vector.elements, Some(vector.order))
            }
            _ => (target_layout.mode(1).size(), None),
        };
        Ok(CopyOffsets {
            order,
            threads: part.mode(0).size(),
            values: part.mode(1).size(),
            rests: part.mode(2).size(),
            per_instruction,
            table: part.table(),
            bits: self.atom.value_bits as i64,
            instruction: self.atom.instruction,
            direction: direction(self.atom.instruction, side),
            op: self.atom.op.clone(),
        })
    }
}

/// How an auto-vectorising copy runs one thread's part.
struct AutoVector {
    /// Elements per instruction.
    elements: i64,
    /// The thread's values (indices `v + values * r` of its part) in the
    /// order of its register fragment, which `cute::copy` follows.
    order: Vec<i64>,
}

impl TiledCopy {
    /// What `cute::copy` does with an auto-vectorising atom
    /// (`AutoVectorizingCopyWithAssumedAlignment<max_bits>`; `DefaultCopy`
    /// assumes 8 bits) between a thread's part of the shared tensor and its
    /// register fragment (`make_fragment_like`): it moves as many elements
    /// at once as both keep contiguous and it can prove aligned.
    fn auto_vector(&self, tensor: &Layout, side: Side, max_bits: u32) -> Result<AutoVector> {
        let part = self.partition_thread(&TensorLayout::Plain(tensor.clone()), side, 0)?;
        let PartitionLayout::Plain(shared) = part.layout else {
            unreachable!("a plain tensor partitions into plain layouts")
        };
        let fragment = shared.make_fragment_like()?;
        let bits = self.atom.value_bits as i64;
        let n = fragment.size();
        let mut order = vec![-1; n as usize];
        for i in 0..n {
            let f = fragment.call(i);
            if (0..n).contains(&f) && order[f as usize] < 0 {
                order[f as usize] = i;
            }
        }
        if order.contains(&-1) {
            // Broadcast values: one element at a time, in the part's order.
            return Ok(AutoVector {
                elements: 1,
                order: (0..n).collect(),
            });
        }
        Ok(AutoVector {
            elements: auto_vector_elements(&shared, &fragment, bits, max_bits as i64)?,
            order,
        })
    }

    /// Elements per instruction of the copy on its `side` of `smem`: the
    /// atom's width, or for an auto-vectorising atom what `cute::copy`
    /// proves it can move at once (a swizzle keeps at most its `2^M`
    /// untouched elements together).
    pub fn vector_elements(&self, smem: &SwizzledLayout, side: Side) -> Result<i64> {
        let offsets = self.shared_offsets(&smem.layout, side)?;
        Ok(offsets.elements_under(smem.swizzle, smem.offset))
    }
}

/// `cute::copy`'s choice for an auto-vectorising copy between two tensors
/// of `bits`-bit values: the common contiguous run (`max_common_vector`), in
/// bits, cut to what both layouts' alignment and `max_bits` allow.
pub fn auto_vector_elements(
    shared: &Layout,
    fragment: &Layout,
    bits: i64,
    max_bits: i64,
) -> Result<i64> {
    let common = shared.max_common_vector(fragment)?;
    if common <= 1 {
        return Ok(1);
    }
    let align_bits = super::gcd(
        super::gcd(
            shared.max_alignment()? * bits,
            fragment.max_alignment()? * bits,
        ),
        max_bits,
    );
    let vec_bits = super::gcd(common * bits, align_bits);
    Ok(if vec_bits % 8 == 0 && bits < vec_bits {
        vec_bits / bits
    } else {
        1
    })
}

/// A tiled copy's element offsets in a shared tensor before any swizzle:
/// `table[t + threads * (v + values * r)]`.
#[derive(Clone, Debug)]
pub struct CopyOffsets {
    threads: i64,
    values: i64,
    rests: i64,
    per_instruction: i64,
    /// The thread's values in instruction order (`None`: `(value, rest)`
    /// order, a whole atom per instruction).
    order: Option<Vec<i64>>,
    table: Vec<i64>,
    bits: i64,
    instruction: CopyInstruction,
    direction: Direction,
    op: String,
}

impl CopyOffsets {
    /// Elements per instruction under `swizzle(offset + x)`: a swizzle
    /// moves elements in runs of `2^M` (its base), so an auto-vectorising
    /// copy keeps no more together (C++'s `max_common_vector` and
    /// `max_alignment` of a swizzled layout), nor more than the offset's
    /// alignment.
    fn elements_under(&self, swizzle: super::Swizzle, offset: i64) -> i64 {
        let mut n = self.per_instruction;
        if matches!(self.instruction, CopyInstruction::AutoVectorizing { .. }) {
            if swizzle.bits > 0 {
                n = n.min(1 << swizzle.base);
            }
            if offset != 0 {
                n = n.min(1 << offset.trailing_zeros());
            }
        }
        n
    }

    /// The `(thread, value, rest)` triples counted.
    pub fn pairs(&self) -> usize {
        self.table.len()
    }

    /// Wavefronts of the worst warp with the offsets swizzled by
    /// `swizzle(offset + x)`.
    pub fn wavefronts(
        &self,
        swizzle: super::Swizzle,
        base: i64,
        target: &BankTarget,
    ) -> Result<CopyWavefronts> {
        let per_instruction = self.elements_under(swizzle, base);
        let (threads, values, bits) = (self.threads, self.values, self.bits);
        let access_bits = per_instruction * bits;
        let warp = target.warp_size as i64;
        let warps = (threads + warp - 1) / warp;
        let offset = |t: i64, local: i64| -> i64 {
            swizzle.apply(base + self.table[(t + threads * local) as usize])
        };
        let phases = target.phases_for(access_bits as u32, self.direction);
        let matrices = match self.instruction {
            CopyInstruction::Ldmatrix { matrices, .. }
            | CopyInstruction::Stmatrix { matrices, .. } => Some(matrices as i64),
            _ => None,
        };
        // Lane -> its phase: matrices by row groups of 8, vectors by the
        // target's phase rule.
        let lanes_in_warp = warp.min(threads);
        let phase_of: Vec<i64> = (0..lanes_in_warp)
            .map(|l| match matrices {
                Some(_) => l / 8,
                None => *phases
                    .phase_of(l as u32)
                    .first()
                    .expect("a lane's phase holds it") as i64,
            })
            .collect();
        let bank_bytes = target.bank_bytes as i64;
        let banks = phases.banks as usize;
        let width = (access_bits / 8).max(1);
        let mut worst = CopyWavefronts {
            instructions: 0,
            wavefronts: 0,
            ideal: 0,
            worst_warp: 0,
            all_warps_wavefronts: 0,
            all_warps_instructions: 0,
            all_warps_ideal: 0,
        };
        let (mut all_wavefronts, mut all_instructions, mut all_ideal) = (0, 0, 0);
        let mut per_bank: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); banks];
        for w in 0..warps {
            let lanes = w * warp..((w + 1) * warp).min(threads);
            let mut cost = CopyWavefronts {
                instructions: 0,
                wavefronts: 0,
                ideal: 0,
                worst_warp: w as u64,
                all_warps_wavefronts: 0,
                all_warps_instructions: 0,
                all_warps_ideal: 0,
            };
            let per_rest = values / per_instruction;
            for k in 0..values * self.rests / per_instruction {
                // Up to 2^22 pairs: a caller that no longer waits stops it.
                crate::interrupt::check()?;
                // The thread's value `e` of instruction `k`, as an index
                // `v + values * r` of its part.
                let local = |e: i64| match &self.order {
                    Some(order) => order[(k * per_instruction + e) as usize],
                    None => (k % per_rest) * per_instruction + e + values * (k / per_rest),
                };
                {
                    cost.instructions += 1;
                    // Phase key -> requests (byte address) of its lanes.
                    let mut groups: Vec<(i64, Vec<i64>)> = Vec::new();
                    for t in lanes.clone() {
                        let lane = t - w * warp;
                        if let Some(m) = matrices
                            && lane / 8 >= m
                        {
                            continue;
                        }
                        let first = offset(t, local(0));
                        for k in 1..per_instruction {
                            let o = offset(t, local(k));
                            if o != first + k {
                                return Err(LayoutError::invalid(
                                    "wavefronts",
                                    format!(
                                        "thread {t}'s {per_instruction} values of one {} are not contiguous \
                                         in this shared layout (value {k} is at offset {o}, not {}): CuTe \
                                         cannot issue the copy on it",
                                        self.op,
                                        first + k
                                    ),
                                ));
                            }
                        }
                        let byte = first * bits / 8;
                        if width > 1 && byte % width != 0 {
                            return Err(LayoutError::invalid(
                                "wavefronts",
                                format!(
                                    "thread {t} would access {width} bytes at byte {byte}, which is not \
                                     {width}-byte aligned: a misaligned access on hardware"
                                ),
                            ));
                        }
                        let key = phase_of[lane as usize];
                        match groups.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, v)) => v.push(byte),
                            None => groups.push((key, vec![byte])),
                        }
                    }
                    for (_, requests) in groups {
                        cost.ideal += 1;
                        per_bank.iter_mut().for_each(BTreeSet::clear);
                        for &byte in &requests {
                            for word in byte / bank_bytes..=(byte + width - 1) / bank_bytes {
                                per_bank[(word % banks as i64) as usize].insert(word);
                            }
                        }
                        let by_banks = per_bank
                            .iter()
                            .map(|b| b.len() as u64)
                            .max()
                            .unwrap_or(0)
                            .max(1);
                        cost.wavefronts += match self.instruction {
                            CopyInstruction::CpAsync {
                                cache_global: true, ..
                            } => crate::bank::cp_async_cg_wavefronts(
                                by_banks,
                                requests.iter().map(|&byte| byte as u64),
                            ),
                            _ => by_banks,
                        };
                    }
                }
            }
            all_wavefronts += cost.wavefronts;
            all_instructions += cost.instructions;
            all_ideal += cost.ideal;
            if w == 0 || cost.wavefronts > worst.wavefronts {
                worst = cost;
            }
        }
        worst.all_warps_wavefronts = all_wavefronts;
        worst.all_warps_instructions = all_instructions;
        worst.all_warps_ideal = all_ideal;
        Ok(worst)
    }
}

fn direction(instruction: CopyInstruction, side: Side) -> Direction {
    match (instruction, side) {
        (CopyInstruction::Ldmatrix { .. }, _) => Direction::Load,
        (CopyInstruction::Stmatrix { .. } | CopyInstruction::CpAsync { .. }, _) => Direction::Store,
        (_, Side::Source) => Direction::Load,
        (_, Side::Destination) => Direction::Store,
    }
}
