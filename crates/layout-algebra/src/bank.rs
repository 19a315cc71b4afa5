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
mod instruction;
mod trace;

pub use geometry::{AccessGeometry, OffsetMap, TensorDims};
pub use instruction::{
    CP_ASYNC_CG_LINE_BYTES, Instruction, InstructionPattern, LaneTile, Mnemonic, PatternShape,
    TransposedRead, UnknownInstruction, candidates, cp_async_cg_wavefronts, triton_choice,
};
pub use trace::{Phase, Request, Trace, trace};

use crate::error::{LayoutError, Result};
use crate::f2;
use crate::linear::{DimName, LinearLayout};

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
    /// Whether a 64- or 128-bit load whose quads of lanes ask for at most
    /// two addresses is served with twice the lanes per phase (NVIDIA,
    /// measured: [`BankTarget::phases_for_quads`]).
    pub wide_loads_merge_phases: bool,
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
            wide_loads_merge_phases: true,
        }
    }

    /// [`Self::phases_for`] when each quad of lanes (4k..4k+3) asks for
    /// `quad_addresses` distinct vectors. Under the NVIDIA rule a load of 64
    /// or 128 bits per lane whose quads ask for at most two is served with
    /// twice the lanes per phase: a 64-bit load by the whole warp at once, a
    /// 128-bit load by half-warps. Stores and 32-bit accesses keep their
    /// phases. Measured on an H100 for every pattern of broadcast and bank
    /// conflict in `tests/vectors/nvidia/broadcast_wavefronts.json`.
    pub fn phases_for_quads(
        &self,
        access_bits: u32,
        direction: Direction,
        quad_addresses: u32,
    ) -> AccessPhases {
        let mut served = self.phases_for(access_bits, direction);
        let nvidia_rule = self.rule(access_bits, direction).is_none();
        let lanes = 1u32 << served.generators.len();
        if self.wide_loads_merge_phases
            && nvidia_rule
            && direction == Direction::Load
            && access_bits > self.bank_bytes * 8
            && quad_addresses <= 2
            && lanes < self.warp_size
        {
            served.generators.push(lanes);
        }
        served
    }

    fn rule(&self, access_bits: u32, direction: Direction) -> Option<&PhaseRule> {
        self.phases
            .iter()
            .find(|r| r.bits == access_bits && r.direction.is_none_or(|d| d == direction))
    }

    /// How an access of `access_bits` per lane is served: the lane ids
    /// spanning the phase of lane 0, and the banks it sees.
    pub fn phases_for(&self, access_bits: u32, direction: Direction) -> AccessPhases {
        if let Some(rule) = self.rule(access_bits, direction) {
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

/// Register/lane/warp images as flat shared offsets: `S⁻¹∘D` restricted to
/// the `offset` out-dim.
struct Cvt {
    regs: Vec<u64>,
    lanes: Vec<u64>,
    warps: Vec<u64>,
}

fn cvt(access: &Access) -> Result<Cvt> {
    let addressing = addressing(access)?;
    let geometry = AccessGeometry::new(&addressing, access.element_bits)?;
    let map = OffsetMap::from_shared(access.shared, &geometry.tensor)?;
    Ok(cvt_of(&geometry, &map))
}

fn cvt_of(geometry: &AccessGeometry, map: &OffsetMap) -> Cvt {
    let (regs, lanes) = geometry.offsets(map);
    let warps = geometry.warps.iter().map(|&w| map.apply(w)).collect();
    Cvt { regs, lanes, warps }
}

/// The layout whose lanes address memory: the access's own, except for a
/// transposing read, whose lanes read what [`transposed_read_layout`] says.
fn addressing<'a>(access: &Access<'a>) -> Result<std::borrow::Cow<'a, LinearLayout>> {
    Ok(match access.instruction {
        Instruction::ReadTransposed {
            element_bits,
            generation,
        } => {
            if element_bits != access.element_bits {
                return Err(LayoutError::invalid(
                    "instruction",
                    format!(
                        "{} reads {element_bits}-bit elements, not {}-bit",
                        access.instruction.kind_name(Direction::Load),
                        access.element_bits
                    ),
                ));
            }
            std::borrow::Cow::Owned(transposed_read_layout(
                access.distributed,
                element_bits,
                generation,
            )?)
        }
        _ => std::borrow::Cow::Borrowed(access.distributed),
    })
}

/// A base of a distributed layout: the `i`-th register or lane base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Register(usize),
    Lane(usize),
}

/// How a transposing read rotates the destination's bases (Triton's
/// `lowerDsReadTr` tiles): the bases the reading lane's registers take
/// (the elements it reads contiguously, which the first lanes of the
/// destination own), and the bases the reading lanes take in turn (what
/// the destination's registers and other lanes own). The remaining bases
/// stay.
struct Rotation {
    registers: Vec<Base>,
    lanes: Vec<Base>,
}

fn transposed_rotation(element_bits: u32, generation: TransposedRead) -> Result<Rotation> {
    use Base::{Lane as L, Register as R};
    let bits = generation.bits(element_bits);
    let supported = match generation {
        TransposedRead::Cdna4 => [4, 8, 16].contains(&element_bits),
        TransposedRead::Gfx1250 => [8, 16].contains(&element_bits),
    };
    if !supported {
        return Err(LayoutError::invalid(
            "instruction",
            format!("no transposing read of {element_bits}-bit elements on this machine"),
        ));
    }
    // log2 of the elements one lane reads.
    let k = (bits / element_bits).trailing_zeros() as usize;
    Ok(match generation {
        // 16 lanes: the first `k` own what a lane reads; the other lanes of
        // the group, then the registers, address.
        TransposedRead::Cdna4 => Rotation {
            registers: (0..k).map(L).collect(),
            lanes: (k..4).map(L).chain((0..k).map(R)).collect(),
        },
        // 8 lanes, each reading 8 elements: halves (`ds_load_tr16_b128`)...
        TransposedRead::Gfx1250 if element_bits == 16 => Rotation {
            registers: (0..3).map(L).collect(),
            lanes: (0..3).map(R).collect(),
        },
        // ... or bytes in two halves, with lane 3 between them
        // (`ds_load_tr8_b64`, Triton's double contiguity).
        TransposedRead::Gfx1250 => Rotation {
            registers: (0..3).map(L).collect(),
            lanes: vec![R(0), R(1), L(3), R(2), L(4)],
        },
    })
}

impl Rotation {
    /// The registers and lanes a layout needs for the rotation.
    fn needs(&self) -> (usize, usize) {
        let mut need = (0, 0);
        for b in self.registers.iter().chain(&self.lanes) {
            match *b {
                Base::Register(i) => need.0 = need.0.max(i + 1),
                Base::Lane(i) => need.1 = need.1.max(i + 1),
            }
        }
        (
            need.0.max(self.registers.len()),
            need.1.max(self.lanes.len()),
        )
    }

    /// `registers` and `lanes` rotated.
    fn apply<T: Clone>(&self, registers: &mut [T], lanes: &mut [T]) -> Result<()> {
        let (r, l) = self.needs();
        if registers.len() < r || lanes.len() < l {
            return Err(LayoutError::invalid(
                "transposing read",
                format!(
                    "needs at least {} registers and {} lanes to exchange",
                    1 << r,
                    1 << l
                ),
            ));
        }
        let pick = |b: &Base| match *b {
            Base::Register(i) => registers[i].clone(),
            Base::Lane(i) => lanes[i].clone(),
        };
        let new_registers: Vec<T> = self.registers.iter().map(pick).collect();
        let new_lanes: Vec<T> = self.lanes.iter().map(pick).collect();
        registers[..new_registers.len()].clone_from_slice(&new_registers);
        lanes[..new_lanes.len()].clone_from_slice(&new_lanes);
        Ok(())
    }
}

/// The lanes' addresses of a transposing read when it loads `distributed`
/// (Triton's `lowerDsReadTr`): the reading lane holds the registers of
/// what the first lanes of its group own, and the lanes address the rest
/// ([`transposed_rotation`]). For a 16-bit operand whose registers run
/// along K and lanes along M, each lane reads consecutive elements along M.
pub fn transposed_read_layout(
    distributed: &LinearLayout,
    element_bits: u32,
    generation: TransposedRead,
) -> Result<LinearLayout> {
    let rotation = transposed_rotation(element_bits, generation)?;
    let mut bases = distributed.bases();
    let find = |bases: &[(DimName, Vec<Vec<u32>>)], name: &str| {
        bases.iter().position(|(n, _)| n.as_str() == name)
    };
    let (Some(r), Some(l)) = (find(&bases, REGISTER), find(&bases, LANE)) else {
        return Err(LayoutError::invalid(
            "distributed layout",
            "needs 'register' and 'lane' in-dims",
        ));
    };
    let mut registers = bases[r].1.clone();
    let mut lanes = bases[l].1.clone();
    rotation.apply(&mut registers, &mut lanes)?;
    bases[r].1 = registers;
    bases[l].1 = lanes;
    LinearLayout::from_bases_with_sizes(
        bases
            .into_iter()
            .map(|(n, b)| {
                let b = b
                    .into_iter()
                    .map(|v| v.into_iter().map(i64::from).collect())
                    .collect();
                (n.as_str().to_string(), b)
            })
            .collect(),
        distributed
            .out_dims()
            .into_iter()
            .map(|(n, s)| (n, s as i64))
            .collect(),
        false,
    )
}

/// Whether Triton's AMD backend loads `distributed` from `shared` with a
/// transposing read (`TransLocalLoadOpConversion`; the machine must have
/// the instruction for `element_bits`, which the caller checks).
///
/// On gfx950 (`TransposedRead::Cdna4`): 8- or 16-bit elements of a
/// two-dimensional tensor (or a batch of them: the two minor dims); the
/// shared layout's contiguous dimension is not the one the registers run
/// along (the instruction turns one contiguity into the other); the
/// registers hold `64 / element_bits` consecutive elements along their
/// dimension and the first 16 lanes walk 16 consecutive elements along the
/// other; and the lanes' addresses ([`transposed_read_layout`]) give every
/// lane 64 contiguous bits of shared memory (at most `max_vector` elements
/// when padding limits vectors).
///
/// On gfx1250 (`TransposedRead::Gfx1250`): Triton's tile
/// ([`gfx1250_tile_holds`]), at least 8 registers and the lanes the
/// rotation takes, and no padding interval shorter than 8 elements.
pub fn transposed_read_applies(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    generation: TransposedRead,
    max_vector: Option<u64>,
) -> bool {
    let need = (generation.bits(element_bits) / element_bits) as u64;
    let contiguous_per_lane = |rotated: &LinearLayout| {
        largest_vectorisation(rotated, shared, element_bits)
            .is_ok_and(|(v, _)| v.min(max_vector.unwrap_or(v)) >= need)
    };
    if generation == TransposedRead::Gfx1250 {
        let Ok(geometry) = AccessGeometry::new(distributed, element_bits) else {
            return false;
        };
        return transposed_read_layout(distributed, element_bits, generation).is_ok()
            && max_vector.is_none_or(|v| v >= need)
            && OffsetMap::from_shared(shared, &geometry.tensor)
                .is_ok_and(|map| gfx1250_tile_holds(&geometry, &map));
    }
    let Some(fast) = transposed_read_register_dim(distributed, element_bits) else {
        return false;
    };
    let outs = distributed.out_dims();
    // The shared layout's contiguous dimension: where offset 1 lies.
    let shared_fast = shared
        .bases()
        .into_iter()
        .find(|(n, _)| n.as_str() == OFFSET)
        .and_then(|(_, b)| b.first().cloned())
        .and_then(|b| {
            let s_outs = shared.out_dims();
            single_dim(&b).map(|(i, _)| s_outs[i].0.clone())
        });
    if shared_fast.as_ref() == Some(&outs[fast].0) {
        return false;
    }
    transposed_read_layout(distributed, element_bits, generation)
        .is_ok_and(|rotated| contiguous_per_lane(&rotated))
}

/// Triton's tile for gfx1250's transposing reads (`divideLeft(cvt, tile)`
/// in `lowerDsReadTr`): the first 8 lanes own offsets 0 to 7 in order, and
/// no other register, lane or warp base touches those 3 low offset bits.
pub fn gfx1250_tile_holds(geometry: &AccessGeometry, map: &OffsetMap) -> bool {
    geometry.lanes.len() >= 3
        && (0..3).all(|i| map.apply(geometry.lanes[i]) == 1 << i)
        && geometry
            .registers
            .iter()
            .chain(&geometry.lanes[3..])
            .chain(&geometry.warps)
            .all(|&c| map.apply(c) & 7 == 0)
}

/// The one out-dim a basis moves along, and by how much.
fn single_dim(b: &[u32]) -> Option<(usize, u32)> {
    let nonzero: Vec<usize> = (0..b.len()).filter(|&i| b[i] != 0).collect();
    (nonzero.len() == 1).then(|| (nonzero[0], b[nonzero[0]]))
}

/// The part of [`transposed_read_applies`] the distributed layout decides
/// alone: 8- or 16-bit elements of a tensor of rank 2 or more whose
/// registers hold `64 / element_bits` consecutive elements along one of the
/// two minor dims and whose first 16 lanes walk 16 consecutive elements
/// along the other. Returns the registers' dimension (an index into the
/// layout's out-dims); a shared layout whose offset 1 lies along it is not
/// read transposed.
pub fn transposed_read_register_dim(
    distributed: &LinearLayout,
    element_bits: u32,
) -> Option<usize> {
    // A 2-D operand, or a batched one whose leading dims are the batch:
    // the instruction works on the two minor dims.
    let rank = distributed.out_dims().len();
    if ![8, 16].contains(&element_bits) || rank < 2 {
        return None;
    }
    let bases = distributed.bases();
    let dim_bases = |name: &str| -> Vec<Vec<u32>> {
        bases
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map_or_else(Vec::new, |(_, b)| b.clone())
    };
    let (regs, lanes) = (dim_bases(REGISTER), dim_bases(LANE));
    let (fast, _) = regs.first().and_then(|b| single_dim(b))?;
    let other = match rank - 1 - fast {
        0 => rank - 2,
        1 => rank - 1,
        _ => return None,
    };
    let consecutive = |bases: &[Vec<u32>], dim: usize, n: usize| {
        bases.len() >= n && (0..n).all(|i| single_dim(&bases[i]) == Some((dim, 1 << i)))
    };
    let k = (64 / element_bits).trailing_zeros() as usize;
    (consecutive(&regs, fast, k) && consecutive(&lanes, other, 4)).then_some(fast)
}

/// The generators of one access, all as shared offsets.
struct Geometry {
    /// Elements one lane moves in one request (contiguous, aligned).
    vector_elems: u64,
    /// Offsets of the generators that vary inside one phase.
    phase: Vec<u64>,
    /// Number of phases per pass (one request of every lane).
    phases_per_pass: u64,
    /// Passes per warp: requests of one lane (two per paired instruction).
    passes: u64,
    /// Instructions per warp.
    instructions: u64,
    /// The instruction of each request of a lane, in register order
    /// (empty: request `k` is instruction `k`).
    instruction_of: Vec<u64>,
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
                what: format!("the number of {what}").into(),
                value: v as i64,
            });
        }
    }
    Ok(())
}

fn geometry(access: &Access, target: &BankTarget, padding: &[(u32, u32)]) -> Result<Geometry> {
    let c = cvt(access)?;
    phase_geometry(
        &c,
        access.element_bits,
        access.instruction,
        access.direction,
        target,
        padding,
    )
}

/// The registers that form a `bits`-wide vector of `element_bits`
/// elements (offsets 1, 2, 4, ...), checking that every lane and warp
/// starts an aligned vector.
fn vector_of(c: &Cvt, element_bits: u32, bits: u32) -> Result<Vec<usize>> {
    if !(8..=128).contains(&bits) || !bits.is_power_of_two() || bits < element_bits {
        return Err(LayoutError::invalid(
            "instruction",
            format!("a {bits}-bit ld/st cannot move {element_bits}-bit elements"),
        ));
    }
    let vec = (bits / element_bits) as u64;
    let vec_bits = vec.trailing_zeros();
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
    // Every lane's and every warp's vectors must be aligned, not only warp
    // 0's: the compiler picks one width for the whole CTA. A register whose
    // offset has low bits only reorders the elements inside an aligned
    // vector, which the compiler does with register names (the PTX of
    // compiled kernels shows such vectors).
    for o in c.lanes.iter().chain(&c.warps) {
        if o & low != 0 {
            return Err(cannot_vectorise(format!(
                "a {bits}-bit access needs {vec}-element aligned vectors, but offset {o} is not a multiple of {vec}"
            )));
        }
    }
    Ok(vector_regs)
}

/// How one lane's `bits`-wide requests pair into `ds_read2`/`ds_write2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The instruction of each request of a lane, in register order.
    pub instruction_of: Vec<u64>,
    /// Instructions per lane: pairs and the requests left single.
    pub instructions: u64,
    /// Pairs with the `st64` encoding, and with the plain one.
    pub st64_pairs: u64,
    pub plain_pairs: u64,
}

/// The instructions a paired access issues, by kind: pairs in the `st64`
/// encoding, pairs in the plain one, and requests left single (issued as
/// the single-address instruction of the same width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairCounts {
    pub st64: u64,
    pub plain: u64,
    pub single: u64,
}

impl PairCounts {
    /// `(instruction, count)` for each kind issued, for `bits`-wide requests.
    pub fn mix(&self, bits: u32) -> Vec<(Instruction, u64)> {
        [
            (Instruction::Paired { bits, st64: true }, self.st64),
            (Instruction::Paired { bits, st64: false }, self.plain),
            (Instruction::LdSt { bits }, self.single),
        ]
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .collect()
    }

    /// [`Self::mix`] with each kind's share of the access's `wavefronts`:
    /// `(instruction, count, wavefronts)`. A pair serves two requests; the
    /// last kind takes what rounding left, so the shares add up.
    pub fn split(&self, bits: u32, wavefronts: u64) -> Vec<(Instruction, u64, u64)> {
        let requests = 2 * (self.st64 + self.plain) + self.single;
        let kinds = self.mix(bits);
        let last = kinds.len().saturating_sub(1);
        let mut left = wavefronts;
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, (instruction, count))| {
                let served = match instruction {
                    Instruction::Paired { .. } => 2 * count,
                    _ => count,
                };
                let share = if i == last {
                    left
                } else {
                    (wavefronts * served / requests.max(1)).min(left)
                };
                left -= share;
                (instruction, count, share)
            })
            .collect()
    }
}

impl Pairing {
    pub fn counts(&self) -> PairCounts {
        PairCounts {
            st64: self.st64_pairs,
            plain: self.plain_pairs,
            single: self.instructions - self.st64_pairs - self.plain_pairs,
        }
    }
}

/// How a paired access's requests are issued (`None` for any other
/// instruction). `padding` as in [`padded_wavefronts_by_enumeration`].
pub fn pair_counts(access: &Access, padding: &[(u32, u32)]) -> Result<Option<PairCounts>> {
    pair_counts_split(access, padding, OffsetSplit::KnownBits)
}

/// [`pair_counts`] with the request constants split as `split` says.
pub fn pair_counts_split(
    access: &Access,
    padding: &[(u32, u32)],
    split: OffsetSplit,
) -> Result<Option<PairCounts>> {
    let Instruction::Paired { bits, .. } = access.instruction else {
        return Ok(None);
    };
    Ok(Some(access_pairing(access, bits, padding, split)?.counts()))
}

/// How LLVM splits a request's constant (the XOR of its registers'
/// offsets) into the part its base register holds and the part the
/// instruction adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OffsetSplit {
    /// Known-bits analysis sees the lane's part of the address: every bit
    /// of the constant that no lane or warp can set adds, whichever
    /// register it comes from.
    #[default]
    KnownBits,
    /// The lane's part reaches the access through a phi, past what
    /// known-bits analysis follows (a loop's operand reads repeated after
    /// a loop that may run no times: GVN merges the loop's offsets with
    /// the skipping path's). Only Triton's whole additive registers add,
    /// and a remaining constant with no addressed bit (instcombine made it
    /// an `or disjoint` before the phi existed); a constant with both kinds
    /// of bit stays one `xor`, a base of its own.
    WholeRegisters,
}

/// One in how many of an 8- or 16-bit AMD store's instructions move the
/// high half of their 32-bit register (`ds_write_b16_d16_hi`,
/// `ds_write_b8_d16_hi`): `Some(2)` for 16-bit stores (one half, or two
/// bytes where `byte_pairs` — the machine stores a pair from the high
/// half, `LdsInstructions::byte_pairs_from_high_half`), `Some(4)` for
/// 8-bit ones, when the registers come packed: the
/// first `32 / element_bits` registers are unit steps along
/// `contiguous_dim`, the dim along which the values were loaded from
/// memory in vectors (one vector load puts them into one register). LLVM
/// stores what sits at bit 16 of each register with the `_d16_hi` form and
/// shifts the others down first. `None` for any other access. As the
/// AMDGCN of every 8- and 16-bit kernel of
/// `tests/vectors/triton/amd_kernels.json` has it (157 kernels, loaded from
/// row-major tensors: `contiguous_dim` the last), and gfx1250's stores of
/// byte pairs.
pub fn high_half_share(
    distributed: &LinearLayout,
    element_bits: u32,
    instruction: Instruction,
    contiguous_dim: usize,
    byte_pairs: bool,
) -> Option<u64> {
    let store_bits = narrow_store_bits(element_bits, instruction, byte_pairs)?;
    let per_register = (32 / element_bits) as usize;
    let packed = (0..per_register.trailing_zeros() as usize).all(|i| {
        distributed.basis("register", i).is_ok_and(|b| {
            b.iter()
                .enumerate()
                .all(|(d, &c)| c == if d == contiguous_dim { 1 << i } else { 0 })
        })
    });
    packed.then_some(u64::from(32 / store_bits))
}

/// [`high_half_share`] of a value whose 8- or 16-bit elements sit packed
/// in 32-bit registers in register order, whatever dims the registers step
/// along: an arithmetic conversion made them two at a time
/// (`v_cvt_pk_bf16_f32`), or branches joined them as one vector. Registers
/// `k * 32 / bits ..` share a register, so every second 16-bit store,
/// every fourth byte store, or every second store of a pair of bytes
/// (`byte_pairs`) moves a high half. `None` when the access stores wider
/// vectors, or the registers that would share one hold the same element.
pub fn high_half_share_of_packed_registers(
    distributed: &LinearLayout,
    element_bits: u32,
    instruction: Instruction,
    byte_pairs: bool,
) -> Option<u64> {
    let store_bits = narrow_store_bits(element_bits, instruction, byte_pairs)?;
    let per_register = 32 / element_bits;
    let packed = (0..per_register.trailing_zeros() as usize).all(|i| {
        distributed
            .basis("register", i)
            .is_ok_and(|b| b.iter().any(|&c| c != 0))
    });
    packed.then_some(u64::from(32 / store_bits))
}

/// The bits one scalar store of 8- or 16-bit elements moves, where it
/// has a `_d16_hi` form: one element, or a pair of bytes on a machine
/// that stores pairs from a register's high half. `None` otherwise.
fn narrow_store_bits(element_bits: u32, instruction: Instruction, byte_pairs: bool) -> Option<u32> {
    if !matches!(element_bits, 8 | 16) {
        return None;
    }
    match instruction {
        Instruction::LdSt { bits } if bits == element_bits => Some(bits),
        Instruction::LdSt { bits: 16 } if element_bits == 8 && byte_pairs => Some(16),
        _ => None,
    }
}

/// Whether two offsets (in units of the width, `low < high`) fit one paired
/// instruction, and with which encoding (`Some(true)`: `st64`). LLVM's
/// SILoadStoreOptimizer (`offsetsCanBeCombined`): both multiples of 64
/// widths with quotients below 256 take `st64`; else both below 256 the
/// plain form; else the base moves to the lower one (one more add) and the
/// difference decides the same way.
pub fn pair_encoding(low: u64, high: u64) -> Option<bool> {
    if low.is_multiple_of(64) && high.is_multiple_of(64) && high / 64 <= 255 {
        return Some(true);
    }
    if high <= 255 {
        return Some(false);
    }
    let d = high - low;
    if d.is_multiple_of(64) && d / 64 <= 255 {
        Some(true)
    } else if d <= 255 {
        Some(false)
    } else {
        None
    }
}

/// How the compiler pairs one lane's `bits`-wide requests (`vector_regs`
/// form one request). A request's address is the lane's base XOR the
/// offsets of its registers. The bits of that constant that no lane's or
/// warp's offset can set add to the base instead (Triton's lowering does
/// so for whole registers, `actionAdditiveStrides`, and LLVM's known-bits
/// analysis for the remaining bits: `xor` with bits known zero is an `or`,
/// an add); requests whose other bits agree share a base register. LLVM
/// folds constants up to 65535 bytes into the instruction, sorts the
/// requests of one base by offset and pairs neighbours whose offsets fit
/// the encoding ([`pair_encoding`]), each request at most once. A pair of
/// stores moves the later one up to the earlier, past the stores between
/// them: LLVM does so only past stores of the same base (different
/// constant offsets, which it can tell apart), so stores of another base
/// in between keep the two apart (loads pass loads freely). Triton issues
/// the requests in register order with the additive registers first
/// (`actionAdditiveStrides` moves them to the front: they vary fastest).
/// Over a
/// padded layout the constant is padded too: `pad(l | c) = pad(l) +
/// pad(c)` when the lane part `l` and the constant `c` share no bit, since
/// each interval's shift distributes over the `or` (the AMDGCN of compiled
/// padded kernels pairs exactly these).
fn pair_requests(
    c: &Cvt,
    vector_regs: &[usize],
    element_bits: u32,
    bits: u32,
    padding: &[(u32, u32)],
    direction: Direction,
    split: OffsetSplit,
) -> Pairing {
    let others: Vec<usize> = (0..c.regs.len())
        .filter(|i| !vector_regs.contains(i))
        .collect();
    let addressed = c.lanes.iter().chain(&c.warps).fold(0, |acc, &o| acc | o);
    let requests = 1usize << others.len();
    // Base key -> (offset in widths, request) of the requests sharing it.
    let mut groups: std::collections::BTreeMap<u64, Vec<(u64, usize)>> =
        std::collections::BTreeMap::new();
    let width_bytes = (bits / 8) as u64;
    // The XOR of request `k`'s registers whose offsets `additive` says.
    let constant_of = |k: usize, additive: Option<bool>| {
        others
            .iter()
            .enumerate()
            .filter(|&(j, &i)| {
                k >> j & 1 == 1 && additive.is_none_or(|a| a == (c.regs[i] & addressed == 0))
            })
            .fold(0, |acc, (_, &i)| acc ^ c.regs[i])
    };
    // Request `k`'s base key and the constant that adds to the base.
    let split_of = |k: usize| match split {
        OffsetSplit::KnownBits => {
            let constant = constant_of(k, None);
            (constant & addressed, constant & !addressed)
        }
        OffsetSplit::WholeRegisters => {
            let (xored, added) = (constant_of(k, Some(false)), constant_of(k, Some(true)));
            if xored & addressed == 0 {
                (0, xored ^ added)
            } else {
                (xored, added)
            }
        }
    };
    // Addresses off one base by constants, folded into the instruction or
    // not: LLVM tells them apart.
    let splits: Vec<(u64, u64)> = (0..requests).map(split_of).collect();
    let key_of: Vec<u64> = splits.iter().map(|&(key, _)| key).collect();
    for (k, &(base_key, added)) in splits.iter().enumerate() {
        let mut key = base_key;
        let bytes = padded_offset(padding, added) * element_bits as u64 / 8;
        if bytes > 65535 {
            // Not foldable into the instruction: a base of its own.
            key = u64::MAX - k as u64;
        }
        groups
            .entry(key)
            .or_default()
            .push((bytes / width_bytes, k));
    }
    // Where each request is issued: bit `j` of `k` is register
    // `others[j]`, and the additive ones are the fastest.
    let (additive, rest): (Vec<usize>, Vec<usize>) =
        (0..others.len()).partition(|&j| c.regs[others[j]] & addressed == 0);
    let issue_bit: Vec<usize> = {
        let mut bit = vec![0; others.len()];
        for (at, j) in additive.into_iter().chain(rest).enumerate() {
            bit[j] = at;
        }
        bit
    };
    let mut issued = vec![0; requests];
    for (k, slot) in issued.iter_mut().enumerate() {
        *slot = (0..others.len())
            .filter(|j| k >> j & 1 == 1)
            .fold(0, |acc, j| acc | 1 << issue_bit[j]);
    }
    let mut in_issue_order = vec![0; requests];
    for (k, &at) in issued.iter().enumerate() {
        in_issue_order[at] = k;
    }
    let mut partner: Vec<Option<usize>> = vec![None; requests];
    let (mut st64_pairs, mut plain_pairs) = (0, 0);
    for list in groups.values_mut() {
        list.sort();
        let mut i = 0;
        while i + 1 < list.len() {
            let ((low, a), (high, b)) = (list[i], list[i + 1]);
            let (first, last) = (issued[a].min(issued[b]), issued[a].max(issued[b]));
            let apart = direction == Direction::Store
                && in_issue_order[first + 1..last]
                    .iter()
                    .any(|&between| key_of[between] != key_of[a]);
            match (low < high && !apart)
                .then(|| pair_encoding(low, high))
                .flatten()
            {
                Some(st64) => {
                    partner[a] = Some(b);
                    partner[b] = Some(a);
                    if st64 {
                        st64_pairs += 1;
                    } else {
                        plain_pairs += 1;
                    }
                    i += 2;
                }
                None => i += 1,
            }
        }
    }
    let mut instruction_of = vec![u64::MAX; requests];
    let mut next = 0;
    for k in 0..requests {
        if instruction_of[k] == u64::MAX {
            instruction_of[k] = next;
            if let Some(p) = partner[k] {
                instruction_of[p] = next;
            }
            next += 1;
        }
    }
    Pairing {
        instruction_of,
        instructions: next,
        st64_pairs,
        plain_pairs,
    }
}

/// How LLVM pairs `access`'s `bits`-wide requests ([`pair_requests`]).
fn access_pairing(
    access: &Access,
    bits: u32,
    padding: &[(u32, u32)],
    split: OffsetSplit,
) -> Result<Pairing> {
    let c = cvt(access)?;
    let vector_regs = vector_of(&c, access.element_bits, bits)?;
    Ok(pair_requests(
        &c,
        &vector_regs,
        access.element_bits,
        bits,
        padding,
        access.direction,
        split,
    ))
}

/// The paired instruction (`ds_read2*` / `ds_write2*`) the compiler forms
/// for `access`, an ld/st of 32 or 64 bits on a machine that has them:
/// `None` when it pairs nothing. With both encodings in one access, the
/// more frequent names it (the plain one on a tie). `padding` as in
/// [`padded_wavefronts_by_enumeration`].
pub fn paired_instruction(access: &Access, padding: &[(u32, u32)]) -> Result<Option<Instruction>> {
    let Instruction::LdSt { bits } = access.instruction else {
        return Ok(None);
    };
    if bits != 32 && bits != 64 {
        return Ok(None);
    }
    let p = access_pairing(access, bits, padding, OffsetSplit::KnownBits)?;
    Ok(
        (p.st64_pairs + p.plain_pairs > 0).then_some(Instruction::Paired {
            bits,
            st64: p.st64_pairs > p.plain_pairs,
        }),
    )
}

/// The distinct addresses a quad of lanes (4k..4k+3) asks for when lane
/// bits 0 and 1 move the address (or the tensor coordinate, which a layout
/// maps one to one) by `lanes[0]` and `lanes[1]`: the size of their span.
/// A lane's vector is aligned, so lanes apart by less than a vector are
/// the same address.
fn quad_addresses(lanes: &[u64]) -> u32 {
    1 << f2::rank(lanes.iter().take(2).copied())
}

/// How the requests of an access whose registers and lanes land at `c`
/// are grouped into instructions and phases.
fn phase_geometry(
    c: &Cvt,
    element_bits: u32,
    instruction: Instruction,
    direction: Direction,
    target: &BankTarget,
    padding: &[(u32, u32)],
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
    let bits = match instruction {
        Instruction::LdSt { bits } => bits,
        Instruction::Paired { bits, .. } => {
            if bits != 32 && bits != 64 {
                return Err(LayoutError::invalid(
                    "instruction",
                    format!("ds_read2/ds_write2 move 32 or 64 bits per address, not {bits}"),
                ));
            }
            bits
        }
        Instruction::ReadTransposed {
            element_bits: b,
            generation,
        } => {
            transposed_rotation(b, generation)?;
            if direction != Direction::Load {
                return Err(LayoutError::invalid(
                    "instruction",
                    "a transposing read reads; there is no transposing LDS write",
                ));
            }
            generation.bits(b)
        }
        Instruction::Matrix { count, trans } => {
            let m = matrix_geometry(c, element_bits, count, trans)?;
            let instructions = 1u64 << (c.regs.len() - m.regs_per_instruction);
            return Ok(Geometry {
                vector_elems: (128 / element_bits) as u64,
                phase: m.rows,
                phases_per_pass: count as u64,
                passes: instructions,
                instructions,
                instruction_of: Vec::new(),
                phase_lanes: Vec::new(),
                banks: target.banks,
            });
        }
    };
    let vector_regs = vector_of(c, element_bits, bits)?;
    // A lane id's offset is the XOR of its bits' lane bases.
    let served = target.phases_for_quads(bits, direction, quad_addresses(&c.lanes));
    let generators = &served.generators;
    let phase = generators
        .iter()
        .map(|&g| {
            (0..lane_bits as usize)
                .filter(|&b| g >> b & 1 == 1)
                .fold(0, |o, b| o ^ c.lanes[b])
        })
        .collect::<Vec<_>>();
    let phases_per_pass = 1u64 << (lane_bits as usize - generators.len());
    let passes = 1u64 << (c.regs.len() - vector_regs.len());
    let (instructions, instruction_of) = match instruction {
        Instruction::Paired { st64, .. } => {
            let p = pair_requests(
                c,
                &vector_regs,
                element_bits,
                bits,
                padding,
                direction,
                OffsetSplit::KnownBits,
            );
            let formed = if st64 { p.st64_pairs } else { p.plain_pairs };
            if formed == 0 {
                return Err(cannot_vectorise(format!(
                    "{} needs two {bits}-bit requests of one lane at constant offsets {}, and this access has none (a register's offset must add to the lane's address, not XOR into it)",
                    instruction.mnemonic(direction, crate::machine::Vendor::Amd, element_bits),
                    if st64 {
                        "that are multiples of 64 widths, at most 255 x 64 widths apart"
                    } else {
                        "at most 255 widths apart"
                    }
                )));
            }
            (p.instructions, p.instruction_of)
        }
        _ => (passes, Vec::new()),
    };
    Ok(Geometry {
        vector_elems: (bits / element_bits) as u64,
        phase,
        phases_per_pass,
        passes,
        instructions,
        instruction_of,
        phase_lanes: served.generators.clone(),
        banks: served.banks,
    })
}

struct MatrixGeometry {
    /// Offsets of the generators of the 8 row addresses of one matrix.
    rows: Vec<u64>,
    regs_per_instruction: usize,
}

/// Register bits that make up one lane's 32-bit share of a matrix row:
/// ldmatrix/stmatrix move pairs of 16-bit halves, so a lane holds two
/// 16-bit, four 8-bit or one 32-bit element of each row (Triton uses the
/// plain form for any element up to 32 bits, `.trans` for 16-bit only).
pub fn matrix_chunk_registers(element_bits: u32, trans: bool) -> Result<usize> {
    match (element_bits, trans) {
        (16, _) => Ok(1),
        (8, false) => Ok(2),
        (32, false) => Ok(0),
        _ => Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            if trans {
                format!("transpose 16-bit elements, not {element_bits}-bit")
            } else {
                format!("move 8-, 16- or 32-bit elements, not {element_bits}-bit")
            },
        )),
    }
}

/// The register whose bit picks the odd rows of a transposed matrix (the
/// other row bits are lanes 0 and 1). Triton 3.9 searches for it
/// (`getLdStMatrixRowPermutation`): it tries the registers in order and
/// keeps the first whose rows, with those of lanes 0 and 1, share the
/// fewest banks, preferring register 0 on a tie (its two halves are the
/// pair the mma wants; any other is repacked after the load). `regs` and
/// `lanes` are element offsets, multiples of a row (`row_elements`) where a
/// matrix applies; the 8 rows of 16 bytes in 128 are the banks, the bits
/// above them the conflicts.
pub(crate) fn transposed_row_register(regs: &[u64], lanes: [u64; 2], row_elements: u64) -> usize {
    let conflicts = |reg: u64| {
        let rows = [reg, lanes[0], lanes[1]].map(|o| o / row_elements);
        crate::f2::rank(rows) - crate::f2::rank(rows.map(|r| r & 7))
    };
    let cost = |i: usize| (conflicts(regs[i]), u32::from(i != 0));
    (0..regs.len()).min_by_key(|&i| (cost(i), i)).unwrap_or(0)
}

/// `ldmatrix`/`stmatrix` need the mma fragment: in a plain access, the
/// registers of one lane's 32-bit share (any registers that hold
/// consecutive elements) and lane bits 0, 1 walk the 16 bytes of a row, and
/// lane bits 2-4 pick the row; `.trans` (16-bit) swaps the roles: register
/// bit 0 and lane bits 0, 1 pick the row, lane bits 2-4 walk it.
fn matrix_geometry(c: &Cvt, element_bits: u32, count: u32, trans: bool) -> Result<MatrixGeometry> {
    let chunk = matrix_chunk_registers(element_bits, trans)?;
    if ![1, 2, 4].contains(&count) {
        return Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            format!("move 1, 2 or 4 matrices, not {count}"),
        ));
    }
    let extra = count.trailing_zeros() as usize;
    if c.lanes.len() != 5 || c.regs.len() < chunk + extra {
        return Err(LayoutError::invalid(
            "ldmatrix/stmatrix",
            format!(
                "need 32 lanes and at least {} registers per thread",
                1 << (chunk + extra)
            ),
        ));
    }
    // Elements in one 16-byte row.
    let row_elements = (128 / element_bits) as u64;
    let (contig, rows, chunk_regs) = if trans {
        let row = transposed_row_register(&c.regs, [c.lanes[0], c.lanes[1]], row_elements);
        (
            vec![c.lanes[2], c.lanes[3], c.lanes[4]],
            vec![c.regs[row], c.lanes[0], c.lanes[1]],
            vec![row],
        )
    } else {
        let chunk_regs: Vec<usize> = (0..chunk)
            .map(|k| {
                c.regs
                    .iter()
                    .position(|&o| o == 1 << k)
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let contig = chunk_regs
            .iter()
            .map(|&r| c.regs.get(r).copied().unwrap_or(0))
            .chain([c.lanes[0], c.lanes[1]])
            .collect();
        (contig, vec![c.lanes[2], c.lanes[3], c.lanes[4]], chunk_regs)
    };
    let want: Vec<u64> = (0..row_elements.trailing_zeros()).map(|k| 1 << k).collect();
    if contig != want {
        return Err(cannot_vectorise(format!(
            "{}matrix needs each 8x8 row to be 16 consecutive bytes in shared memory; the fragment's row elements are at offsets {:?}",
            if trans { "a transposed " } else { "" },
            contig
        )));
    }
    // Every warp's rows, too: one instruction form serves the whole CTA.
    let others = c
        .regs
        .iter()
        .enumerate()
        .filter(|(i, _)| !chunk_regs.contains(i))
        .map(|(_, o)| o)
        .chain(&rows)
        .chain(&c.warps);
    for &o in others {
        if o % row_elements != 0 {
            return Err(cannot_vectorise(format!(
                "matrix rows must start at multiples of {row_elements} elements (16 bytes), offset {o} does not"
            )));
        }
    }
    Ok(MatrixGeometry {
        rows,
        regs_per_instruction: chunk + extra,
    })
}

/// Wavefronts by the rank formula: each phase takes `2^dim(Im φ ∩ Seg)`.
pub fn wavefronts_by_rank(access: &Access, target: &BankTarget) -> Result<Wavefronts> {
    let g = geometry(access, target, &[])?;
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
        let this = self.addressing(instruction)?;
        let c = cvt_of(&this, map);
        let g = phase_geometry(&c, self.element_bits, instruction, direction, target, &[])?;
        Ok(rank_wavefronts(&g, self.element_bits, target))
    }

    /// [`pair_counts`] of this access with the tensor stored at `map`.
    pub fn pair_counts(
        &self,
        map: &OffsetMap,
        instruction: Instruction,
        direction: Direction,
        padding: &[(u32, u32)],
    ) -> Result<Option<PairCounts>> {
        let Instruction::Paired { bits, .. } = instruction else {
            return Ok(None);
        };
        let c = cvt_of(self, map);
        let vector_regs = vector_of(&c, self.element_bits, bits)?;
        Ok(Some(
            pair_requests(
                &c,
                &vector_regs,
                self.element_bits,
                bits,
                padding,
                direction,
                OffsetSplit::KnownBits,
            )
            .counts(),
        ))
    }

    /// The widest `ld/st.shared` vector (elements, at most 128 bits) `map`
    /// allows this access.
    pub fn widest_vector(&self, map: &OffsetMap) -> u64 {
        widest_vector_of(&cvt_of(self, map), self.element_bits, VectorRule::Compiled)
    }

    /// [`Self::widest_vector`] when padding follows `map`: Triton's rule
    /// ([`largest_vectorisation`]), registers taken in any order.
    pub fn widest_padded_vector(&self, map: &OffsetMap) -> u64 {
        widest_vector_of(&cvt_of(self, map), self.element_bits, VectorRule::Triton)
    }

    /// The vector Triton's padded lowering itself emits
    /// ([`padded_vectorisation`]: registers in their order). Where it is
    /// narrower than [`Self::widest_padded_vector`], LLVM re-widens the
    /// accesses only where its alignment analysis proves the address
    /// aligned, which the layouts alone do not decide.
    pub fn emitted_padded_vector(&self, map: &OffsetMap) -> u64 {
        widest_vector_of(&cvt_of(self, map), self.element_bits, VectorRule::Padded)
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
    let ideal = g.passes * g.phases_per_pass;
    Wavefronts {
        instructions: g.instructions,
        wavefronts: ideal * per_phase,
        ideal,
    }
}

/// Wavefronts by walking every request of a warp (the oracle): of the
/// worst warp, which over a linear layout is any of them.
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
/// enumeration can count them, and each warp's padding differs, so every
/// warp is walked and the worst one counts.
pub fn padded_wavefronts_by_enumeration(
    access: &Access,
    target: &BankTarget,
    padding: &[(u32, u32)],
) -> Result<Wavefronts> {
    // The geometry validates the access (vectorisation, fragment shape) and
    // gives the instruction grouping; the addresses come from the layouts.
    let g = geometry(access, target, padding)?;
    let d = addressing(access)?;
    let reg_bits = d.in_dim_size_log2(REGISTER);
    let lane_bits = d.in_dim_size_log2(LANE);
    let warps = worst_warp_candidates(padding, d.in_dim_size_log2("warp"));
    let offsets = trace::ElementOffsets::new(&Access {
        distributed: &d,
        ..*access
    })?;
    let mut worst: Option<Wavefronts> = None;
    for warp in 0..warps {
        let w = trace::count_wavefronts(
            &g,
            access.instruction,
            access.element_bits,
            target,
            padding,
            (reg_bits, lane_bits),
            offsets.of_warp(warp)?,
        )?;
        worst = Some(worst.map_or(w, |b| if w.wavefronts > b.wavefronts { w } else { b }));
    }
    Ok(worst.expect("at least warp 0"))
}

/// How many warps to walk for the worst one: over a linear layout every
/// warp's addresses are warp 0's XOR a constant, which moves no request to
/// another bank relative to the others, so warp 0 costs what each does;
/// padding adds a different amount in each warp, so then every warp counts.
fn worst_warp_candidates(padding: &[(u32, u32)], warp_bits: u32) -> u64 {
    if padding.is_empty() {
        1
    } else {
        1 << warp_bits.min(5)
    }
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
        let this = self.addressing(instruction)?;
        let c = cvt_of(&this, map);
        let g = phase_geometry(
            &c,
            self.element_bits,
            instruction,
            direction,
            target,
            padding,
        )?;
        let bits = (this.registers.len() as u32, this.lanes.len() as u32);
        // The element of (register, lane) of a warp is the XOR of its
        // bases' elements.
        let xor_of = |bases: &[u64], index: u64| -> u64 {
            (0..bases.len())
                .filter(|i| index >> i & 1 == 1)
                .fold(0, |acc, i| acc ^ bases[i])
        };
        let warps = worst_warp_candidates(padding, this.warps.len() as u32);
        // The map is linear: each register's and each lane's offset is the
        // XOR of its bits' offsets, tabulated once (one XOR an entry).
        let table = |bases: &[u64]| -> Vec<u64> {
            let images: Vec<u64> = bases.iter().map(|&b| map.apply(b)).collect();
            let mut out = vec![0u64; 1 << bases.len()];
            for i in 1..out.len() {
                out[i] = out[i & (i - 1)] ^ images[i.trailing_zeros() as usize];
            }
            out
        };
        let (registers, lanes) = (table(&this.registers), table(&this.lanes));
        let mut worst: Option<Wavefronts> = None;
        for warp in 0..warps {
            let base = map.apply(xor_of(&this.warps, warp));
            let w = trace::count_wavefronts(
                &g,
                instruction,
                self.element_bits,
                target,
                padding,
                bits,
                |reg, lane| Ok(base ^ registers[reg as usize] ^ lanes[lane as usize]),
            )?;
            worst = Some(worst.map_or(w, |b| if w.wavefronts > b.wavefronts { w } else { b }));
        }
        Ok(worst.expect("at least warp 0"))
    }
}

/// The largest vector (in elements, at most 128 bits) in which every lane
/// holds consecutive, aligned shared-memory elements, and the register
/// indices that form it (Triton's `largestVectorisation`, which Triton's
/// bank-conflict measure and its padded lowering use).
pub fn largest_vectorisation(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<(u64, Vec<usize>)> {
    vectorisation(distributed, shared, element_bits, VectorRule::Triton)
}

/// The vector Triton's padded lowering uses: [`largest_vectorisation`]
/// without reordering registers (Triton allows no permutation when the
/// padding caps the vector), before the cap of the padding intervals.
pub fn padded_vectorisation(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<u64> {
    Ok(vectorisation(distributed, shared, element_bits, VectorRule::Padded)?.0)
}

/// The vector the compiled kernel uses: [`largest_vectorisation`], except
/// that a register whose offset has low bits only reorders the elements
/// inside an aligned vector, and LLVM merges such accesses into the wide
/// one (the PTX of compiled kernels shows it), so only lanes and warps
/// must be aligned.
pub fn compiled_vectorisation(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<u64> {
    Ok(vectorisation(distributed, shared, element_bits, VectorRule::Compiled)?.0)
}

/// The registers (indices of `distributed`'s register bases) that form the
/// [`compiled_vectorisation`] vector, by the offset bit each moves: element
/// `i` of the vector is the register that sets basis `r[j]` for each bit
/// `j` of `i`.
pub fn compiled_vector_registers(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<Vec<usize>> {
    Ok(vectorisation(distributed, shared, element_bits, VectorRule::Compiled)?.1)
}

fn vectorisation(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    rule: VectorRule,
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
    Ok(vector_registers(&c, element_bits, rule))
}

/// Which registers must start aligned vectors: all of them (Triton's rule)
/// or none (what the compiled kernel does over a linear layout); under
/// padding, Triton's rule without reordering the registers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum VectorRule {
    Triton,
    Padded,
    Compiled,
}

fn widest_vector_of(c: &Cvt, element_bits: u32, rule: VectorRule) -> u64 {
    vector_registers(c, element_bits, rule).0
}

/// The widest vector `c` allows and the registers that form it.
fn vector_registers(c: &Cvt, element_bits: u32, rule: VectorRule) -> (u64, Vec<usize>) {
    let max = (128 / element_bits).max(1) as u64;
    let mut v = max;
    while v >= 1 {
        let k = v.trailing_zeros();
        let regs: Option<Vec<usize>> = (0..k)
            .map(|i| c.regs.iter().position(|&o| o == 1 << i))
            .collect();
        // Under padding Triton does not reorder registers: the vector is
        // the first registers that move the offset (broadcast ones dropped).
        let in_order = || {
            let moving: Vec<usize> = (0..c.regs.len()).filter(|&i| c.regs[i] != 0).collect();
            (0..k as usize)
                .map(|i| moving.get(i).copied().filter(|&r| c.regs[r] == 1 << i))
                .collect::<Option<Vec<usize>>>()
        };
        let regs = if rule == VectorRule::Padded {
            regs.and_then(|_| in_order())
        } else {
            regs
        };
        if let Some(regs) = regs {
            let low = v - 1;
            // Lanes and warps aligned; registers too by Triton's rule.
            let aligned = c.lanes.iter().chain(&c.warps).all(|o| o & low == 0)
                && (rule == VectorRule::Compiled
                    || c.regs
                        .iter()
                        .enumerate()
                        .all(|(i, o)| regs.contains(&i) || o & low == 0));
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
        let lanes_of = |lanes: &[u64], bits: u32| -> Vec<u64> {
            target
                .phases_for_quads(bits, direction, quad_addresses(lanes))
                .generators
                .iter()
                .map(|&g| {
                    (0..lanes.len())
                        .filter(|&b| g >> b & 1 == 1)
                        .fold(0, |o, b| o ^ lanes[b])
                })
                .collect()
        };
        match instruction {
            Instruction::LdSt { bits } | Instruction::Paired { bits, .. } => {
                lanes_of(&self.lanes, bits)
            }
            Instruction::ReadTransposed { .. } => match self.addressing(instruction) {
                Ok(this) => lanes_of(&this.lanes, instruction.bits_per_lane()),
                Err(_) => Vec::new(),
            },
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
            Instruction::LdSt { .. }
            | Instruction::Paired { .. }
            | Instruction::ReadTransposed { .. } => None,
            Instruction::Matrix { trans: false, .. } => Some(
                self.registers
                    .iter()
                    .take(matrix_chunk_registers(self.element_bits, false).ok()?)
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
        let per_address = match instruction {
            Instruction::ReadTransposed { .. } => Some(instruction.bits_per_lane()),
            Instruction::LdSt { bits } | Instruction::Paired { bits, .. } => Some(bits),
            Instruction::Matrix { .. } => None,
        };
        match (per_address, instruction) {
            (Some(bits), _) => {
                let vector_bits = (bits / self.element_bits).max(1).trailing_zeros();
                let instructions = 1u64 << regs.saturating_sub(vector_bits);
                let served = target
                    .phases_for_quads(bits, direction, quad_addresses(&self.lanes))
                    .generators
                    .len() as u32;
                instructions << lane_bits.saturating_sub(served)
            }
            (None, Instruction::Matrix { count, trans }) => {
                let chunk = matrix_chunk_registers(self.element_bits, trans).unwrap_or(1) as u32;
                let per = chunk + count.trailing_zeros();
                (1u64 << regs.saturating_sub(per)) * count as u64
            }
            (None, _) => unreachable!("only matrix instructions have no per-address width"),
        }
    }

    /// The geometry whose lanes address memory for `instruction`: its own,
    /// or for a transposing read, with the bases [`transposed_read_layout`]
    /// rotates.
    pub fn addressing(
        &self,
        instruction: Instruction,
    ) -> Result<std::borrow::Cow<'_, AccessGeometry>> {
        let Instruction::ReadTransposed {
            element_bits,
            generation,
        } = instruction
        else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        if element_bits != self.element_bits {
            return Err(LayoutError::invalid(
                "instruction",
                format!(
                    "{} reads {element_bits}-bit elements, not {}-bit",
                    instruction.kind_name(Direction::Load),
                    self.element_bits
                ),
            ));
        }
        let mut this = self.clone();
        transposed_rotation(element_bits, generation)?
            .apply(&mut this.registers, &mut this.lanes)?;
        Ok(std::borrow::Cow::Owned(this))
    }
}

#[cfg(test)]
mod tests {
    use super::{largest_vectorisation, padded_vectorisation, transposed_row_register};
    use crate::linear::{DimName, LinearLayout};

    fn layout(bases: Vec<(&str, Vec<Vec<i64>>)>, dims: [i64; 2]) -> LinearLayout {
        let outs = vec![
            (DimName::from("dim0"), dims[0]),
            (DimName::from("dim1"), dims[1]),
        ];
        LinearLayout::from_bases_with_sizes(bases, outs, true).unwrap()
    }

    /// A 64x16 f32 store, one warp, into `#ttg.padded_shared<[64:+4]
    /// {order = [0, 1]}>` (a problem of tests/vectors/triton/ptx_answers.json
    /// compiled by Triton 3.9 for sm90): register 3 holds the element after
    /// register 0's, so a vector of two needs the registers reordered. The
    /// PTX stores `st.shared.b32`, one element per instruction: Triton's
    /// padded lowering takes no permutation, which its measure does.
    #[test]
    fn padded_vectors_take_the_registers_in_order() {
        let store = layout(
            vec![
                (
                    "register",
                    vec![vec![0, 2], vec![0, 8], vec![32, 0], vec![1, 0], vec![0, 4]],
                ),
                (
                    "lane",
                    vec![vec![16, 0], vec![0, 1], vec![4, 0], vec![2, 0], vec![8, 0]],
                ),
                ("warp", vec![]),
            ],
            [64, 16],
        );
        // The linear part of the padded layout: column-major offsets.
        let mut offset = Vec::new();
        for i in 0..6 {
            offset.push(vec![1 << i, 0]);
        }
        for i in 0..4 {
            offset.push(vec![0, 1 << i]);
        }
        let shared = layout(vec![("offset", offset)], [64, 16]);
        assert_eq!(padded_vectorisation(&store, &shared, 32).unwrap(), 1);
        assert_eq!(largest_vectorisation(&store, &shared, 32).unwrap().0, 2);
    }

    /// The B operand of a compiled batched dot (Triton 3.9, sm90: 2x32x64
    /// fp16, mma v2 warps [2, 2, 2]): its registers sit at element offsets
    /// k+1, k+8, k+16, n+16, n+32 and lanes 0, 1 at k+2, k+4 of a
    /// row-major tile whose k stride is 128. The PTX's row addresses are 0,
    /// +32 B, +512 B, ...: the rows are n+16 (register 3), k+2 and k+4.
    #[test]
    fn the_row_register_is_the_one_triton_picked_in_a_compiled_kernel() {
        let regs = [128, 1024, 2048, 16, 32];
        assert_eq!(transposed_row_register(&regs, [256, 512], 8), 3);
        // Rows 16, 32 and 48 bytes apart: no conflict either way, and
        // register 0 wins the tie (its pair needs no repacking).
        assert_eq!(transposed_row_register(&[8, 24], [16, 32], 8), 0);
        // Register 0 conflicts; of the two that do not, the first.
        assert_eq!(transposed_row_register(&[64, 8, 24], [16, 32], 8), 1);
    }
}
