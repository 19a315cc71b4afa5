//! The machines layouts run on, as facts: threads per warp, shared-memory
//! banks and their width, the lanes each LDS instruction serves together
//! (measured on AMD hardware: tests/vectors/amd/lds_phases.json), and which
//! shared-memory instructions exist (AMD's paired `ds_read2`/`ds_write2`
//! on every CDNA generation, the transposing `ds_read_b64_tr_bN` on gfx950
//! and `ds_load_tr16_b128`/`ds_load_tr8_b64` on gfx1250; their halves and
//! reads are served with the phases of the single-address instruction of
//! their width, which is assumed, not measured), and how the assembler
//! spells them. Triton's `ttg.target` names map to them.

use crate::bank::{BankTarget, Direction, PhaseRule, TransposedRead};

/// Who makes the machine: it decides the instruction set and how the
/// assembly names each instruction (`ld.shared.v4.b32` or `ds_read_b128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vendor {
    Nvidia,
    Amd,
}

impl Vendor {
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Nvidia => "NVIDIA",
            Vendor::Amd => "AMD",
        }
    }
}

/// The matrix instructions of a machine's shared memory, and how Triton
/// swizzles a conversion through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedInstructions {
    /// `ldmatrix` (NVIDIA sm75 and later).
    pub ldmatrix: bool,
    /// `stmatrix` (NVIDIA sm90 and later).
    pub stmatrix: bool,
    pub swizzle: ConversionSwizzle,
}

/// How Triton 3.9 picks the swizzle of a conversion through shared memory
/// on a machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionSwizzle {
    /// NVIDIA (`optimalSwizzling`): a tile per pair of store and load
    /// instructions the machine has, the pair with the fewest conflicts.
    InstructionTiles,
    /// AMD (`optimalSwizzlingLdSt` with `TargetInfo::getSharedLdStTiles`):
    /// plain loads and stores; one phase of a 128-bit load serves the lanes
    /// whose lane-id bits are `b128_load_lanes` (`ds_read_b128`'s lane
    /// groups), not the first lanes.
    LdSt { b128_load_lanes: &'static [usize] },
}

impl SharedInstructions {
    /// Only `ld.shared` / `st.shared` (NVIDIA before sm75, or a machine
    /// layoutc does not know).
    pub const LD_ST: Self = SharedInstructions {
        ldmatrix: false,
        stmatrix: false,
        swizzle: ConversionSwizzle::InstructionTiles,
    };
    /// NVIDIA sm90 and later.
    pub const SM90: Self = SharedInstructions {
        ldmatrix: true,
        stmatrix: true,
        swizzle: ConversionSwizzle::InstructionTiles,
    };
    /// AMD CDNA3 (gfx942): `ds_read_b128` serves lane bits 0, 1 and 4
    /// together.
    pub const CDNA3: Self = SharedInstructions {
        ldmatrix: false,
        stmatrix: false,
        swizzle: ConversionSwizzle::LdSt {
            b128_load_lanes: &[0, 1, 4],
        },
    };
    /// AMD CDNA4 (gfx950): lane bits 0, 1, 3 and 4.
    pub const CDNA4: Self = SharedInstructions {
        ldmatrix: false,
        stmatrix: false,
        swizzle: ConversionSwizzle::LdSt {
            b128_load_lanes: &[0, 1, 3, 4],
        },
    };
    /// AMD gfx1250: Triton 3.9 names no lane groups for its 128-bit loads
    /// (its swizzle takes the first lanes, as compiled kernels' scratch
    /// sizes show).
    pub const GFX1250: Self = SharedInstructions {
        ldmatrix: false,
        stmatrix: false,
        swizzle: ConversionSwizzle::LdSt {
            b128_load_lanes: &[],
        },
    };

    /// Whether the machine has the matrix instruction of `direction`.
    pub fn matrix(self, direction: Direction) -> bool {
        match direction {
            Direction::Load => self.ldmatrix,
            Direction::Store => self.stmatrix,
        }
    }
}

/// A named machine.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub vendor: Vendor,
    pub threads_per_warp: u32,
    pub banks: u32,
    pub bank_bytes: u32,
    /// Instructions whose phases differ from one line per phase.
    pub phases: &'static [PresetPhase],
    /// The matrix instructions it has (ldmatrix from sm75, stmatrix from
    /// sm90, neither on AMD).
    pub instructions: SharedInstructions,
    /// AMD's LDS instructions beyond one address per lane.
    pub lds: LdsInstructions,
    /// Arithmetic on pairs of f32 (`add/mul/fma.f32x2`, sm100 on): LLVM
    /// keeps pairs of f32 that such arithmetic makes in 64-bit registers
    /// and moves four of them as `.v2.b64`. The kernel summary applies it
    /// to sums and products (`arith.addf`, `arith.mulf`), the ones the
    /// compiled reductions show.
    pub paired_f32: bool,
    /// Vectors of eight or sixteen booleans that LLVM reads as `i1` (a
    /// condition, a mask, a combine's operands) move in 64-bit words
    /// (`ld.shared.b64`, `.v2.b64`) where other machines have 32-bit ones
    /// (`.v2.b32`, `.v4.b32`): sm100's NVPTX, as its compiled kernels show.
    pub booleans_in_64_bit_words: bool,
    /// Vectors of 8- or 16-bit elements that branches or a loop join (an
    /// `scf.if`'s or `scf.for`'s result that arithmetic made on some path)
    /// move in 64-bit words where other machines store 32-bit ones: eight
    /// halves as `st.shared.v2.b64` (not `.v4.b32`), eight bytes as
    /// `st.shared.b64` (not `.v2.b32`), sixteen as `st.shared.v2.b64`:
    /// sm100's NVPTX, as its compiled kernels show (f32, four halves and
    /// narrower vectors stay as they are).
    pub joined_halves_in_64_bit_words: bool,
    /// Elementwise arithmetic on bytes keeps them four to a 32-bit
    /// register, as a vector load put them (gfx1250: its stores of byte
    /// pairs still take the high half with `ds_store_b16_d16_hi`); other
    /// machines compute each byte in a register of its own.
    pub packed_byte_arithmetic: bool,
}

/// The LDS instructions of an AMD machine beyond one vector per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LdsInstructions {
    /// `ds_read2_b32/b64`, `ds_write2_b32/b64` and their `st64` forms: two
    /// addresses per lane (every GCN and CDNA machine).
    pub paired: bool,
    /// The element widths the machine reads transposed (gfx950: 16, 8, 4;
    /// gfx1250: 16, 8, as Triton 3.9 lowers them).
    pub transposed_read_bits: &'static [u32],
    /// Which transposing reads those are.
    pub transposed_read: TransposedRead,
    /// How the assembler spells the opcodes.
    pub spelling: LdsSpelling,
    /// A 16-bit store of two bytes from the high half of a packed register
    /// takes the `_d16_hi` form (gfx1250's `ds_store_b16_d16_hi`); gfx942
    /// and gfx950 shift the bytes down first, as their AMDGCN shows.
    pub byte_pairs_from_high_half: bool,
    /// 16-bit values live in half registers (gfx1250's true16 VGPRs: `v7.l`,
    /// `v7.h`): the register allocator puts two in one register, and the
    /// one in the high half is stored with `_d16_hi`.
    pub half_registers: bool,
    /// A loop body's reads of a buffer the same body then refills from
    /// registers (a `ttg.local_store` into another stage of the
    /// allocation after the `ttg.local_load`) go as single reads where they
    /// would pair (gfx1250: a microscaled loop's scale reads, two
    /// `ds_load_b32` for one `ds_load_2addr_stride64_b32`), as its AMDGCN
    /// shows; the same reads after the loop pair, and so do reads of
    /// stages asynchronous copies refill.
    pub restaged_reads_unpaired: bool,
    /// Reads whose lanes' offsets reach them through a phi (a loop's
    /// operand reads repeated after a loop that may run no times) pair
    /// only by whole registers: a register offset with both bits a lane
    /// sets and bits none does stays one `xor` (gfx942's pipelined
    /// epilogues, as their AMDGCN shows; set on gfx950 too, the same
    /// backend, whose operand reads in the kernels measured are 128 bits
    /// and unpaired; gfx1250 pairs them as in the loop). See
    /// `bank::OffsetSplit::WholeRegisters`.
    pub phi_offsets_pair_by_register: bool,
    /// The bits of the work-item id LLVM knows may be set: AMDGPU declares
    /// `llvm.amdgcn.workitem.id.x` in `range(0, 1024)` whatever the block.
    /// An address `(tid & m) | c` whose constant sets every other one of
    /// them, InstCombine folds to `tid | c`: an address of its own that
    /// pairs with no access off the common base (a scan's reads of its
    /// partials, as the AMDGCN shows). 0 where no access is paired.
    pub work_item_id_bits: u32,
    /// Where a scan's partial stores whose address InstCombine folds so
    /// (`(wave & (W - 1)) | k`, the wave the work-item id over the lanes)
    /// go; `None` where no access is paired.
    pub folded_scan_stores: Option<FoldedScanStores>,
    /// A scan's 16-bit partials of neighbouring chunks (registers off the
    /// axis) computed two to a register, every second stored from the high
    /// half (`ds_write_b16_d16_hi`), as the compiled scans of 2-D tiles
    /// show; `None` where they stay apart.
    pub packed_scan_partials: Option<PackedScanPartials>,
    /// Packed f32 arithmetic (`v_pk_add_f32`, `v_pk_mul_f32`) beside LDS
    /// vectors that need their natural alignment (CDNA3, CDNA4): LLVM's
    /// SLP vectoriser loads the consecutive partials an f32 sum's or
    /// product's scan reads as vectors of growing width, which the LDS
    /// then reads by each vector's alignment (`ds_read2_b64` for four
    /// floats 8 bytes into a 16-byte line) rather than in aligned 128-bit
    /// pieces, as the compiled 1-D scans show. A maximum is not vectorised.
    pub packed_f32_scan_reads: bool,
}

/// Where a scan's partial stores at an address of their own
/// (`LdsInstructions::folded_scan_stores`) go, as the AMDGCN of 1-D and
/// row scans shows: the 64-bit ones alone everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FoldedScanStores {
    /// The 32-bit ones keep their own base and pair among themselves
    /// (CDNA: gfx942, gfx950).
    Apart,
    /// The 32-bit ones pair with the rest (gfx1250).
    WordsWithTheRest,
}

/// Where LLVM computes a scan's 16-bit partials two to a register, after
/// the warp's scan takes at least `min_shuffle_steps` shuffle steps (with
/// fewer they stay apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedScanPartials {
    /// gfx1250's true16 half registers: the register allocator puts any
    /// two partials in one register, after one step.
    HalfRegisters { min_shuffle_steps: u32 },
    /// gfx942 and gfx950: the SLP vectoriser pairs the integer arithmetic
    /// of bf16 addition across neighbouring chunks (registers off the
    /// axis, an even number of them a block), after two steps; their f16
    /// arithmetic is native and its pairing not regular.
    PairedBf16Chunks { min_shuffle_steps: u32 },
}

/// How an AMD assembler spells LDS opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LdsSpelling {
    /// GCN and CDNA: `ds_read_b128`, `ds_write2st64_b64`, `ds_read_u16`.
    #[default]
    Gcn,
    /// GFX12 and later (gfx1250): `ds_load_b128`,
    /// `ds_store_2addr_stride64_b64`, `ds_load_u16`.
    Gfx12,
}

impl LdsInstructions {
    /// NVIDIA: none of them.
    pub const NONE: Self = LdsInstructions {
        paired: false,
        transposed_read_bits: &[],
        transposed_read: TransposedRead::Cdna4,
        spelling: LdsSpelling::Gcn,
        byte_pairs_from_high_half: false,
        half_registers: false,
        restaged_reads_unpaired: false,
        phi_offsets_pair_by_register: false,
        work_item_id_bits: 0,
        folded_scan_stores: None,
        packed_scan_partials: None,
        packed_f32_scan_reads: false,
    };
}

/// A phase rule of a preset: access bits, direction, the lanes served with
/// lane 0, and the banks the instruction sees when not the target's.
pub struct PresetPhase {
    pub bits: u32,
    pub direction: Direction,
    pub lanes: &'static [u32],
    pub banks: Option<u32>,
}

/// CDNA3 (gfx942). ds_read_b128 serves lanes 0-3 with 20-23, not 8
/// consecutive lanes: measured on MI300 by a public microbenchmark that
/// times every pair of lanes (AMD's blog post "Avoiding LDS Bank Conflicts
/// on AMD GPUs Using CK-Tile Framework" notes that ds_read_b128 has lane
/// groups of its own); ds_write_b128 serves 8 consecutive lanes (Composable
/// Kernel's LDS documentation). tests/vectors/amd/lds_phases.json.
const GFX942_PHASES: &[PresetPhase] = &[
    PresetPhase {
        bits: 128,
        direction: Direction::Load,
        lanes: &[0, 1, 2, 3, 20, 21, 22, 23],
        banks: None,
    },
    PresetPhase {
        bits: 128,
        direction: Direction::Store,
        lanes: &[0, 1, 2, 3, 4, 5, 6, 7],
        banks: None,
    },
];

/// CDNA4 (gfx950), 64 banks. Measured on a CDNA4 part by the HipKittens
/// project (pairwise conflicts of every two lanes): ds_read_b128 serves
/// lanes 0-3, 12-15 and 20-27 together; ds_read_b64 lanes 0-31;
/// ds_write_b64 lanes 0-15, and those stores see 32 banks (lane 1 at bank
/// 32 conflicts with lane 0 at bank 0). tests/vectors/amd/lds_phases.json.
const GFX950_PHASES: &[PresetPhase] = &[
    PresetPhase {
        bits: 128,
        direction: Direction::Load,
        lanes: &[0, 1, 2, 3, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27],
        banks: None,
    },
    PresetPhase {
        bits: 64,
        direction: Direction::Load,
        lanes: &[
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        ],
        banks: None,
    },
    PresetPhase {
        bits: 64,
        direction: Direction::Store,
        lanes: &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        banks: Some(32),
    },
];

/// The presets `target = NAME` accepts.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "sm80",
        vendor: Vendor::Nvidia,
        description: "NVIDIA Ampere (A100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
        instructions: SharedInstructions {
            ldmatrix: true,
            stmatrix: false,
            swizzle: ConversionSwizzle::InstructionTiles,
        },
        lds: LdsInstructions::NONE,
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: false,
    },
    Preset {
        name: "sm90",
        vendor: Vendor::Nvidia,
        description: "NVIDIA Hopper (H100): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
        instructions: SharedInstructions::SM90,
        lds: LdsInstructions::NONE,
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: false,
    },
    Preset {
        name: "sm100",
        vendor: Vendor::Nvidia,
        description: "NVIDIA Blackwell (B200): 32-thread warps, 32 banks of 4 bytes",
        threads_per_warp: 32,
        banks: 32,
        bank_bytes: 4,
        phases: &[],
        instructions: SharedInstructions::SM90,
        lds: LdsInstructions::NONE,
        paired_f32: true,
        booleans_in_64_bit_words: true,
        joined_halves_in_64_bit_words: true,
        packed_byte_arithmetic: false,
    },
    Preset {
        name: "gfx942",
        vendor: Vendor::Amd,
        description: "AMD CDNA3 (MI300): 64-lane wavefronts, 32 LDS banks of 4 bytes, ds_read_b128 phases of lanes 0-3 with 20-23",
        threads_per_warp: 64,
        banks: 32,
        bank_bytes: 4,
        phases: GFX942_PHASES,
        instructions: SharedInstructions::CDNA3,
        lds: LdsInstructions {
            paired: true,
            transposed_read_bits: &[],
            transposed_read: TransposedRead::Cdna4,
            spelling: LdsSpelling::Gcn,
            byte_pairs_from_high_half: false,
            half_registers: false,
            restaged_reads_unpaired: false,
            phi_offsets_pair_by_register: true,
            work_item_id_bits: 10,
            folded_scan_stores: Some(FoldedScanStores::Apart),
            packed_scan_partials: Some(PackedScanPartials::PairedBf16Chunks {
                min_shuffle_steps: 2,
            }),
            packed_f32_scan_reads: true,
        },
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: false,
    },
    Preset {
        name: "gfx950",
        vendor: Vendor::Amd,
        description: "AMD CDNA4 (MI350): 64-lane wavefronts, 64 LDS banks of 4 bytes, measured ds_read_b128/b64 and ds_write_b64 phases",
        threads_per_warp: 64,
        banks: 64,
        bank_bytes: 4,
        phases: GFX950_PHASES,
        instructions: SharedInstructions::CDNA4,
        lds: LdsInstructions {
            paired: true,
            transposed_read_bits: &[16, 8, 4],
            transposed_read: TransposedRead::Cdna4,
            spelling: LdsSpelling::Gcn,
            byte_pairs_from_high_half: false,
            half_registers: false,
            restaged_reads_unpaired: false,
            phi_offsets_pair_by_register: true,
            work_item_id_bits: 10,
            folded_scan_stores: Some(FoldedScanStores::Apart),
            packed_scan_partials: Some(PackedScanPartials::PairedBf16Chunks {
                min_shuffle_steps: 2,
            }),
            packed_f32_scan_reads: true,
        },
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: false,
    },
    Preset {
        name: "gfx1250",
        vendor: Vendor::Amd,
        description: "AMD CDNA5 (gfx1250): 32-lane waves, 64 LDS banks of 4 bytes as Triton's swizzle counts them (phases assumed: as many lanes as fill the banks, not measured), GFX12 opcodes, ds_load_tr16_b128/ds_load_tr8_b64",
        threads_per_warp: 32,
        banks: 64,
        bank_bytes: 4,
        phases: &[],
        instructions: SharedInstructions::GFX1250,
        lds: LdsInstructions {
            paired: true,
            transposed_read_bits: &[16, 8],
            transposed_read: TransposedRead::Gfx1250,
            spelling: LdsSpelling::Gfx12,
            byte_pairs_from_high_half: true,
            half_registers: true,
            restaged_reads_unpaired: true,
            phi_offsets_pair_by_register: false,
            work_item_id_bits: 10,
            folded_scan_stores: Some(FoldedScanStores::WordsWithTheRest),
            packed_scan_partials: Some(PackedScanPartials::HalfRegisters {
                min_shuffle_steps: 1,
            }),
            packed_f32_scan_reads: false,
        },
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: true,
    },
];

pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// One of Triton's `ttg.target` values: the preset it means and the
/// shared memory one CTA may allocate on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TritonTarget {
    /// As a dump's module line writes it: `cuda:90`, `hip:gfx942`.
    pub target: &'static str,
    /// Shared memory is the same from sm75 to sm89 (ldmatrix, no
    /// stmatrix) and from sm90 on (both), so one preset stands for each
    /// group. `None`: layoutc knows the target's allocation facts but has
    /// no model of its banks and instructions.
    pub preset: Option<&'static str>,
    /// The opt-in maximum per block, in bytes (CUDA's
    /// `sharedMemPerBlockOptin`; the LDS size on AMD). A kernel above it
    /// does not launch.
    pub shared_memory_bytes: u64,
    /// The bytes of one physical partition of shared memory (0: not
    /// partitioned). Triton's allocator puts the pieces of a
    /// `#ttg.partitioned_shared` tensor in different partitions.
    pub shared_memory_partition_bytes: u64,
    /// How `arith.truncf` from f32 to f16 or bf16 comes out of LLVM: one
    /// value at a time, or two into one 32-bit register.
    pub half_conversion: HalfConversion,
    /// How a `tt.atomic_rmw fadd` of 16-bit floats moves its values.
    pub half_atomic_add: HalfAtomicAdd,
}

/// How a target's compiled kernels add 16-bit floats atomically
/// (`tt.atomic_rmw fadd`), as their PTX shows: what decides whether the
/// values going in and coming back live in 32-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfAtomicAdd {
    /// f16 two to a 32-bit word where the vector allows
    /// (`atom.add.noftz.f16x2`); bf16 one at a time through a 32-bit
    /// compare-and-swap loop (sm75 to sm89).
    PackedF16,
    /// Vectors of 16-bit registers (`atom.add.noftz.v2.f16`, `.v4.bf16`:
    /// sm90 on), and AMD's atomics: nothing moves in words.
    HalfRegisters,
}

/// How a target's compiled kernels convert f32 to f16 or bf16
/// (`arith.truncf`), as they show. Halves converted two to a register
/// live in 32-bit words: on NVIDIA LLVM stores them as words
/// (`st.shared.b32` for two, `.v2.b32` for four); on AMD a store of one
/// half at a time takes every second from the high half of a register
/// (`ds_write_b16_d16_hi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfConversion {
    /// One at a time (`cvt.rn.f16.f32`: sm75; gfx942).
    OneAtATime,
    /// Two at a time only where the two results go into one vector as
    /// they are, in the block that converts them (sm80: instruction
    /// selection pairs the `fptrunc`s of one `<2 x half>`,
    /// `cvt.rn.f16x2.f32`; the vectoriser does not, so halves that pass
    /// through arithmetic first are converted one at a time, and so are a
    /// loop's results, which LLVM converts in the loop's exit block).
    PairsWhenPackedDirectly,
    /// Two at a time, through 16-bit arithmetic too (the vectoriser pairs
    /// them: sm86 on; gfx950 and gfx1250, `v_cvt_pk_bf16_f32`).
    Pairs,
}

/// Every `ttg.target` layoutc models, one row each.
pub const TRITON_TARGETS: &[TritonTarget] = &[
    TritonTarget {
        target: "cuda:75",
        preset: Some("sm80"),
        shared_memory_bytes: 65536,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::OneAtATime,
        half_atomic_add: HalfAtomicAdd::PackedF16,
    },
    TritonTarget {
        target: "cuda:80",
        preset: Some("sm80"),
        shared_memory_bytes: 166912,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::PairsWhenPackedDirectly,
        half_atomic_add: HalfAtomicAdd::PackedF16,
    },
    TritonTarget {
        target: "cuda:86",
        preset: Some("sm80"),
        shared_memory_bytes: 101376,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::PackedF16,
    },
    TritonTarget {
        target: "cuda:87",
        preset: Some("sm80"),
        shared_memory_bytes: 166912,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::PackedF16,
    },
    TritonTarget {
        target: "cuda:89",
        preset: Some("sm80"),
        shared_memory_bytes: 101376,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::PackedF16,
    },
    TritonTarget {
        target: "cuda:90",
        preset: Some("sm90"),
        shared_memory_bytes: 232448,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "cuda:90a",
        preset: Some("sm90"),
        shared_memory_bytes: 232448,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "cuda:100",
        preset: Some("sm100"),
        shared_memory_bytes: 232448,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "cuda:100a",
        preset: Some("sm100"),
        shared_memory_bytes: 232448,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "cuda:103",
        preset: Some("sm100"),
        shared_memory_bytes: 232448,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "cuda:120",
        preset: Some("sm100"),
        shared_memory_bytes: 101376,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "hip:gfx942",
        preset: Some("gfx942"),
        shared_memory_bytes: 65536,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::OneAtATime,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    TritonTarget {
        target: "hip:gfx950",
        preset: Some("gfx950"),
        shared_memory_bytes: 163840,
        shared_memory_partition_bytes: 0,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
    // CDNA5: 320 KiB of LDS in five partitions of 64 KiB, 32-lane waves.
    TritonTarget {
        target: "hip:gfx1250",
        preset: Some("gfx1250"),
        shared_memory_bytes: 327680,
        shared_memory_partition_bytes: 65536,
        half_conversion: HalfConversion::Pairs,
        half_atomic_add: HalfAtomicAdd::HalfRegisters,
    },
];

/// The row of a `ttg.target` string.
pub fn triton_target(target: &str) -> Option<&'static TritonTarget> {
    TRITON_TARGETS.iter().find(|t| t.target == target)
}

/// The shared-memory limit of a `ttg.target` string.
pub fn shared_memory_limit(target: &str) -> Option<u64> {
    triton_target(target).map(|t| t.shared_memory_bytes)
}

/// The preset of a `ttg.target` string (`"cuda:90"`, `"hip:gfx942"`).
pub fn preset_for_triton_target(target: &str) -> Option<&'static Preset> {
    preset(triton_target(target)?.preset?)
}

/// How a `ttg.target` converts f32 to 16-bit floats
/// ([`TritonTarget::half_conversion`]; one at a time where unknown).
pub fn half_conversion(target: &str) -> HalfConversion {
    triton_target(target).map_or(HalfConversion::OneAtATime, |t| t.half_conversion)
}

/// Whether LLVM's SLP vectoriser works on a `ttg.target`'s kernels: it
/// pairs 16-bit conversions (`HalfConversion::Pairs`: sm86 on, gfx950,
/// gfx1250) and, from a vector store, takes the scalar selects feeding it
/// whole (`select <4 x i1>`), as the compiled kernels show; on sm80 it
/// does neither.
pub fn vectorises(target: &str) -> bool {
    half_conversion(target) == HalfConversion::Pairs
}

/// How many bits of 8-bit floats one of Triton's NVIDIA conversions to a
/// 16-bit float (`tt.fp_to_fp`, MLIR element types such as `f8E4M3FN` to
/// `bf16`) takes in a register: 16, two at a time (`cvt.rn.f16x2.e4m3x2`),
/// or 32, four at a time through `prmt` (e5m2 before sm89, and e5m2 to
/// bf16 everywhere: there is no `cvt` from e5m2 to bf16). `None` for
/// another conversion or target.
pub fn fp8_upcast_register_bits(target: &str, from: &str, to: &str) -> Option<u32> {
    let capability: u32 = target.strip_prefix("cuda:")?.parse().ok()?;
    let e5m2 = from.starts_with("f8E5M2");
    let e4m3 = from.starts_with("f8E4M3");
    match to {
        "f16" if e4m3 || e5m2 && capability >= 89 => Some(16),
        "f16" if e5m2 => Some(32),
        "bf16" if e4m3 => Some(16),
        "bf16" if e5m2 => Some(32),
        _ => None,
    }
}

/// How many bits of 8-bit floats one of Triton's conversions from a wider
/// float (`tt.fp_to_fp` to an MLIR element type such as `f8E5M2`) gives in
/// a register: on NVIDIA 16, two at a time
/// (`cvt.rn.satfinite.e5m2x2.f32`), or 32, four at a time through `prmt`
/// (e5m2 before sm89, and e5m2 rounded toward zero); on gfx950 32, OCP
/// fp8 converted two at a time into either half of a 32-bit register
/// (`v_cvt_scalef32_pk_fp8_f32`), four to a register in register order, as
/// its AMDGCN stores them (every fourth byte `ds_write_b8_d16_hi`). `None`
/// for another conversion or target.
pub fn fp8_narrowing_register_bits(target: &str, to: &str, toward_zero: bool) -> Option<u32> {
    if target == "hip:gfx950" {
        let ocp = matches!(to, "f8E4M3FN" | "f8E5M2");
        return (ocp && !toward_zero).then_some(32);
    }
    let capability: u32 = target.strip_prefix("cuda:")?.parse().ok()?;
    if to.starts_with("f8E4M3") {
        Some(16)
    } else if to.starts_with("f8E5M2") {
        Some(if capability >= 89 && !toward_zero {
            16
        } else {
            32
        })
    } else {
        None
    }
}

/// How a `ttg.target` adds 16-bit floats atomically
/// ([`TritonTarget::half_atomic_add`]; in 16-bit registers where unknown).
pub fn half_atomic_add(target: &str) -> HalfAtomicAdd {
    triton_target(target).map_or(HalfAtomicAdd::HalfRegisters, |t| t.half_atomic_add)
}

/// The bytes of one physical partition of shared memory on a `ttg.target`
/// (0 where it is not partitioned, or the target is unknown).
pub fn shared_memory_partition_bytes(target: &str) -> u64 {
    triton_target(target).map_or(0, |t| t.shared_memory_partition_bytes)
}

/// A machine as the bank model and the choice of instructions see it:
/// one of the presets, or what a file states about its machine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Machine {
    /// The preset's name (`sm90`, `gfx942`), for messages.
    pub name: String,
    pub vendor: Vendor,
    pub banks: BankTarget,
    pub matrix: SharedInstructions,
    pub lds: LdsInstructions,
    /// Arithmetic on pairs of f32 ([`Preset::paired_f32`]).
    pub paired_f32: bool,
    /// [`Preset::booleans_in_64_bit_words`].
    pub booleans_in_64_bit_words: bool,
    /// [`Preset::joined_halves_in_64_bit_words`].
    pub joined_halves_in_64_bit_words: bool,
    /// [`Preset::packed_byte_arithmetic`].
    pub packed_byte_arithmetic: bool,
}

impl Machine {
    /// Whether LLVM merges the element-by-element global loads Triton emits
    /// for pointers it cannot prove aligned into vector loads, when the
    /// pointers are contiguous: AMD's global memory takes unaligned dword
    /// accesses, so its load-store vectorizer needs no alignment (a 16-byte
    /// row of bytes from an argument without `tt.divisibility` is one
    /// `global_load_dwordx4` on gfx942, 16 `ld.global.b8` on sm90). The
    /// elements then sit packed in 32-bit registers, as after an aligned
    /// vector load.
    pub fn merges_unaligned_global_loads(&self) -> bool {
        self.vendor == Vendor::Amd
    }

    /// `instruction` as this machine's assembly spells it, moving elements
    /// of `element_bits` in `direction`.
    pub fn mnemonic(
        &self,
        instruction: crate::bank::Instruction,
        direction: Direction,
        element_bits: u32,
    ) -> crate::bank::Mnemonic {
        instruction
            .mnemonic(direction, self.vendor, element_bits)
            .spelled(self.lds.spelling)
    }

    pub fn from_preset(preset: &Preset) -> Machine {
        Machine {
            name: preset.name.to_string(),
            vendor: preset.vendor,
            banks: BankTarget {
                banks: preset.banks,
                bank_bytes: preset.bank_bytes,
                warp_size: preset.threads_per_warp,
                phases: preset.phase_rules(),
                wide_loads_merge_phases: preset.vendor == Vendor::Nvidia,
            },
            matrix: preset.instructions,
            lds: preset.lds,
            paired_f32: preset.paired_f32,
            booleans_in_64_bit_words: preset.booleans_in_64_bit_words,
            joined_halves_in_64_bit_words: preset.joined_halves_in_64_bit_words,
            packed_byte_arithmetic: preset.packed_byte_arithmetic,
        }
    }
}

impl Preset {
    /// Its phase rules as the bank model takes them.
    pub fn phase_rules(&self) -> Vec<PhaseRule> {
        self.phases
            .iter()
            .map(|r| {
                let rule = PhaseRule::from_lanes(r.bits, Some(r.direction), r.lanes)
                    .expect("preset phases are subspaces (a test checks every preset)");
                PhaseRule {
                    banks: r.banks,
                    ..rule
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_phase_rules_that_are_subspaces() {
        for p in PRESETS {
            let rules = p.phase_rules();
            assert_eq!(rules.len(), p.phases.len(), "{}", p.name);
        }
    }

    /// A `ttg.target` is one row: its preset exists and is of the
    /// target's vendor (`cuda:` NVIDIA, `hip:` AMD), and no target is
    /// listed twice.
    #[test]
    fn every_triton_target_is_one_row_with_a_preset_of_its_vendor() {
        for (i, t) in TRITON_TARGETS.iter().enumerate() {
            let vendor = if t.target.starts_with("hip:") {
                Vendor::Amd
            } else {
                Vendor::Nvidia
            };
            if let Some(name) = t.preset {
                let p = preset(name).unwrap_or_else(|| panic!("{}: no preset {name}", t.target));
                assert_eq!(p.vendor, vendor, "{}", t.target);
            }
            assert!(t.shared_memory_bytes >= 48 * 1024, "{}", t.target);
            assert!(
                TRITON_TARGETS[..i].iter().all(|u| u.target != t.target),
                "{} twice",
                t.target
            );
        }
        assert_eq!(shared_memory_limit("cuda:80"), Some(166912));
        assert_eq!(
            preset_for_triton_target("hip:gfx950").map(|p| p.name),
            Some("gfx950")
        );
        assert_eq!(triton_target("cuda:61"), None);
        assert_eq!(shared_memory_partition_bytes("hip:gfx1250"), 65536);
        assert_eq!(shared_memory_partition_bytes("hip:gfx950"), 0);
        // gfx1250: 32-lane waves, the 64 banks Triton's swizzle counts
        // (`TargetInfo::getSharedMemoryBanks`), GFX12's opcodes.
        let cdna5 = preset_for_triton_target("hip:gfx1250").unwrap();
        assert_eq!((cdna5.threads_per_warp, cdna5.banks), (32, 64));
        assert_eq!(cdna5.lds.spelling, LdsSpelling::Gfx12);
        assert_eq!(cdna5.lds.transposed_read, TransposedRead::Gfx1250);
    }
}
