//! Arbitrary (mostly invalid) encoding parameters give a layout or an error,
//! never a panic.

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, TransposedRead, bank_conflicts, paired_instruction,
    transposed_read_applies, wavefronts_by_rank,
};
use layout_algebra::triton::*;
use proptest::prelude::*;

fn small() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        Just(3),
        Just(4),
        Just(8),
        Just(16),
        Just(32),
        Just(64),
        Just(1 << 20)
    ]
}

fn dims(rank: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(small(), rank)
}

fn order(rank: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, rank)
}

fn cga(rank: usize) -> impl Strategy<Value = CgaLayout> {
    prop_oneof![
        Just(CgaLayout::single(rank)),
        (dims(rank), dims(rank), order(rank))
            .prop_map(move |(a, b, o)| CgaLayout::from_split(&a, &b, &o)
                .unwrap_or(CgaLayout::single(rank))),
    ]
}

fn encoding() -> impl Strategy<Value = Encoding> {
    let leaf = (1usize..4).prop_flat_map(|rank| {
        prop_oneof![
            (dims(rank), dims(rank), dims(rank), order(rank), cga(rank)).prop_map(
                |(s, t, w, o, c)| {
                    Encoding::Blocked(Blocked {
                        size_per_thread: s,
                        threads_per_warp: t,
                        warps_per_cta: w,
                        order: o,
                        cga: c,
                    })
                }
            ),
            (small(), small(), small(), order(rank), cga(rank)).prop_map(|(v, p, m, o, c)| {
                Encoding::SwizzledShared(SwizzledShared {
                    vec: v,
                    per_phase: p,
                    max_phase: m,
                    order: o,
                    cga: c,
                })
            }),
            (small(), any::<bool>(), small(), any::<bool>(), cga(rank)).prop_map(
                |(w, t, e, f, c)| {
                    Encoding::NvmmaShared(NvmmaShared {
                        swizzling_byte_width: w,
                        transposed: t,
                        element_bit_width: e,
                        fp4_padded: f,
                        cga: c,
                    })
                }
            ),
            (0u32..5, dims(rank), dims(3), cga(rank)).prop_map(|(v, w, i, c)| {
                Encoding::NvidiaMma(NvidiaMma {
                    version_major: v,
                    version_minor: 0,
                    warps_per_cta: w,
                    instr_shape: i,
                    cga: c,
                })
            }),
            (
                0u32..6,
                dims(rank),
                dims(3),
                any::<bool>(),
                dims(rank),
                small(),
                cga(rank)
            )
                .prop_map(|(v, w, i, t, tp, e, c)| {
                    Encoding::AmdMfma(AmdMfma {
                        version: v,
                        warps_per_cta: w,
                        instr_shape: i,
                        is_transposed: t,
                        tiles_per_warp: tp,
                        element_bit_width: e,
                        cga: c,
                    })
                }),
            (0u32..5, any::<bool>(), dims(rank), dims(3), cga(rank)).prop_map(|(v, t, w, i, c)| {
                Encoding::AmdWmma(AmdWmma {
                    version: v,
                    is_transposed: t,
                    warps_per_cta: w,
                    cta_tiles: None,
                    instr_shape: i,
                    cga: c,
                })
            }),
        ]
    });
    leaf.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (0usize..4, inner.clone())
                .prop_map(|(dim, parent)| Encoding::Slice(Box::new(Slice { dim, parent }))),
            (0u32..3, small(), inner).prop_map(|(op_idx, k_width, parent)| {
                Encoding::DotOperand(Box::new(DotOperand {
                    op_idx,
                    k_width,
                    parent,
                }))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encodings_never_panic(enc in encoding(), shape in prop::collection::vec(small(), 0..4)) {
        let _ = enc.to_linear_layout(&shape);
        let _ = enc.validate_for(&Target::default());
    }

    #[test]
    fn bank_model_never_panics(
        a in encoding(), b in encoding(), shape in prop::collection::vec(small(), 1..3),
        bits in small(), inst_bits in small(), banks in small(), count in small(), trans in any::<bool>(),
    ) {
        if let (Ok(d), Ok(s)) = (a.to_linear_layout(&shape), b.to_linear_layout(&shape)) {
            let target = BankTarget { banks, ..BankTarget::nvidia() };
            let _ = bank_conflicts(&d, &s, bits, &target);
            for instruction in [
                Instruction::LdSt { bits: inst_bits },
                Instruction::Matrix { count, trans },
                Instruction::Paired { bits: inst_bits, st64: trans },
                Instruction::ReadTransposed { element_bits: bits, generation: TransposedRead::Cdna4 },
                Instruction::ReadTransposed { element_bits: bits, generation: TransposedRead::Gfx1250 },
            ] {
                let access = Access { distributed: &d, shared: &s, element_bits: bits, instruction, direction: Direction::Load };
                let _ = wavefronts_by_rank(&access, &target);
                let _ = paired_instruction(&access, &[]);
            }
            for generation in [TransposedRead::Cdna4, TransposedRead::Gfx1250] {
                let _ = transposed_read_applies(&d, &s, bits, generation, Some(inst_bits as u64));
            }
        }
    }
}
