//! Who asks which bank for which word, wavefront by wavefront.
//!
//! The enumeration oracle ([`super::padded_wavefronts_by_enumeration`])
//! groups the requests of warp 0 into instructions and phases and keeps only
//! the count. A picture needs the groups themselves: for every phase, each
//! lane's request (its element offset, the words it touches) and how many
//! distinct words each bank serves. [`trace`] walks the warp the same way;
//! the wavefronts it sums are the oracle's (tested below and in
//! `tests/bank_trace.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Access, BankTarget, Geometry, Instruction, Wavefronts, geometry, padded_offset};
use crate::error::{LayoutError, Result};
use crate::f2;

/// One lane's request in one phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The lane that supplies the address (for ldmatrix/stmatrix, lane
    /// `8j + r` addresses row `r` of matrix `j`).
    pub lane: u32,
    /// The register holding the first element of the request.
    pub register: u64,
    /// The element offset of the first element, padding included.
    pub offset: u64,
    /// Elements moved (the vector, or the 8 elements of a matrix row).
    pub elements: u64,
    /// The word addresses touched (`bank_bytes` each).
    pub words: Vec<u64>,
}

/// The requests one instruction serves together: they take as many
/// wavefronts as the most distinct words any one bank serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    /// Which of the warp's instructions (0-based, in issue order).
    pub instruction: u64,
    /// Which phase of that instruction (0-based).
    pub phase: u64,
    pub requests: Vec<Request>,
}

/// Every phase of one warp's access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The banks the access sees (a word's bank is `word % banks`).
    pub banks: u32,
    pub phases: Vec<Phase>,
}

impl Phase {
    /// Distinct words asked of each bank (index = bank).
    pub fn words_per_bank(&self, banks: u32) -> Vec<u64> {
        let mut words: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); banks as usize];
        for r in &self.requests {
            for &w in &r.words {
                words[(w % banks as u64) as usize].insert(w);
            }
        }
        words.iter().map(|s| s.len() as u64).collect()
    }

    /// Wavefronts this phase takes: the busiest bank's distinct words.
    pub fn wavefronts(&self, banks: u32) -> u64 {
        self.words_per_bank(banks).into_iter().max().unwrap_or(0)
    }
}

impl Trace {
    /// The wavefronts of the whole access (the oracle's count).
    pub fn wavefronts(&self) -> u64 {
        self.phases.iter().map(|p| p.wavefronts(self.banks)).sum()
    }
}

/// The requests of warp 0 of `access`, grouped as the hardware serves them
/// (see the module documentation). `padding` as in
/// [`super::padded_wavefronts_by_enumeration`].
pub fn trace(access: &Access, target: &BankTarget, padding: &[(u32, u32)]) -> Result<Trace> {
    let g = geometry(access, target, padding)?;
    let d = super::addressing(access)?;
    let bits = (
        d.in_dim_size_log2(super::REGISTER),
        d.in_dim_size_log2(super::LANE),
    );
    group_requests(
        &g,
        access.instruction,
        access.element_bits,
        target,
        padding,
        bits,
        ElementOffsets::new(&Access {
            distributed: &d,
            ..*access
        })?
        .of_warp(0)?,
    )
}

/// Groups the requests of warp 0 (the offset of each register and lane from
/// `offset_of`, before padding) into instructions and phases as the
/// hardware does: the one grouping both the oracle's count and the pictures
/// read.
pub(super) fn group_requests(
    g: &Geometry,
    instruction: Instruction,
    element_bits: u32,
    target: &BankTarget,
    padding: &[(u32, u32)],
    (reg_bits, lane_bits): (u32, u32),
    offset_of: impl Fn(u64, u64) -> Result<u64>,
) -> Result<Trace> {
    let eb = element_bits as u64;
    let word_bytes = target.bank_bytes as u64;
    let request = |lane: u32, register: u64, start: u64, elements: u64| {
        let offset = padded_offset(padding, start);
        Request {
            lane,
            register,
            offset,
            elements,
            words: word_range(offset, elements, eb, word_bytes).collect(),
        }
    };
    let mut phases = Vec::new();
    match instruction {
        Instruction::LdSt { .. }
        | Instruction::Paired { .. }
        | Instruction::ReadTransposed { .. } => {
            let vec = g.vector_elems;
            let lanes = lane_requests(g, (reg_bits, lane_bits), &offset_of)?;
            // (instruction, request, phase id) -> requests, as the oracle
            // groups them: request `k` of every lane is served by itself,
            // the two of a paired instruction one after the other.
            let instruction_of = |k: usize| g.instruction_of.get(k).copied().unwrap_or(k as u64);
            let mut groups: BTreeMap<(u64, u64, u64), Vec<Request>> = BTreeMap::new();
            for (lane, requests) in lanes.per_lane.iter().enumerate() {
                let phase_id = lanes.phase_of[lane];
                for (k, &(reg, block)) in requests.iter().enumerate() {
                    groups
                        .entry((instruction_of(k), k as u64, phase_id))
                        .or_default()
                        .push(request(lane as u32, reg as u64, block as u64 * vec, vec));
                }
            }
            // Number the phases of each instruction in order of their id.
            let mut next: HashMap<u64, u64> = HashMap::new();
            for ((instruction, _, _), requests) in groups {
                let n = next.entry(instruction).or_default();
                phases.push(Phase {
                    instruction,
                    phase: *n,
                    requests,
                });
                *n += 1;
            }
        }
        Instruction::Matrix { count, trans } => {
            let extra = count.trailing_zeros();
            // The register bits of one lane's 32-bit share of a row: for
            // `.trans` the one Triton's search picks (the odd rows), else the
            // registers holding the consecutive elements (wherever they are);
            // the others pick the matrix and the instruction, lowest first.
            let origin = offset_of(0, 0)?;
            let row_elements = (128 / element_bits.max(8)) as u64;
            let chunk_bits: Vec<u32> = if trans {
                let regs = (0..reg_bits)
                    .map(|b| offset_of(1 << b, 0).map(|o| o ^ origin))
                    .collect::<Result<Vec<u64>>>()?;
                let lanes = [offset_of(0, 1)? ^ origin, offset_of(0, 2)? ^ origin];
                vec![super::transposed_row_register(&regs, lanes, row_elements) as u32]
            } else {
                let chunk = super::matrix_chunk_registers(element_bits, false)?;
                let mut bits = Vec::new();
                for k in 0..chunk {
                    let found = (0..reg_bits)
                        .find(|&b| matches!(offset_of(1 << b, 0), Ok(o) if o ^ origin == 1 << k));
                    bits.push(found.ok_or_else(|| {
                        LayoutError::invalid(
                            "ldmatrix/stmatrix",
                            "no register holds the next element of a row",
                        )
                    })?);
                }
                bits
            };
            let select: Vec<u32> = (0..reg_bits).filter(|b| !chunk_bits.contains(b)).collect();
            let scatter = |v: u64| {
                select
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| v >> i & 1 == 1)
                    .fold(0u64, |acc, (_, &b)| acc | 1 << b)
            };
            for instr in 0..g.instructions {
                if instr & 0xff == 0 {
                    crate::interrupt::check()?;
                }
                for j in 0..count as u64 {
                    let mut requests = Vec::new();
                    for r in 0..8u64 {
                        let reg_high = scatter(instr << extra | j);
                        let (reg, lane) = if trans {
                            (reg_high | (r & 1) << chunk_bits[0], r >> 1)
                        } else {
                            (reg_high, r << 2)
                        };
                        requests.push(request(
                            (8 * j + r) as u32,
                            reg,
                            offset_of(reg, lane)?,
                            row_elements,
                        ));
                    }
                    phases.push(Phase {
                        instruction: instr,
                        phase: j,
                        requests,
                    });
                }
            }
        }
    }
    Ok(Trace {
        banks: g.banks,
        phases,
    })
}

/// The words (of `word_bytes`) that `elements` elements from the padded
/// element offset `offset` touch: at least one.
fn word_range(
    offset: u64,
    elements: u64,
    element_bits: u64,
    word_bytes: u64,
) -> std::ops::Range<u64> {
    let first = offset * element_bits / 8 / word_bytes;
    let last = ((offset + elements) * element_bits / 8)
        .div_ceil(word_bytes)
        .max(first + 1);
    first..last
}

/// Every lane's requests of a vector access, in issue order, and the phase
/// each lane belongs to.
struct LaneRequests {
    /// Per lane: (first register, vector index) of each distinct vector it
    /// touches, in register order (registers repeating a vector add no
    /// request).
    per_lane: Vec<Vec<(u32, u32)>>,
    /// Per lane: the id of its phase (lanes with equal ids are served
    /// together).
    phase_of: Vec<u64>,
}

/// [`LaneRequests`] of a vector (not matrix) access. Offsets are below
/// 2^32 ([`ElementOffsets::new`] refuses more), so the pairs are 32-bit;
/// a bitmap over vectors replaces a map, since a large tensor has millions
/// of requests.
fn lane_requests(
    g: &Geometry,
    (reg_bits, lane_bits): (u32, u32),
    offset_of: &impl Fn(u64, u64) -> Result<u64>,
) -> Result<LaneRequests> {
    let vec = g.vector_elems.max(1);
    let mut phase_span = f2::Echelon::new();
    for &lane in &g.phase_lanes {
        phase_span.insert(lane as u64);
    }
    let mut seen: Vec<u64> = Vec::new();
    let mut per_lane = Vec::with_capacity(1 << lane_bits);
    let mut phase_of = Vec::with_capacity(1 << lane_bits);
    for lane in 0..1u64 << lane_bits {
        crate::interrupt::check()?;
        let mut starts: Vec<(u32, u32)> = Vec::new();
        for reg in 0..1u64 << reg_bits {
            let block = offset_of(reg, lane)? / vec;
            let (word, bit) = ((block / 64) as usize, block % 64);
            if word >= seen.len() {
                seen.resize(word + 1, 0);
            }
            if seen[word] >> bit & 1 == 0 {
                seen[word] |= 1 << bit;
                starts.push((reg as u32, block as u32));
            }
        }
        for &(_, block) in &starts {
            seen[block as usize / 64] = 0;
        }
        per_lane.push(starts);
        phase_of.push(phase_span.reduce(lane).0);
    }
    Ok(LaneRequests { per_lane, phase_of })
}

/// One warp's access counted as [`group_requests`] groups it (the offset of
/// each register and lane from `offset_of`, before padding), without
/// keeping the requests (a 4096x4096 tensor has millions): for each phase,
/// the busiest bank's distinct words.
pub(super) fn count_wavefronts(
    g: &Geometry,
    instruction: Instruction,
    element_bits: u32,
    target: &BankTarget,
    padding: &[(u32, u32)],
    bits: (u32, u32),
    offset_of: impl Fn(u64, u64) -> Result<u64>,
) -> Result<Wavefronts> {
    let counted = |wavefronts| Wavefronts {
        instructions: g.instructions,
        wavefronts,
        ideal: g.passes * g.phases_per_pass,
    };
    if matches!(instruction, Instruction::Matrix { .. }) {
        // Eight rows per phase: the trace is as small as the count.
        let trace = group_requests(
            g,
            instruction,
            element_bits,
            target,
            padding,
            bits,
            offset_of,
        )?;
        return Ok(counted(trace.wavefronts()));
    }
    let lanes = lane_requests(g, bits, &offset_of)?;
    let mut phases: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (lane, &id) in lanes.phase_of.iter().enumerate() {
        phases.entry(id).or_default().push(lane);
    }
    let (vec, eb, word_bytes) = (
        g.vector_elems,
        element_bits as u64,
        target.bank_bytes as u64,
    );
    let banks = g.banks as u64;
    let mut words: Vec<u64> = Vec::new();
    // Distinct words per bank, cleared after each phase.
    let mut per_bank = vec![0u64; banks as usize];
    let mut total = 0;
    for members in phases.values() {
        let longest = members
            .iter()
            .map(|&l| lanes.per_lane[l].len())
            .max()
            .unwrap_or(0);
        for k in 0..longest {
            words.clear();
            for &lane in members {
                if let Some(&(_, block)) = lanes.per_lane[lane].get(k) {
                    let offset = padded_offset(padding, block as u64 * vec);
                    words.extend(word_range(offset, vec, eb, word_bytes));
                }
            }
            words.sort_unstable();
            words.dedup();
            // The busiest bank: the most distinct words in one bank.
            let mut busiest = 0;
            for &w in &words {
                let n = &mut per_bank[(w % banks) as usize];
                *n += 1;
                busiest = busiest.max(*n);
            }
            for &w in &words {
                per_bank[(w % banks) as usize] = 0;
            }
            total += busiest;
        }
    }
    Ok(counted(total))
}

/// The unpadded shared offset of each element of a distributed layout, for
/// any warp: the shared layout tabulated once (coordinate -> offset), then
/// each warp's elements looked up in it.
pub(super) struct ElementOffsets<'a> {
    distributed: &'a crate::linear::LinearLayout,
    /// Tensor coordinate (packed in the shared layout's out order) ->
    /// offset; `u32::MAX` where no offset stores it.
    table: Vec<u32>,
    /// (first bit, bits) of the register, lane and warp fields of the
    /// distributed layout's flat input.
    register: (u32, u32),
    lane: (u32, u32),
    warp: Option<(u32, u32)>,
    /// Each distributed out-dim's field (its first bit, mask) and where the
    /// shared layout packs the same dim; unused when the two orders agree.
    moves: Vec<(u32, u64, u32)>,
    identity: bool,
}

impl<'a> ElementOffsets<'a> {
    pub(super) fn new(access: &Access<'a>) -> Result<Self> {
        let (d, s) = (access.distributed, access.shared);
        let offset_bits = s.in_dim_size_log2(super::OFFSET);
        // Where `offset` sits among the shared layout's flattened in-dims.
        let shift: u32 = s
            .in_dims()
            .iter()
            .take_while(|(n, _)| n != super::OFFSET)
            .map(|(_, size)| size.trailing_zeros())
            .sum();
        let s_outs = s.out_dims();
        let out_bits: u32 = s_outs.iter().map(|(_, n)| n.trailing_zeros()).sum();
        if out_bits > 32 || offset_bits > 32 {
            return Err(LayoutError::invalid(
                "shared layout",
                "has more than 2^32 elements to enumerate",
            ));
        }
        let mut table = vec![u32::MAX; 1usize << out_bits];
        // Offsets in Gray-code order: each differs from the last in one
        // bit, so its coordinate is the last one XOR that bit's image.
        let images: Vec<u64> = (0..offset_bits)
            .map(|b| s.apply_flat(1 << (b + shift)))
            .collect();
        let mut coordinate = s.apply_flat(0);
        for step in 0..1u64 << offset_bits {
            if step > 0 {
                coordinate ^= images[step.trailing_zeros() as usize];
            }
            if step & 0xffff == 0 {
                crate::interrupt::check()?;
            }
            let off = step ^ step >> 1;
            let slot = &mut table[coordinate as usize];
            *slot = (*slot).min(off as u32);
        }
        // Where each in-dim sits in the distributed layout's flat input.
        let mut input_shift = HashMap::new();
        let mut at = 0;
        for (name, size) in d.in_dims() {
            input_shift.insert(name, (at, size.trailing_zeros()));
            at += size.trailing_zeros();
        }
        let field = |name: &str| input_shift.get(name).copied();
        let d_outs = d.out_dims();
        let mut moves: Vec<(u32, u64, u32)> = Vec::new();
        let mut s_at = 0;
        for (name, size) in &s_outs {
            let mut d_at = 0;
            for (d_name, d_size) in &d_outs {
                if d_name == name {
                    moves.push((d_at, d_size - 1, s_at));
                }
                d_at += d_size.trailing_zeros();
            }
            s_at += size.trailing_zeros();
        }
        Ok(ElementOffsets {
            distributed: d,
            table,
            register: field(super::REGISTER).unwrap_or((0, 0)),
            lane: field(super::LANE).unwrap_or((0, 0)),
            warp: field("warp"),
            moves,
            identity: d_outs == s_outs,
        })
    }

    /// The offset of `(register, lane)` of `warp`.
    pub(super) fn of_warp(&self, warp: u64) -> Result<impl Fn(u64, u64) -> Result<u64> + '_> {
        let base = match self.warp {
            Some((warp_at, warp_bits)) if warp >> warp_bits == 0 => warp << warp_at,
            Some(_) => {
                return Err(LayoutError::invalid(
                    format!("warp = {warp}"),
                    "is outside the layout's warps",
                ));
            }
            None => 0,
        };
        let ((reg_at, reg_bits), (lane_at, lane_bits)) = (self.register, self.lane);
        let d = self.distributed;
        Ok(move |reg: u64, lane: u64| -> Result<u64> {
            if reg >> reg_bits != 0 || lane >> lane_bits != 0 {
                return Err(LayoutError::invalid(
                    format!("register {reg}, lane {lane}"),
                    "is outside the distributed layout",
                ));
            }
            let packed = d.apply_flat(base | reg << reg_at | lane << lane_at);
            let word = if self.identity {
                packed
            } else {
                self.moves
                    .iter()
                    .fold(0, |w, &(from, mask, to)| w | (packed >> from & mask) << to)
            };
            match self.table.get(word as usize) {
                Some(&off) if off != u32::MAX => Ok(off as u64),
                _ => Err(LayoutError::invalid(
                    "shared layout",
                    format!(
                        "stores no element at tensor coordinate {:?}",
                        d.unpack(packed)
                    ),
                )),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::{Direction, padded_wavefronts_by_enumeration};
    use crate::linear::{DimName, LinearLayout};

    fn layout(ins: Vec<(&str, Vec<Vec<i64>>)>, outs: &[(&str, i64)]) -> LinearLayout {
        LinearLayout::from_bases_with_sizes(
            ins.into_iter().map(|(n, b)| (n.to_string(), b)).collect(),
            outs.iter().map(|(n, s)| (DimName::from(*n), *s)).collect(),
            true,
        )
        .unwrap()
    }

    #[test]
    fn a_column_walk_of_row_major_memory_asks_one_bank_for_every_word() {
        // Lanes walk down dim0 of a 32x32 f32 tile, registers along dim1;
        // stored row-major, instruction k finds all 32 lanes in bank k.
        let pow = |dim: usize| -> Vec<Vec<i64>> {
            (0..5)
                .map(|b| {
                    let mut v = vec![0, 0];
                    v[dim] = 1 << b;
                    v
                })
                .collect()
        };
        let outs = [("dim0", 32), ("dim1", 32)];
        let dist = layout(vec![("register", pow(1)), ("lane", pow(0))], &outs);
        let mut offsets = pow(1);
        offsets.extend(pow(0));
        let shared = layout(vec![("offset", offsets)], &outs);
        let access = Access {
            distributed: &dist,
            shared: &shared,
            element_bits: 32,
            instruction: Instruction::LdSt { bits: 32 },
            direction: Direction::Store,
        };
        let target = BankTarget::nvidia();
        let t = trace(&access, &target, &[]).unwrap();
        assert_eq!(t.phases.len(), 32);
        for p in &t.phases {
            let per_bank = p.words_per_bank(t.banks);
            assert_eq!(per_bank[p.instruction as usize], 32);
            assert_eq!(per_bank.iter().sum::<u64>(), 32);
        }
        let oracle = padded_wavefronts_by_enumeration(&access, &target, &[]).unwrap();
        assert_eq!(t.wavefronts(), oracle.wavefronts);
        assert_eq!(t.wavefronts(), 1024);
    }
}
