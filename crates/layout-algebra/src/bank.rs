//! The shared-memory bank model.
//!
//! Shared memory is split into `banks` banks of `bank_bytes` bytes; word `w`
//! lives in bank `w % banks`. The requests of one instruction are served in
//! *phases* (groups of lanes whose requests fit one line of
//! `banks * bank_bytes` bytes); a phase takes as many *wavefronts* as the
//! largest number of distinct words it asks of one bank (one word read by
//! several lanes is a broadcast, not a conflict).
//!
//! Two computations of the same count:
//! - [`wavefronts_by_enumeration`]: the oracle. Walks every lane and register
//!   of a warp, finds each element's offset by looking the tensor coordinate
//!   up in a table of the shared layout, groups requests by instruction and
//!   phase as the hardware does, and counts words per bank.
//! - [`wavefronts_by_rank`]: the closed form of the Linear Layouts paper
//!   (arXiv 2505.23819, Lemma 9.4). With `φ` the map from the lanes of one
//!   phase to word addresses, a phase takes `2^dim(Im φ ∩ Seg)` wavefronts,
//!   where `Seg` is spanned by the word-address bits above the bank bits.
//!
//! [`bank_conflicts`] is Triton's `bankConflictsMemDesc` measure: extra
//! wavefronts per wavefront for a store/load after the widest vectorisation.

mod geometry;
mod trace;

pub use geometry::{AccessGeometry, OffsetMap, TensorDims};
pub use trace::{Phase, Request, Trace, trace};

use crate::error::{LayoutError, Result};
use crate::f2;
use crate::linear::LinearLayout;

/// The memory system: banks, their width, lanes per warp, and how lanes are
/// grouped into phases.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BankTarget {
    pub banks: u32,
    pub bank_bytes: u32,
    pub warp_size: u32,
    /// Per-instruction phases (AMD's LDS): the first rule that matches an
    /// access decides its phases. When none matches, phases are the NVIDIA
    /// rule: consecutive lanes whose requests fill one line.
    pub phases: Vec<PhaseRule>,
}

/// Which way an access moves data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Shared memory to registers (`ld.shared`, `ldmatrix`, `ds_read`).
    Load,
    /// Registers to shared memory (`st.shared`, `stmatrix`, `ds_write`).
    Store,
}

/// The lanes that one instruction serves together. The lanes served with
/// lane 0 form a subspace of the lane ids under XOR (AMD's `ds_read_b128`
/// on CDNA3 serves lanes 0-3 with 20-23: the span of 1, 2 and 20); the other
/// phases are its cosets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PhaseRule {
    /// The access width per lane this rule is for.
    pub bits: u32,
    /// `None`: loads and stores alike.
    pub direction: Option<Direction>,
    /// Lane ids that span the phase of lane 0 (independent).
    pub generators: Vec<u32>,
    /// Banks this instruction sees, when not the target's (gfx950 stores
    /// of 64 bits are served 128 bytes at a time: 32 banks).
    pub banks: Option<u32>,
}

impl PhaseRule {
    /// The rule whose phase of lane 0 is `lanes` (a set closed under XOR
    /// that contains 0), or why `lanes` is no such set.
    pub fn from_lanes(
        bits: u32,
        direction: Option<Direction>,
        lanes: &[u32],
    ) -> std::result::Result<PhaseRule, String> {
        let set: std::collections::BTreeSet<u32> = lanes.iter().copied().collect();
        if !set.contains(&0) {
            return Err("the lanes of a phase are given as the phase of lane 0, so they must include lane 0".into());
        }
        let mut basis = f2::Echelon::new();
        let mut generators = Vec::new();
        // Only independent lanes are inserted: a u32 lane id has at most
        // 32 of them, within the elimination's 64 columns.
        for &l in &set {
            if !basis.contains(l as u64) {
                basis.insert(l as u64);
                generators.push(l);
            }
        }
        if set.len() != 1 << generators.len() {
            return Err(format!(
                "lanes {set:?} are not closed under XOR: a phase of lane ids is a subspace (for example 0-3 with 20-23)"
            ));
        }
        Ok(PhaseRule {
            bits,
            direction,
            generators,
            banks: None,
        })
    }
}

impl BankTarget {
    /// NVIDIA: 32 banks of 4 bytes, 32 lanes.
    pub fn nvidia() -> Self {
        BankTarget {
            banks: 32,
            bank_bytes: 4,
            warp_size: 32,
            phases: Vec::new(),
        }
    }

    /// How an access of `access_bits` per lane is served: the lane ids
    /// spanning the phase of lane 0, and the banks it sees.
    pub fn phases_for(&self, access_bits: u32, direction: Direction) -> AccessPhases {
        let rule = self
            .phases
            .iter()
            .find(|r| r.bits == access_bits && r.direction.is_none_or(|d| d == direction));
        if let Some(rule) = rule {
            return AccessPhases {
                generators: rule.generators.clone(),
                banks: rule.banks.unwrap_or(self.banks),
            };
        }
        let lane_bits = self.warp_size.trailing_zeros();
        let line_bits = self.banks * self.bank_bytes * 8;
        // Lanes per phase: as many as fill one line, at most a warp.
        let per_phase = (line_bits / access_bits.max(1)).clamp(1, self.warp_size);
        AccessPhases {
            generators: (0..per_phase.trailing_zeros().min(lane_bits))
                .map(|b| 1 << b)
                .collect(),
            banks: self.banks,
        }
    }
}

/// How one access is served (see [`BankTarget::phases_for`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessPhases {
    /// Lane ids spanning the phase of lane 0.
    pub generators: Vec<u32>,
    pub banks: u32,
}

impl AccessPhases {
    /// The lanes served together with `lane`, in increasing order.
    pub fn phase_of(&self, lane: u32) -> Vec<u32> {
        let mut members = vec![lane];
        for &g in &self.generators {
            let more: Vec<u32> = members.iter().map(|m| m ^ g).collect();
            members.extend(more);
        }
        members.sort_unstable();
        members
    }
}

/// The shared-memory instruction a warp issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instruction {
    /// `ld.shared` / `st.shared` of `bits` (8..128) per lane.
    LdSt { bits: u32 },
    /// `ldmatrix` / `stmatrix` of `count` (1, 2 or 4) 8x8 matrices of 16-bit
    /// elements; each group of 8 lanes addresses the 8 rows of one matrix.
    Matrix { count: u32, trans: bool },
}

/// Wavefront counts for one warp performing a whole access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wavefronts {
    /// Instructions one warp issues.
    pub instructions: u64,
    /// Wavefronts those instructions take.
    pub wavefronts: u64,
    /// Wavefronts they would take without conflicts (one per phase).
    pub ideal: u64,
}

impl Wavefronts {
    /// Extra wavefronts per ideal wavefront.
    pub fn conflicts_per_wavefront(&self) -> f64 {
        if self.ideal == 0 {
            0.0
        } else {
            self.wavefronts as f64 / self.ideal as f64 - 1.0
        }
    }
}

/// One access: a distributed layout (`register`, `lane`, `warp`, `block` ->
/// tensor) reading or writing a tensor stored with a shared layout
/// (`offset`, `block` -> tensor).
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    pub distributed: &'a LinearLayout,
    pub shared: &'a LinearLayout,
    pub element_bits: u32,
    pub instruction: Instruction,
    pub direction: Direction,
}

const REGISTER: &str = "register";
const LANE: &str = "lane";
const OFFSET: &str = "offset";

fn check_element_bits(bits: u32) -> Result<()> {
    if !(1..=64).contains(&bits) || !bits.is_power_of_two() {
        return Err(LayoutError::invalid(
            "element width",
            format!("{bits} bits; expected a power of two up to 64"),
        ));
    }
    Ok(())
}

/// Register/lane images as flat shared offsets: `S⁻¹∘D` restricted to the
/// `offset` out-dim.
struct Cvt {
    regs: Vec<u64>,
    lanes: Vec<u64>,
}

fn cvt(access: &Access) -> Result<Cvt> {
    let geometry = AccessGeometry::new(access.distributed, access.element_bits)?;
    let map = OffsetMap::from_shared(access.shared, &geometry.tensor)?;
    Ok(cvt_of(&geometry, &map))
}

fn cvt_of(geometry: &AccessGeometry, map: &OffsetMap) -> Cvt {
    let (regs, lanes) = geometry.offsets(map);
    Cvt { regs, lanes }
}

/// The generators of one access, all as shared offsets.
struct Geometry {
    /// Elements one lane moves in one request (contiguous, aligned).
    vector_elems: u64,
    /// Offsets of the generators that vary inside one phase.
    phase: Vec<u64>,
    /// Number of phases per instruction.
    phases_per_instruction: u64,
    /// Instructions per warp.
    instructions: u64,
    /// Lane ids spanning the phase of lane 0 (ld/st only).
    phase_lanes: Vec<u32>,
    /// Banks the access sees.
    banks: u32,
}

fn cannot_vectorise(what: String) -> LayoutError {
    LayoutError::invalid("shared-memory access", what)
}

fn check_target(target: &BankTarget) -> Result<()> {
    for rule in &target.phases {
        if rule
            .banks
            .is_some_and(|b| b == 0 || !b.is_power_of_two() || b > 1 << 16)
        {
            return Err(LayoutError::NotPowerOfTwo {
                what: "the number of banks of a phase rule".into(),
                value: rule.banks.unwrap_or(0) as i64,
            });
        }
        if f2::rank(rule.generators.iter().map(|&g| g as u64)) as usize != rule.generators.len()
            || rule.generators.iter().any(|&g| g >= target.warp_size)
        {
            return Err(LayoutError::invalid(
                "phase rule",
                format!(
                    "lanes {:?} must be independent lane ids below the warp size {}",
                    rule.generators, target.warp_size
                ),
            ));
        }
    }
    for (what, v) in [
        ("banks", target.banks),
        ("bank width in bytes", target.bank_bytes),
        ("lanes per warp", target.warp_size),
    ] {
        if v == 0 || !v.is_power_of_two() || v > 1 << 16 {
            return Err(LayoutError::NotPowerOfTwo {
                what: format!("the number of {what}"),
                value: v as i64,
            });
        }
    }
    Ok(())
}

fn geometry(access: &Access, target: &BankTarget) -> Result<Geometry> {
    let c = cvt(access)?;
    phase_geometry(
        &c,
        access.element_bits,
        access.instruction,
        access.direction,
        target,
    )
}

/// How the requests of an access whose registers and lanes land at `c`
/// are grouped into instructions and phases.
fn phase_geometry(
    c: &Cvt,
    element_bits: u32,
    instruction: Instruction,
    direction: Direction,
    target: &BankTarget,
) -> Result<Geometry> {
    check_target(target)?;
    check_element_bits(element_bits)?;
    let lane_bits = c.lanes.len() as u32;
    if 1u32 << lane_bits != target.warp_size {
        return Err(LayoutError::invalid(
            "distributed layout",
            format!(
                "has {} lanes but the target's warp has {}",
                1u32 << lane_bits,
                target.warp_size
            ),
        ));
    }
    match instruction {
        Instruction::LdSt { bits } => {
            if !(8..=128).contains(&bits) || !bits.is_power_of_two() || bits < element_bits {
                return Err(LayoutError::invalid(
                    "instruction",
                    format!(
                        "a {bits}-bit ld/st cannot move {}-bit elements",
                        element_bits
                    ),
                ));
            }
            let vec = (bits / element_bits) as u64;
            let vec_bits = vec.trailing_zeros();
            // Registers that form the vector: offsets 1, 2, 4, ... vec/2.
            let mut vector_regs = Vec::new();
            for k in 0..vec_bits {
                let r = c.regs.iter().position(|&o| o == 1 << k).ok_or_else(|| {
                    cannot_vectorise(format!(
                        "a {bits}-bit access needs {vec} consecutive elements per lane, but no register holds the element at offset +{}",
                        1u64 << k
                    ))
                })?;
                vector_regs.push(r);
            }
            let low = (1u64 << vec_bits) - 1;
            let misaligned = c.lanes.iter().chain(
                c.regs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !vector_regs.contains(i))
                    .map(|(_, o)| o),
            );
            for o in misaligned {
                if o & low != 0 {
                    return Err(cannot_vectorise(format!(
                        "a {bits}-bit access needs {vec}-element aligned vectors, but offset {o} is not a multiple of {vec}"
                    )));
                }
            }
            // A lane id's offset is the XOR of its bits' lane bases.
            let served = target.phases_for(bits, direction);
            let generators = &served.generators;
            let phase = generators
                .iter()
                .map(|&g| {
                    (0..lane_bits as usize)
                        .filter(|&b| g >> b & 1 == 1)
                        .fold(0, |o, b| o ^ c.lanes[b])
                })
                .collect::<Vec<_>>();
            let phases_per_instruction = 1u64 << (lane_bits as usize - generators.len());
            let instructions = 1u64 << (c.regs.len() - vector_regs.len());
            Ok(Geometry {
                vector_elems: vec,
                phase,
                phases_per_instruction,
                instructions,
                phase_lanes: served.generators.clone(),
                banks: served.banks,
            })
        }
        Instruction::Matrix { count, trans } => {
            let m = matrix_geometry(c, element_bits, count, trans)?;
            Ok(Geometry {
                vector_elems: 8,
                phase: m.rows,
                phases_per_instruction: count as u64,
                instructions: 1u64 << (c.regs.len() - m.regs_per_instruction),
                phase_lanes: Vec::new(),
                banks: target.banks,
            })
        }
    }
}

struct MatrixGeometry {
    /// Offsets of the generators of the 8 row addresses of one matrix.
    rows: Vec<u64>,
    regs_per_instruction: usize,
}

/// `ldmatrix`/`stmatrix` need the mma fragment: for a plain access register
/// bit 0 and lane bits 0, 1 walk the 8 contiguous elements of a row and lane
/// bits 2-4 pick the row; `.trans` swaps the two roles.
fn matrix_geometry(c: &Cvt, element_bits: u32, count: u32, trans: bool) -> Result<MatrixGeometry> {
    if element_bits != 16 {
        return Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            format!("move 16-bit elements, not {element_bits}-bit"),
        ));
    }
    if ![1, 2, 4].contains(&count) {
        return Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            format!("move 1, 2 or 4 matrices, not {count}"),
        ));
    }
    let extra = count.trailing_zeros() as usize;
    if c.lanes.len() != 5 || c.regs.len() < 1 + extra {
        return Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            format!(
                "need 32 lanes and at least {} registers per thread",
                2 << extra
            ),
        ));
    }
    let (contig, rows) = if trans {
        (
            vec![c.lanes[2], c.lanes[3], c.lanes[4]],
            vec![c.regs[0], c.lanes[0], c.lanes[1]],
        )
    } else {
        (
            vec![c.regs[0], c.lanes[0], c.lanes[1]],
            vec![c.lanes[2], c.lanes[3], c.lanes[4]],
        )
    };
    if contig != [1, 2, 4] {
        return Err(cannot_vectorise(format!(
            "{}matrix needs each 8x8 row to be 8 consecutive elements in shared memory; the fragment's row elements are at offsets {:?}",
            if trans { "a transposed " } else { "" },
            contig
        )));
    }
    let others = rows.iter().chain(&c.regs[1..]);
    for &o in others {
        if o & 7 != 0 {
            return Err(cannot_vectorise(format!(
                "matrix rows must start at multiples of 8 elements, offset {o} does not"
            )));
        }
    }
    Ok(MatrixGeometry {
        rows,
        regs_per_instruction: 1 + extra,
    })
}

/// Wavefronts by the rank formula: each phase takes `2^dim(Im φ ∩ Seg)`.
pub fn wavefronts_by_rank(access: &Access, target: &BankTarget) -> Result<Wavefronts> {
    let g = geometry(access, target)?;
    Ok(rank_wavefronts(&g, access.element_bits, target))
}

impl AccessGeometry {
    /// The wavefronts of this access when the tensor is stored at the
    /// offsets `map` gives (by the rank formula): the cost of a candidate
    /// shared layout, without building it.
    pub fn wavefronts(
        &self,
        map: &OffsetMap,
        instruction: Instruction,
        direction: Direction,
        target: &BankTarget,
    ) -> Result<Wavefronts> {
        let c = cvt_of(self, map);
        let g = phase_geometry(&c, self.element_bits, instruction, direction, target)?;
        Ok(rank_wavefronts(&g, self.element_bits, target))
    }

    /// The widest `ld/st.shared` vector (elements, at most 128 bits) `map`
    /// allows this access.
    pub fn widest_vector(&self, map: &OffsetMap) -> u64 {
        widest_vector_of(&cvt_of(self, map), self.element_bits)
    }
}

fn rank_wavefronts(g: &Geometry, element_bits: u32, target: &BankTarget) -> Wavefronts {
    let eb = element_bits as u64;
    let word_bits = target.bank_bytes as u64 * 8;
    // Offsets -> word addresses: drop the bits inside one word.
    let sub_word = if eb >= word_bits {
        0
    } else {
        (word_bits / eb).trailing_zeros()
    };
    let scale = if eb > word_bits {
        (eb / word_bits).trailing_zeros()
    } else {
        0
    };
    let to_word = |o: u64| (o >> sub_word) << scale;
    let bank_mask = g.banks as u64 - 1;
    let images: Vec<u64> = g.phase.iter().map(|&o| to_word(o)).collect();
    // dim(U ∩ Seg) = dim U - dim(projection of U onto the bank bits).
    let dim_u = f2::rank(images.iter().copied());
    let dim_banks = f2::rank(images.iter().map(|w| w & bank_mask));
    let per_phase = 1u64 << (dim_u - dim_banks);
    let ideal = g.instructions * g.phases_per_instruction;
    Wavefronts {
        instructions: g.instructions,
        wavefronts: ideal * per_phase,
        ideal,
    }
}

/// Wavefronts by walking every request of warp 0 (the oracle).
pub fn wavefronts_by_enumeration(access: &Access, target: &BankTarget) -> Result<Wavefronts> {
    padded_wavefronts_by_enumeration(access, target, &[])
}

/// The offset of element `offset` once `padding` is inserted: after every
/// `interval` elements, `pad` more (Triton's `#ttg.padded_shared`,
/// `[interval:+pad, ...]`): `offset + sum of (offset / interval) * pad`.
pub fn padded_offset(padding: &[(u32, u32)], offset: u64) -> u64 {
    padding
        .iter()
        .map(|&(interval, pad)| (offset >> interval.trailing_zeros()) << pad.trailing_zeros())
        .fold(offset, |acc, extra| acc + extra)
}

/// [`wavefronts_by_enumeration`] for a shared layout whose offsets are
/// padded: the addresses are no longer linear in the element, so only
/// enumeration can count them.
pub fn padded_wavefronts_by_enumeration(
    access: &Access,
    target: &BankTarget,
    padding: &[(u32, u32)],
) -> Result<Wavefronts> {
    // The geometry validates the access (vectorisation, fragment shape) and
    // gives the instruction grouping; the addresses come from the layouts.
    let g = geometry(access, target)?;
    let d = access.distributed;
    let reg_bits = d.in_dim_size_log2(REGISTER);
    let lane_bits = d.in_dim_size_log2(LANE);
    let offset_of = trace::element_offsets(access)?;
    count_requests(
        &g,
        access.instruction,
        access.element_bits,
        target,
        padding,
        (reg_bits, lane_bits),
        offset_of,
    )
}

impl AccessGeometry {
    /// Wavefronts by walking every request of warp 0 when the tensor is
    /// stored at the offsets `map` gives, then `padding` inserted: the
    /// oracle a solver re-scores its answer with. The grouping into
    /// instructions and phases is the hardware's, the count is of distinct
    /// words per bank, nothing of the rank formula.
    pub fn wavefronts_by_enumeration(
        &self,
        map: &OffsetMap,
        instruction: Instruction,
        direction: Direction,
        target: &BankTarget,
        padding: &[(u32, u32)],
    ) -> Result<Wavefronts> {
        let c = cvt_of(self, map);
        let g = phase_geometry(&c, self.element_bits, instruction, direction, target)?;
        let bits = (self.registers.len() as u32, self.lanes.len() as u32);
        // The element of (register, lane) is the XOR of its bases' elements.
        let element = |reg: u64, lane: u64| -> u64 {
            let r = (0..self.registers.len())
                .filter(|i| reg >> i & 1 == 1)
                .fold(0, |acc, i| acc ^ self.registers[i]);
            (0..self.lanes.len())
                .filter(|i| lane >> i & 1 == 1)
                .fold(r, |acc, i| acc ^ self.lanes[i])
        };
        count_requests(
            &g,
            instruction,
            self.element_bits,
            target,
            padding,
            bits,
            |reg, lane| Ok(map.apply(element(reg, lane))),
        )
    }
}

/// Groups the requests of warp 0 (the offset of each register and lane from
/// `offset_of`, before padding) into instructions and phases as the
/// hardware does, and counts the distinct words each bank serves.
fn count_requests(
    g: &Geometry,
    instruction: Instruction,
    element_bits: u32,
    target: &BankTarget,
    padding: &[(u32, u32)],
    bits: (u32, u32),
    offset_of: impl Fn(u64, u64) -> Result<u64>,
) -> Result<Wavefronts> {
    let groups = trace::group_requests(
        g,
        instruction,
        element_bits,
        target,
        padding,
        bits,
        offset_of,
    )?;
    Ok(Wavefronts {
        instructions: g.instructions,
        wavefronts: groups.wavefronts(),
        ideal: g.instructions * g.phases_per_instruction,
    })
}

/// The largest vector (in elements, at most 128 bits) in which every lane
/// holds consecutive, aligned shared-memory elements, and the register
/// indices that form it (Triton's `largestVectorisation`).
pub fn largest_vectorisation(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<(u64, Vec<usize>)> {
    check_element_bits(element_bits)?;
    let access = Access {
        distributed,
        shared,
        element_bits,
        instruction: Instruction::LdSt { bits: element_bits },
        direction: Direction::Store,
    };
    let c = cvt(&access)?;
    Ok(vector_registers(&c, element_bits))
}

fn widest_vector_of(c: &Cvt, element_bits: u32) -> u64 {
    vector_registers(c, element_bits).0
}

/// The widest vector `c` allows and the registers that form it.
fn vector_registers(c: &Cvt, element_bits: u32) -> (u64, Vec<usize>) {
    let max = (128 / element_bits).max(1) as u64;
    let mut v = max;
    while v >= 1 {
        let k = v.trailing_zeros();
        let regs: Option<Vec<usize>> = (0..k)
            .map(|i| c.regs.iter().position(|&o| o == 1 << i))
            .collect();
        if let Some(regs) = regs {
            let low = v - 1;
            let aligned = c.lanes.iter().all(|o| o & low == 0)
                && c.regs
                    .iter()
                    .enumerate()
                    .all(|(i, o)| regs.contains(&i) || o & low == 0);
            if aligned {
                return (v, regs);
            }
        }
        v /= 2;
    }
    (1, Vec::new())
}

/// Triton's bank-conflict measure for storing (or loading) `distributed`
/// into `shared` with `element_bits`-bit elements: after the widest
/// vectorisation, the extra wavefronts each wavefront costs
/// (`bankConflictsMemDesc`). Broadcast registers are ignored.
pub fn bank_conflicts(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    target: &BankTarget,
) -> Result<u64> {
    check_target(target)?;
    check_element_bits(element_bits)?;
    // Triton drops broadcast (free) register bases first.
    let reg = drop_free_registers(distributed)?;
    let (vec, _) = largest_vectorisation(&reg, shared, element_bits)?;
    let c = cvt(&Access {
        distributed: &reg,
        shared,
        element_bits,
        instruction: Instruction::LdSt { bits: element_bits },
        direction: Direction::Store,
    })?;
    // Triton's segment: offset bits above one line of vec + bank elements.
    let line_elems = (target.banks as u64 * 32 / (vec * element_bits as u64))
        .min(shared.in_dim_size(OFFSET))
        * vec;
    let seg_shift = line_elems.trailing_zeros();
    // Lanes in one phase: as many as fill one line (on a 32-lane warp this
    // drops the top log2(vec * bits / 32) lane bases).
    let per_phase = (target.banks as u64 * 32 / (vec * element_bits as u64)).max(1);
    let keep = (per_phase.trailing_zeros() as usize).min(c.lanes.len());
    let lanes = &c.lanes[..keep];
    // The segment directions: every offset bit above one line.
    let segment: Vec<u64> = (seg_shift..64).map(|b| 1u64 << b).collect();
    Ok(f2::conflict_ways(lanes, &segment))
}

/// Removes register bases that repeat earlier ones (broadcast registers).
fn drop_free_registers(layout: &LinearLayout) -> Result<LinearLayout> {
    let masks = layout.free_variable_masks();
    let reg_mask = masks
        .iter()
        .find(|(n, _)| n == REGISTER)
        .map_or(0, |(_, m)| *m);
    if reg_mask == 0 {
        return Ok(layout.clone());
    }
    layout.retain_bases(REGISTER, |i, _| reg_mask >> i & 1 == 0)
}

impl AccessGeometry {
    /// The tensor coordinates that span one phase of `instruction` (the
    /// lanes served together with lane 0, or the rows of one matrix).
    pub fn phase_vectors(
        &self,
        instruction: Instruction,
        direction: Direction,
        target: &BankTarget,
    ) -> Vec<u64> {
        match instruction {
            Instruction::LdSt { bits } => target
                .phases_for(bits, direction)
                .generators
                .iter()
                .map(|&g| {
                    (0..self.lanes.len())
                        .filter(|&b| g >> b & 1 == 1)
                        .fold(0, |o, b| o ^ self.lanes[b])
                })
                .collect(),
            Instruction::Matrix { trans: false, .. } => {
                self.lanes.iter().skip(2).copied().collect()
            }
            Instruction::Matrix { trans: true, .. } => self
                .registers
                .iter()
                .take(1)
                .chain(self.lanes.iter().take(2))
                .copied()
                .collect(),
        }
    }

    /// The tensor coordinates that `instruction` needs at offsets 1, 2, 4,
    /// ... (the elements of one matrix row), when it fixes them.
    pub fn matrix_row(&self, instruction: Instruction) -> Option<Vec<u64>> {
        match instruction {
            Instruction::LdSt { .. } => None,
            Instruction::Matrix { trans: false, .. } => Some(
                self.registers
                    .iter()
                    .take(1)
                    .chain(self.lanes.iter().take(2))
                    .copied()
                    .collect(),
            ),
            Instruction::Matrix { trans: true, .. } => {
                Some(self.lanes.iter().skip(2).copied().collect())
            }
        }
    }

    /// Wavefronts without conflicts: one per phase of every instruction,
    /// when `instruction` moves `vector` elements per lane.
    pub fn ideal_wavefronts(
        &self,
        instruction: Instruction,
        direction: Direction,
        target: &BankTarget,
    ) -> u64 {
        let regs = self.registers.len() as u32;
        let lane_bits = self.lanes.len() as u32;
        match instruction {
            Instruction::LdSt { bits } => {
                let vector_bits = (bits / self.element_bits).max(1).trailing_zeros();
                let instructions = 1u64 << regs.saturating_sub(vector_bits);
                let served = target.phases_for(bits, direction).generators.len() as u32;
                instructions << lane_bits.saturating_sub(served)
            }
            Instruction::Matrix { count, .. } => {
                let per = 1 + count.trailing_zeros();
                (1u64 << regs.saturating_sub(per)) * count as u64
            }
        }
    }
}

/// The lanes of one instruction as Triton's swizzle search sees them
/// (`LocalMemOpTile`): lane bits whose elements are contiguous in one
/// 16-byte row, and lane bits that address different rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaneTile {
    pub contiguous: &'static [usize],
    pub addressing: &'static [usize],
}

impl Instruction {
    /// An `ld.shared`/`st.shared` of any width, where the width does not
    /// matter (the swizzle search, Triton's names without the width).
    pub const LD_ST: Instruction = Instruction::LdSt { bits: 128 };

    /// How its lanes address one 16-byte row tile.
    pub fn lane_tile(self) -> LaneTile {
        match self {
            Instruction::LdSt { .. } => LaneTile {
                contiguous: &[],
                addressing: &[0, 1, 2],
            },
            Instruction::Matrix { trans: false, .. } => LaneTile {
                contiguous: &[0, 1],
                addressing: &[2, 3, 4],
            },
            Instruction::Matrix { trans: true, .. } => LaneTile {
                contiguous: &[2, 3, 4],
                addressing: &[0, 1],
            },
        }
    }

    /// The instruction's name without width or count, as Triton's lowering
    /// names its choice: `st.shared`, `ldmatrix.trans`.
    pub fn kind_name(self, direction: Direction) -> &'static str {
        match (self, direction) {
            (Instruction::LdSt { .. }, Direction::Store) => "st.shared",
            (Instruction::LdSt { .. }, Direction::Load) => "ld.shared",
            (Instruction::Matrix { trans: false, .. }, Direction::Store) => "stmatrix",
            (Instruction::Matrix { trans: false, .. }, Direction::Load) => "ldmatrix",
            (Instruction::Matrix { trans: true, .. }, Direction::Store) => "stmatrix.trans",
            (Instruction::Matrix { trans: true, .. }, Direction::Load) => "ldmatrix.trans",
        }
    }

    /// The instruction as the machine names it: `st.shared.b128`,
    /// `ldmatrix.x4.trans`, AMD's `ds_read_b64`.
    pub fn name(self, direction: Direction, amd: bool) -> String {
        match (self, direction, amd) {
            (Instruction::LdSt { bits }, Direction::Load, true) => format!("ds_read_b{bits}"),
            (Instruction::LdSt { bits }, Direction::Store, true) => format!("ds_write_b{bits}"),
            (Instruction::LdSt { bits }, Direction::Load, false) => format!("ld.shared.b{bits}"),
            (Instruction::LdSt { bits }, Direction::Store, false) => format!("st.shared.b{bits}"),
            (Instruction::Matrix { count, trans }, d, _) => format!(
                "{}.x{count}{}",
                if d == Direction::Load {
                    "ldmatrix"
                } else {
                    "stmatrix"
                },
                if trans { ".trans" } else { "" }
            ),
        }
    }
}
