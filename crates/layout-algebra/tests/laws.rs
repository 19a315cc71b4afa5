//! Algebra laws, checked on random layouts (proptest), each against a second,
//! independent computation.

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, PhaseRule, wavefronts_by_enumeration,
    wavefronts_by_rank,
};
use layout_algebra::triton::{Blocked, CgaLayout, SwizzledShared};
use layout_algebra::{DimName, LinearLayout};
use proptest::prelude::*;

/// A random layout with in-dims from `ins` and out-dims from `outs` (each
/// present or not, in the listed order), bases anywhere in range.
fn layout(
    ins: &'static [&'static str],
    outs: &'static [&'static str],
) -> impl Strategy<Value = LinearLayout> {
    let out_sizes = prop::collection::vec(0u32..3, outs.len());
    let in_sizes = prop::collection::vec(0usize..3, ins.len());
    (out_sizes, in_sizes, any::<u64>()).prop_map(move |(out_log2, in_bits, seed)| {
        let mut rng = seed;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let out_dims: Vec<(DimName, i64)> = outs
            .iter()
            .zip(&out_log2)
            .map(|(n, &l)| (DimName::from(*n), 1i64 << l))
            .collect();
        let bases = ins
            .iter()
            .zip(&in_bits)
            .map(|(n, &k)| {
                let b: Vec<Vec<i64>> = (0..k)
                    .map(|_| {
                        out_log2
                            .iter()
                            .map(|&l| (next() % (1u64 << l)) as i64)
                            .collect()
                    })
                    .collect();
                (*n, b)
            })
            .collect();
        LinearLayout::from_bases_with_sizes(bases, out_dims, false).unwrap()
    })
}

/// All outputs of a layout, by enumerating every input.
fn table(l: &LinearLayout) -> Vec<u64> {
    (0..l.total_in_size()).map(|x| l.apply_flat(x)).collect()
}

proptest! {
    #[test]
    fn product_is_associative(
        a in layout(&["i", "j"], &["o", "p"]),
        b in layout(&["i", "j"], &["o", "p"]),
        c in layout(&["i", "j"], &["o", "p"]),
    ) {
        let left = a.product(&b).unwrap().product(&c).unwrap();
        let right = a.product(&b.product(&c).unwrap()).unwrap();
        prop_assert_eq!(left, right);
    }

    /// compose(invert(L), L) = identity: L after its inverse is the identity
    /// on L's outputs, checked point by point.
    #[test]
    fn invert_then_compose_is_the_identity(perm in Just(()).prop_perturb(|_, mut rng| {
        // A random invertible layout: a random invertible bit matrix.
        let n = 1 + (rng.next_u32() % 6) as usize;
        loop {
            let cols: Vec<i64> = (0..n).map(|_| (rng.next_u64() % (1 << n)) as i64).collect();
            let l = LinearLayout::from_bases_with_sizes(
                vec![("in", cols.iter().map(|&c| vec![c]).collect())],
                vec![(DimName::from("out"), 1 << n)],
                false,
            ).unwrap();
            if l.is_invertible() { return l; }
        }
    })) {
        let inv = perm.invert().unwrap();
        let round = inv.compose(&perm).unwrap();
        for y in 0..perm.total_out_size() {
            prop_assert_eq!(round.apply_flat(y), y);
        }
    }

    /// C = B.invert_and_compose(A) satisfies A(C(x)) = B(x) for every x, and
    /// when A is a bijection C is the unique preimage found by search.
    #[test]
    fn invert_and_compose_agrees_with_brute_force(
        a in layout(&["a", "b"], &["o", "p"]),
        b in layout(&["r", "s"], &["o", "p"]),
    ) {
        prop_assume!(a.is_surjective());
        // Give B the same out sizes as A (it must fit inside A's outputs).
        let b = LinearLayout::from_bases_with_sizes(
            b.bases().into_iter().map(|(n, v)| {
                let fitted = v.into_iter().map(|c| {
                    c.iter().zip(a.out_dims()).map(|(&x, (_, s))| (x as u64 % s) as i64).collect()
                }).collect();
                (n, fitted)
            }).collect(),
            a.out_dims().into_iter().map(|(n, s)| (n, s as i64)).collect(),
            false,
        ).unwrap();
        let c = b.invert_and_compose(&a).unwrap();
        let a_table = table(&a);
        for x in 0..b.total_in_size() {
            let cx = c.apply_flat(x);
            prop_assert_eq!(a_table[cx as usize], b.apply_flat(x));
            if a.is_invertible() {
                let found = a_table.iter().position(|&y| y == b.apply_flat(x)).unwrap() as u64;
                prop_assert_eq!(cx, found);
            }
        }
    }

    /// The two wavefront computations agree on random blocked stores into
    /// random swizzled buffers.
    #[test]
    fn wavefronts_by_enumeration_and_by_rank_agree(
        spt in (0u32..3, 0u32..3),
        tpw_row_log2 in 0u32..6,
        order_flip in any::<bool>(),
        (vec, per_phase, max_phase) in (0u32..4, 0u32..3, 0u32..4),
        bits_log2 in 3u32..6,
        access_log2 in 0u32..3,
    ) {
        let dist = random_blocked(spt, tpw_row_log2, order_flip, 64);
        let smem = SwizzledShared {
            vec: 1 << vec, per_phase: 1 << per_phase, max_phase: 1 << max_phase,
            order: vec![1, 0], cga: CgaLayout::single(2),
        }.to_linear_layout(&[64, 64]).unwrap();
        let bits = 1 << bits_log2;
        let access = Access {
            distributed: &dist, shared: &smem, element_bits: bits,
            instruction: Instruction::LdSt { bits: (bits << access_log2).min(128) },
            direction: Direction::Store,
        };
        let target = BankTarget::nvidia();
        let rank = wavefronts_by_rank(&access, &target);
        let enumeration = wavefronts_by_enumeration(&access, &target);
        match (rank, enumeration) {
            (Ok(r), Ok(e)) => prop_assert_eq!(r, e),
            (Err(_), Err(_)) => {} // not vectorisable this way: both refuse
            (r, e) => prop_assert!(false, "rank {:?} vs enumeration {:?}", r, e),
        }
    }
}

proptest! {
    /// The worst warp of a padded buffer, counted two ways: by tabulating
    /// the shared layout and applying the distributed one to each warp's
    /// (register, lane), and by XOR-ing the packed bases of the access's
    /// geometry under the buffer's offset map. Padding makes each warp's
    /// addresses differ, so both walk every warp.
    #[test]
    fn padded_worst_warps_agree_both_ways(
        spt in (0u32..3, 0u32..3),
        tpw_row_log2 in 0u32..6,
        order_flip in any::<bool>(),
        interval_log2 in 2u32..9,
        pad_log2 in 0u32..4,
        bits_log2 in 3u32..6,
    ) {
        use layout_algebra::bank::{AccessGeometry, OffsetMap, padded_wavefronts_by_enumeration};
        let dist = random_blocked(spt, tpw_row_log2, order_flip, 32);
        let smem = SwizzledShared {
            vec: 1, per_phase: 1, max_phase: 1, order: vec![1, 0], cga: CgaLayout::single(2),
        }.to_linear_layout(&[32, 32]).unwrap();
        let bits = 1 << bits_log2;
        let padding = [(1u32 << interval_log2, 1u32 << pad_log2)];
        let instruction = Instruction::LdSt { bits };
        let access = Access {
            distributed: &dist, shared: &smem, element_bits: bits, instruction,
            direction: Direction::Store,
        };
        let target = BankTarget::nvidia();
        let tabulated = padded_wavefronts_by_enumeration(&access, &target, &padding).unwrap();
        let geometry = AccessGeometry::new(&dist, bits).unwrap();
        let map = OffsetMap::from_shared(&smem, &geometry.tensor).unwrap();
        let packed = geometry
            .wavefronts_by_enumeration(&map, instruction, Direction::Store, &target, &padding)
            .unwrap();
        prop_assert_eq!(tabulated, packed);
    }
}

/// A 4-warp blocked layout of a `size` x `size` tensor from a test's draws.
fn random_blocked(spt: (u32, u32), tpw_row_log2: u32, order_flip: bool, size: u32) -> LinearLayout {
    Blocked {
        size_per_thread: vec![1 << spt.0, 1 << spt.1],
        threads_per_warp: vec![1 << tpw_row_log2, 32 >> tpw_row_log2],
        warps_per_cta: vec![2, 2],
        order: if order_flip { vec![0, 1] } else { vec![1, 0] },
        cga: CgaLayout::single(2),
    }
    .to_linear_layout(&[size, size])
    .unwrap()
}

/// ldmatrix.x4 of the mma.sync A fragment (fp16, kWidth 2) from a row-major
/// 16x16 buffer: rows are 32 bytes apart, so rows r and r+4 share banks and
/// every matrix takes 2 wavefronts; a 32-byte swizzle removes the conflict.
#[test]
fn ldmatrix_of_unswizzled_16x16_fp16_is_two_way_and_swizzle_fixes_it() {
    use layout_algebra::triton::{DotOperand, Encoding, NvidiaMma};
    let mma = Encoding::NvidiaMma(NvidiaMma {
        version_major: 2,
        version_minor: 0,
        warps_per_cta: vec![1, 1],
        instr_shape: vec![16, 8],
        cga: CgaLayout::single(2),
    });
    let a = Encoding::DotOperand(Box::new(DotOperand {
        op_idx: 0,
        k_width: 2,
        parent: mma,
    }))
    .to_linear_layout(&[16, 16])
    .unwrap();
    let target = BankTarget::nvidia();
    for ((vec, per_phase, max_phase), expected) in [((1, 1, 1), 8), ((8, 4, 2), 4)] {
        let smem = SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order: vec![1, 0],
            cga: CgaLayout::single(2),
        }
        .to_linear_layout(&[16, 16])
        .unwrap();
        let access = Access {
            distributed: &a,
            shared: &smem,
            element_bits: 16,
            instruction: Instruction::Matrix {
                count: 4,
                trans: false,
            },
            direction: Direction::Store,
        };
        let rank = wavefronts_by_rank(&access, &target).unwrap();
        let enumeration = wavefronts_by_enumeration(&access, &target).unwrap();
        assert_eq!(rank, enumeration);
        assert_eq!(
            (rank.instructions, rank.ideal, rank.wavefronts),
            (1, 4, expected)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// AMD-style targets: 64 banks, 64 lanes, and phases given as an
    /// arbitrary subspace of lane ids (like CDNA3's ds_read_b128, whose
    /// phase of lane 0 is lanes 0-3 and 20-23). Enumeration and rank still
    /// agree.
    #[test]
    fn wavefronts_agree_for_arbitrary_phase_subspaces(
        tpw_row_log2 in 0u32..7,
        (vec, per_phase, max_phase) in (0u32..4, 0u32..3, 0u32..4),
        lanes in prop::collection::vec(1u32..64, 0..=6),
        spt_col in 0u32..4,
        load in any::<bool>(),
    ) {
        let dist = Blocked {
            size_per_thread: vec![1, 1 << spt_col],
            threads_per_warp: vec![1 << tpw_row_log2, 64 >> tpw_row_log2],
            warps_per_cta: vec![1, 1],
            order: vec![1, 0],
            cga: CgaLayout::single(2),
        }.to_linear_layout(&[64, 64]).unwrap();
        let smem = SwizzledShared {
            vec: 1 << vec, per_phase: 1 << per_phase, max_phase: 1 << max_phase,
            order: vec![1, 0], cga: CgaLayout::single(2),
        }.to_linear_layout(&[64, 64]).unwrap();
        let bits = 16u32 << spt_col.min(3);
        // The span of the drawn lanes, listed as the phase of lane 0.
        let mut phase = vec![0u32];
        for l in lanes {
            if !phase.contains(&l) {
                let more: Vec<u32> = phase.iter().map(|p| p ^ l).collect();
                phase.extend(more);
            }
        }
        let direction = if load { Direction::Load } else { Direction::Store };
        let rule = PhaseRule::from_lanes(bits, Some(direction), &phase).unwrap();
        let target = BankTarget { banks: 64, bank_bytes: 4, warp_size: 64, phases: vec![rule], wide_loads_merge_phases: false };
        let access = Access { distributed: &dist, shared: &smem, element_bits: 16, instruction: Instruction::LdSt { bits }, direction };
        match (wavefronts_by_rank(&access, &target), wavefronts_by_enumeration(&access, &target)) {
            (Ok(r), Ok(e)) => prop_assert_eq!(r, e),
            (Err(_), Err(_)) => {}
            (r, e) => prop_assert!(false, "rank {:?} vs enumeration {:?}", r, e),
        }
    }
}

/// ldmatrix.x2.trans of the mma.sync B fragment (fp16, kWidth 2) from a
/// row-major 16x64 buffer. Rows of consecutive k are 128 bytes apart, all on
/// the same 4 banks (8-way); Triton 3.9 picks the row register by a search
/// (`transposed_row_register`) and takes n+8 instead of k+1: rows 16 bytes
/// apart in pairs, 4-way, 4 wavefronts per matrix. The 128-byte swizzle
/// (vec 8, maxPhase 8) spreads the k rows over all banks, and then k+1 is
/// kept.
#[test]
fn ldmatrix_trans_of_b_fragment_is_four_way_and_128b_swizzle_fixes_it() {
    use layout_algebra::triton::{DotOperand, Encoding, NvidiaMma};
    let mma = Encoding::NvidiaMma(NvidiaMma {
        version_major: 2,
        version_minor: 0,
        warps_per_cta: vec![1, 1],
        instr_shape: vec![16, 8],
        cga: CgaLayout::single(2),
    });
    let b = Encoding::DotOperand(Box::new(DotOperand {
        op_idx: 1,
        k_width: 2,
        parent: mma,
    }))
    .to_linear_layout(&[16, 64])
    .unwrap();
    let target = BankTarget::nvidia();
    for ((vec, per_phase, max_phase), expected) in [((1, 1, 1), 64), ((8, 1, 8), 16)] {
        let smem = SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order: vec![1, 0],
            cga: CgaLayout::single(2),
        }
        .to_linear_layout(&[16, 64])
        .unwrap();
        let access = Access {
            distributed: &b,
            shared: &smem,
            element_bits: 16,
            instruction: Instruction::Matrix {
                count: 2,
                trans: true,
            },
            direction: Direction::Store,
        };
        let rank = wavefronts_by_rank(&access, &target).unwrap();
        assert_eq!(rank, wavefronts_by_enumeration(&access, &target).unwrap());
        assert_eq!(
            (rank.instructions, rank.ideal, rank.wavefronts),
            (8, 16, expected)
        );
        // The plain (non-transposed) form does not fit this fragment.
        let plain = Access {
            instruction: Instruction::Matrix {
                count: 2,
                trans: false,
            },
            direction: Direction::Store,
            ..access
        };
        assert!(wavefronts_by_rank(&plain, &target).is_err());
    }
}

/// A phase is given as the lanes served with lane 0: a set closed under XOR.
/// Anything else is an error that says why, and large sets are fine.
#[test]
fn phase_rules_accept_exactly_the_subspaces_of_lane_ids() {
    let cdna3 =
        PhaseRule::from_lanes(128, Some(Direction::Load), &[0, 1, 2, 3, 20, 21, 22, 23]).unwrap();
    assert_eq!(cdna3.generators, vec![1, 2, 20]);
    let wide: Vec<u32> = (0..1024).collect();
    assert_eq!(
        PhaseRule::from_lanes(32, None, &wide)
            .unwrap()
            .generators
            .len(),
        10
    );
    let no_zero = PhaseRule::from_lanes(128, None, &[1, 2, 3]).unwrap_err();
    assert!(no_zero.contains("lane 0"), "{no_zero}");
    let not_closed = PhaseRule::from_lanes(128, None, &[0, 1, 2]).unwrap_err();
    assert!(not_closed.contains("not closed under XOR"), "{not_closed}");
}

// ----- subspaces of GF(2)^n (f2) -----

fn words(n: u32) -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..(1u64 << n), 0..8)
}

proptest! {
    #[test]
    fn subspace_dimensions_add_up(u in words(8), v in words(8)) {
        use layout_algebra::f2;
        let n = 8;
        let dim = |w: &[u64]| f2::rank(w.iter().copied());
        let both = f2::intersection_basis(&u, &v, n);
        let sum: Vec<u64> = u.iter().chain(&v).copied().collect();
        // dim(U ∩ V) + dim(U + V) = dim U + dim V
        prop_assert_eq!(dim(&both) + dim(&sum), dim(&u) + dim(&v));
        // Every vector of the intersection lies in both.
        let (su, sv) = (
            f2::span_of(std::slice::from_ref(&u)),
            f2::span_of(std::slice::from_ref(&v)),
        );
        for &w in &both {
            prop_assert!(su.contains(w) && sv.contains(w));
        }
        // A complement completes U to the whole space.
        let full = f2::extend_basis(&u, n);
        prop_assert_eq!(full.len() as u32, n);
        prop_assert_eq!(dim(&full), n);
        prop_assert_eq!(f2::complement_basis(&u, n).len() as u32, n - dim(&u));
        // The nullspace is orthogonal to U and has the right dimension.
        let null = f2::nullspace_basis(&u, n);
        prop_assert_eq!(null.len() as u32, n - dim(&u));
        for &z in &null {
            for &x in &u {
                prop_assert_eq!((z & x).count_ones() % 2, 0);
            }
        }
    }
}
