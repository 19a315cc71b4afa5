//! AMD's LDS instructions beyond one address per lane, with numbers derived
//! by hand: the paired `ds_read2*`/`ds_write2*` the compiler forms from two
//! requests of one lane, and gfx950's transposing `ds_read_b64_tr_b16`.
//! Every count is also the enumeration oracle's and the trace's.

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, OffsetSplit, PairCounts, PhaseRule, TransposedRead,
    padded_wavefronts_by_enumeration, pair_counts, pair_counts_split, paired_instruction, trace,
    transposed_read_applies, transposed_read_layout, wavefronts_by_rank,
};
use layout_algebra::machine::Vendor;
use layout_algebra::{DimName, LinearLayout};

fn layout(ins: Vec<(&str, Vec<[i64; 2]>)>, outs: [(&str, i64); 2]) -> LinearLayout {
    LinearLayout::from_bases_with_sizes(
        ins.into_iter()
            .map(|(n, b)| (n.to_string(), b.into_iter().map(|v| v.to_vec()).collect()))
            .collect(),
        outs.iter().map(|(n, s)| (DimName::from(*n), *s)).collect(),
        false,
    )
    .unwrap()
}

/// A row-major shared layout of `rows x cols`: offset = row * cols + col.
fn row_major(rows: i64, cols: i64) -> LinearLayout {
    let mut offsets = Vec::new();
    for b in 0..cols.trailing_zeros() {
        offsets.push([0, 1 << b]);
    }
    for b in 0..rows.trailing_zeros() {
        offsets.push([1 << b, 0]);
    }
    layout(vec![("offset", offsets)], [("dim0", rows), ("dim1", cols)])
}

/// gfx942: 64 lanes, 32 banks; no measured rule for 64-bit reads, so a
/// phase is the 16 lanes that fill one 128-byte line.
fn gfx942() -> BankTarget {
    BankTarget {
        warp_size: 64,
        wide_loads_merge_phases: false,
        ..BankTarget::nvidia()
    }
}

/// gfx950: 64 banks; ds_read_b64 serves lanes 0-31 together (measured).
fn gfx950() -> BankTarget {
    BankTarget {
        banks: 64,
        bank_bytes: 4,
        warp_size: 64,
        phases: vec![
            PhaseRule::from_lanes(64, Some(Direction::Load), &(0..32).collect::<Vec<_>>()).unwrap(),
        ],
        wide_loads_merge_phases: false,
    }
}

/// Every count of one access three ways: the rank formula, the enumeration
/// oracle and the trace the pictures draw.
fn counted(access: &Access, target: &BankTarget) -> (u64, u64, u64) {
    let rank = wavefronts_by_rank(access, target).unwrap();
    let oracle = padded_wavefronts_by_enumeration(access, target, &[]).unwrap();
    let t = trace(access, target, &[]).unwrap();
    assert_eq!(rank, oracle);
    assert_eq!(t.wavefronts(), oracle.wavefronts);
    let instructions = t.phases.iter().map(|p| p.instruction).max().unwrap() + 1;
    assert_eq!(instructions, oracle.instructions);
    (oracle.instructions, oracle.wavefronts, oracle.ideal)
}

/// 64 lanes of f32 pairs: lanes walk dim1 two elements at a time (32
/// lanes, 64 columns), lane 32 steps one row; one register more steps
/// `step` (a row offset the lanes never touch).
fn two_requests_per_lane(rows: i64, cols: i64, step: [i64; 2]) -> LinearLayout {
    layout(
        vec![
            ("register", vec![[0, 1], step]),
            (
                "lane",
                vec![[0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0]],
            ),
        ],
        [("dim0", rows), ("dim1", cols)],
    )
}

#[test]
fn two_requests_512_bytes_apart_pair_into_one_ds_read2st64_b64() {
    // Row + 2 of 64 f32 columns: 128 elements = 512 bytes = 64 widths of 8
    // bytes. Both offsets (0 and 64 widths) are multiples of 64 widths:
    // LLVM encodes them as st64 offsets 0 and 1.
    let dist = two_requests_per_lane(4, 64, [2, 0]);
    let shared = row_major(4, 64);
    let plain = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 32,
        instruction: Instruction::LdSt { bits: 64 },
        direction: Direction::Load,
    };
    let paired = paired_instruction(&plain, &[]).unwrap();
    assert_eq!(
        paired,
        Some(Instruction::Paired {
            bits: 64,
            st64: true
        })
    );
    assert_eq!(
        paired
            .unwrap()
            .mnemonic(Direction::Load, Vendor::Amd, 16)
            .to_string(),
        "ds_read2st64_b64"
    );
    // Each half is a ds_read_b64: 64 lanes x 8 bytes in 4 phases of 16
    // lanes reading one contiguous 128-byte line: 4 wavefronts, no
    // conflict. Two halves, one instruction.
    assert_eq!(counted(&plain, &gfx942()), (2, 8, 8));
    let access = Access {
        instruction: paired.unwrap(),
        ..plain
    };
    assert_eq!(counted(&access, &gfx942()), (1, 8, 8));
}

#[test]
fn two_requests_256_bytes_apart_pair_into_one_ds_write2_b64() {
    // Column + 64 of 128 f32 columns: 256 bytes = 32 widths, below 256
    // and not a multiple of 64: the plain encoding, offsets 0 and 32.
    let dist = two_requests_per_lane(2, 128, [0, 64]);
    let shared = row_major(2, 128);
    let plain = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 32,
        instruction: Instruction::LdSt { bits: 64 },
        direction: Direction::Store,
    };
    let paired = paired_instruction(&plain, &[]).unwrap().unwrap();
    assert_eq!(
        paired
            .mnemonic(Direction::Store, Vendor::Amd, 16)
            .to_string(),
        "ds_write2_b64"
    );
    let access = Access {
        instruction: paired,
        ..plain
    };
    // Lane 32 (row 1) is 512 bytes after lane 0: the 16 lanes of a phase
    // still read one 128-byte line. 2 halves x 4 phases, conflict-free.
    assert_eq!(counted(&access, &gfx942()), (1, 8, 8));
}

#[test]
fn stores_of_another_base_between_two_keep_them_apart() {
    // gfx942's B operand of an f32 dot with `input_precision="ieee"`
    // (compiled by Triton 3.9): `amdg.in_thread_transpose` gives this
    // 32x64 layout and the operand is stored to
    // `#ttg.amd_rotating_shared<{vec = 1, perPhase = 1, maxPhase = 16,
    // order = [0, 1]}>` (a row's phase is `r ^ (r / 16)`, mod 16).
    let dist = layout(
        vec![
            ("register", vec![[1, 0], [0, 1], [0, 2]]),
            (
                "lane",
                vec![[0, 4], [0, 8], [0, 16], [0, 32], [2, 0], [4, 0]],
            ),
            ("warp", vec![[8, 0], [16, 0]]),
        ],
        [("dim0", 32), ("dim1", 64)],
    );
    let rows = [[1, 1], [2, 2], [4, 4], [8, 8], [1, 16], [2, 32]];
    let shared = layout(
        vec![(
            "offset",
            [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
                .into_iter()
                .chain(rows)
                .collect(),
        )],
        [("dim0", 32), ("dim1", 64)],
    );
    let store = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 32,
        instruction: Instruction::Paired {
            bits: 32,
            st64: false,
        },
        direction: Direction::Store,
    };
    // Registers 0..7 land at the lane's base XOR 0, 1, 33, 32, 66, 67, 99,
    // 98: bits 0 and 1 are the lanes' too (their rows' phases), so four
    // bases, each with two requests 32 words apart. Requests 1 and 2 are
    // issued one after the other and pair; 0 and 3 have 1 and 2 (stores
    // LLVM cannot tell apart from them) between them, and stay single, as
    // 4 and 7 do around 5 and 6. The kernel: 2 x ds_write2_b32 and
    // 4 x ds_write_b32.
    assert_eq!(
        pair_counts(&store, &[]).unwrap(),
        Some(PairCounts {
            st64: 0,
            plain: 2,
            single: 4
        })
    );
    // Loads pass loads: the same requests read pair all four.
    let load = Access {
        direction: Direction::Load,
        ..store
    };
    assert_eq!(
        pair_counts(&load, &[]).unwrap(),
        Some(PairCounts {
            st64: 0,
            plain: 4,
            single: 0
        })
    );
}

#[test]
fn a_register_swizzled_into_the_lanes_bits_stays_a_single_read() {
    // Row + 2 XOR column 2 (a swizzle): the constant's column bit is one
    // the lanes set, so the two requests have different base registers.
    let dist = two_requests_per_lane(4, 64, [2, 2]);
    let shared = row_major(4, 64);
    let access = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 32,
        instruction: Instruction::LdSt { bits: 64 },
        direction: Direction::Load,
    };
    assert_eq!(paired_instruction(&access, &[]).unwrap(), None);
    // Naming the pair anyway is an error that says why.
    let named = Access {
        instruction: Instruction::Paired {
            bits: 64,
            st64: true,
        },
        ..access
    };
    let err = wavefronts_by_rank(&named, &gfx942())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ds_read2st64_b64 needs two 64-bit requests"),
        "{err}"
    );
}

/// A 16-bit B operand, K = dim0 (16) x N = dim1 (64), in one 64-lane warp:
/// registers hold 4 consecutive K elements (and two more K steps), the 64
/// lanes walk N. Shared memory stores N contiguously (offset = k*64 + n).
fn b_operand() -> (LinearLayout, LinearLayout) {
    let dist = layout(
        vec![
            ("register", vec![[1, 0], [2, 0], [4, 0], [8, 0]]),
            (
                "lane",
                vec![[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
            ),
        ],
        [("dim0", 16), ("dim1", 64)],
    );
    (dist, row_major(16, 64))
}

#[test]
fn a_transposing_read_rotates_four_lanes_into_the_registers() {
    let (dist, shared) = b_operand();
    // Registers take lane bases 0-1 (N 1, 2); lanes take lane bases 2-3
    // (N 4, 8), then the two rotated register bases (K 1, 2).
    let rotated = transposed_read_layout(&dist, 16, TransposedRead::Cdna4).unwrap();
    let expected = layout(
        vec![
            ("register", vec![[0, 1], [0, 2], [4, 0], [8, 0]]),
            (
                "lane",
                vec![[0, 4], [0, 8], [1, 0], [2, 0], [0, 16], [0, 32]],
            ),
        ],
        [("dim0", 16), ("dim1", 64)],
    );
    assert_eq!(rotated, expected);
    assert!(transposed_read_applies(
        &dist,
        &shared,
        16,
        TransposedRead::Cdna4,
        None
    ));
    // K contiguous in shared memory: an ordinary read already holds K.
    let k_major = layout(
        vec![(
            "offset",
            vec![
                [1, 0],
                [2, 0],
                [4, 0],
                [8, 0],
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 8],
                [0, 16],
                [0, 32],
            ],
        )],
        [("dim0", 16), ("dim1", 64)],
    );
    assert!(!transposed_read_applies(
        &dist,
        &k_major,
        16,
        TransposedRead::Cdna4,
        None
    ));
    // Padding every 2 elements leaves no 64-bit vector.
    assert!(!transposed_read_applies(
        &dist,
        &shared,
        16,
        TransposedRead::Cdna4,
        Some(2)
    ));
}

#[test]
fn a_transposing_read_of_a_16_bit_operand_counts_its_64_bit_addresses() {
    let (dist, shared) = b_operand();
    let access = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 16,
        instruction: Instruction::ReadTransposed {
            element_bits: 16,
            generation: TransposedRead::Cdna4,
        },
        direction: Direction::Load,
    };
    assert_eq!(
        access
            .instruction
            .mnemonic(Direction::Load, Vendor::Amd, 16)
            .to_string(),
        "ds_read_b64_tr_b16"
    );
    // 16 elements per lane, 4 per read: 4 instructions. Lanes 0-31 (one
    // phase) start at words 2*l0 + 4*l1 + 32*l2 + 64*l3 + 8*l4 (elements
    // 4, 8, 64, 128, 16) and read two words each: words 0-15, 32-47,
    // 64-79 and 96-111, so banks 0-15 and 32-47 each serve 2 words.
    // 4 instructions x 2 phases x 2 wavefronts; ideal 8.
    assert_eq!(counted(&access, &gfx950()), (4, 16, 8));
}

#[test]
fn a_transposing_read_needs_its_element_width_and_a_load() {
    let (dist, shared) = b_operand();
    let access = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 16,
        instruction: Instruction::ReadTransposed {
            element_bits: 8,
            generation: TransposedRead::Cdna4,
        },
        direction: Direction::Load,
    };
    let err = wavefronts_by_rank(&access, &gfx950())
        .unwrap_err()
        .to_string();
    assert!(err.contains("reads 8-bit elements, not 16-bit"), "{err}");
    let store = Access {
        instruction: Instruction::ReadTransposed {
            element_bits: 16,
            generation: TransposedRead::Cdna4,
        },
        direction: Direction::Store,
        ..access
    };
    let err = wavefronts_by_rank(&store, &gfx950())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no transposing LDS write"), "{err}");
}

#[test]
fn a_register_offset_with_lane_and_free_bits_splits_only_where_known_bits_reach() {
    // 64-bit elements of a 16 x 64 row-major buffer. The lanes set offset
    // bits 0-7 (their bases: 1, 66, 132, 8, 16, 32 elements); the registers
    // move by 2, 4 and 516 = 512 + 4 elements: two bits the lanes set, and
    // one register with a lane bit and a bit no lane sets (a swizzled
    // operand's next block of columns, as in gfx942's pipelined matmuls).
    let dist = layout(
        vec![
            ("register", vec![[0, 2], [0, 4], [8, 4]]),
            (
                "lane",
                vec![[0, 1], [1, 2], [2, 4], [0, 8], [0, 16], [0, 32]],
            ),
        ],
        [("dim0", 16), ("dim1", 64)],
    );
    let shared = row_major(16, 64);
    let access = Access {
        distributed: &dist,
        shared: &shared,
        element_bits: 64,
        instruction: Instruction::Paired {
            bits: 64,
            st64: true,
        },
        direction: Direction::Load,
    };
    // Four paired instructions a lane, as the rank formula, the enumeration
    // and the trace count them alike.
    assert_eq!(counted(&access, &gfx942()).0, 4);
    // Where known-bits analysis sees the lanes' part, bit 9 (512 elements,
    // 4096 bytes: 8 x 64 widths) of every constant adds: four bases, each
    // with a pair 4096 bytes apart (`ds_read2st64_b64 ... offset1:8`).
    assert_eq!(
        pair_counts_split(&access, &[], OffsetSplit::KnownBits).unwrap(),
        Some(PairCounts {
            st64: 4,
            plain: 0,
            single: 0
        })
    );
    assert_eq!(
        pair_counts(&access, &[]).unwrap(),
        pair_counts_split(&access, &[], OffsetSplit::KnownBits).unwrap()
    );
    // Through a phi only whole registers add: 4 ^ 516 = 512 has no lane
    // bit (an `or`) and pairs with the base, the other six constants stay
    // one `xor` each (the AMDGCN of matmul_fp16_gfx942's drained stages:
    // one ds_read2st64_b64 and six ds_read_b64 per B operand).
    assert_eq!(
        pair_counts_split(&access, &[], OffsetSplit::WholeRegisters).unwrap(),
        Some(PairCounts {
            st64: 1,
            plain: 0,
            single: 6
        })
    );
}
