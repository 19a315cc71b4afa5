//! Wavefronts of CuTe tiled copies against a second, independent count.
//!
//! `TiledCopy::wavefronts` partitions the shared tensor as CuTe's
//! `partition_S/D` does (zipped_divide, then the copy's thread-value
//! composition). The count here never partitions: it walks the copy's own
//! `(thread, value) -> tile coordinate` layout, places every tile of the
//! tensor by coordinate arithmetic, looks each element up in the shared
//! layout by its 2-D coordinate, and groups lanes into phases with its own
//! rules (ldmatrix/stmatrix: lanes 8j..8j+7 per matrix; vectors: the lanes
//! that fill 128 bytes).

use std::collections::{BTreeSet, HashMap};

use layout_algebra::bank::BankTarget;
use layout_algebra::cute::atom::{CopyAtom, CopyInstruction, MmaAtom};
use layout_algebra::cute::copy_cost::shared_side;
use layout_algebra::cute::tiled::{Operand, Side, TiledCopy, TiledMma};
use layout_algebra::cute::{IntTuple, Layout, Swizzle, SwizzledLayout, Tiler};
use proptest::prelude::*;

fn l(text: &str) -> Layout {
    Layout::parse(text).unwrap()
}

/// The worst warp's wavefronts, counted by coordinates.
fn by_coordinates(copy: &TiledCopy, smem: &SwizzledLayout, side: Side) -> u64 {
    let tv = copy.layout_side_tv(side).unwrap();
    let (tm, tn) = match &copy.tiler {
        IntTuple::Tuple(m) => (m[0].product(), m[1].product()),
        IntTuple::Int(n) => (*n, 1),
    };
    let (sm, sn) = (smem.layout.mode(0).size(), smem.layout.mode(1).size());
    let bits = copy.atom.value_bits as i64;
    let target = match side {
        Side::Source => &copy.atom.val_src,
        Side::Destination => &copy.atom.val_dst,
    };
    let per_instruction = match copy.atom.instruction {
        CopyInstruction::AutoVectorizing { .. } => 1,
        _ => target.mode(1).size(),
    };
    let width = per_instruction * bits / 8;
    let matrices = match copy.atom.instruction {
        CopyInstruction::Ldmatrix { matrices, .. } | CopyInstruction::Stmatrix { matrices, .. } => {
            Some(matrices as i64)
        }
        _ => None,
    };
    let threads = tv.mode(0).size();
    let values = tv.mode(1).size();
    let mut per_warp: HashMap<i64, u64> = HashMap::new();
    for rm in 0..sm / tm {
        for rn in 0..sn / tn {
            for group in 0..values / per_instruction {
                // warp -> phase key -> words per bank, and 128-byte lines
                let mut phases: HashMap<(i64, i64), Vec<BTreeSet<i64>>> = HashMap::new();
                let mut lines: HashMap<(i64, i64), BTreeSet<i64>> = HashMap::new();
                for t in 0..threads {
                    let c = tv.call(t + threads * group * per_instruction);
                    let (m, n) = (c % tm + tm * rm, c / tm + tn * rn);
                    let inner = smem
                        .layout
                        .at(&IntTuple::Tuple(vec![IntTuple::Int(m), IntTuple::Int(n)]))
                        .unwrap();
                    let byte = smem.swizzle.apply(smem.offset + inner) * bits / 8;
                    let lane = t % 32;
                    let phase = match matrices {
                        Some(mats) if lane / 8 >= mats => continue,
                        Some(_) => lane / 8,
                        None => lane / (128 / width).clamp(1, 32),
                    };
                    let banks = phases
                        .entry((t / 32, phase))
                        .or_insert_with(|| vec![BTreeSet::new(); 32]);
                    for word in byte / 4..=(byte + width - 1) / 4 {
                        banks[(word % 32) as usize].insert(word);
                    }
                    lines.entry((t / 32, phase)).or_default().insert(byte / 128);
                }
                // cp.async.cg writes a 128-byte line at a time (timed on an H100).
                let by_line = matches!(
                    copy.atom.instruction,
                    CopyInstruction::CpAsync {
                        cache_global: true,
                        ..
                    }
                );
                for (key, banks) in phases {
                    let by_bank = banks.iter().map(|b| b.len() as u64).max().unwrap().max(1);
                    let line_count = if by_line { lines[&key].len() as u64 } else { 0 };
                    *per_warp.entry(key.0).or_default() += by_bank.max(line_count);
                }
            }
        }
    }
    per_warp.into_values().max().unwrap()
}

fn swizzled(b: u32, m: u32, s: i32, layout: Layout) -> SwizzledLayout {
    SwizzledLayout {
        swizzle: Swizzle::new(b, m, s).unwrap(),
        offset: 0,
        layout,
    }
}

fn sm80_mma() -> TiledMma {
    TiledMma::new(
        MmaAtom::new("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        l("(2,2,1)"),
        Some(Tiler::parse("<32,(8,2,2):(1,16,8),16>").unwrap()),
    )
    .unwrap()
}

/// The CuTe GEMM mainloop's smem for A: 128x64 f16, K-major, 128B swizzle
/// (`Sw<3,3,3> o (8,64):(64,1)` tiled down the rows).
#[test]
fn ldmatrix_reads_of_a_swizzled_k_major_tile_are_conflict_free() {
    let copy = TiledCopy::for_mma(
        CopyAtom::new("SM75_U32x4_LDSM_N", "half_t").unwrap(),
        &sm80_mma(),
        Operand::A,
    )
    .unwrap();
    let atom = l("(8,64):(64,1)")
        .tile_to_shape(&IntTuple::parse("(128,64)").unwrap(), None)
        .unwrap();
    let target = BankTarget::nvidia();
    let swz = swizzled(3, 3, 3, atom.clone());
    let plain = swizzled(0, 0, 0, atom);
    let good = copy.wavefronts(&swz, Side::Source, &target).unwrap();
    let bad = copy.wavefronts(&plain, Side::Source, &target).unwrap();
    // 4 matrices per ldmatrix.x4, 16 instructions for the warp's 128x64 share.
    assert_eq!(good.wavefronts, good.ideal);
    // Unswizzled, the 8 rows of a matrix are 128 bytes apart: one bank group.
    assert_eq!(bad.wavefronts, 8 * bad.ideal);
    assert_eq!(good.wavefronts, by_coordinates(&copy, &swz, Side::Source));
    assert_eq!(bad.wavefronts, by_coordinates(&copy, &plain, Side::Source));
}

fn copies() -> Vec<TiledCopy> {
    let mma = sm80_mma();
    let mut out = Vec::new();
    for (op, t, v) in [
        (
            "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
            "(16,8):(8,1)",
            "(1,8)",
        ),
        (
            "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
            "(32,4):(4,1)",
            "(1,8)",
        ),
        ("UniversalCopy<uint128_t>", "(8,16)", "(8,1)"),
        ("UniversalCopy<uint64_t>", "(16,8):(8,1)", "(1,4)"),
        ("UniversalCopy<uint32_t>", "(32,4):(4,1)", "(1,2)"),
        (
            "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>",
            "(8,16):(16,1)",
            "(1,4)",
        ),
    ] {
        out.push(
            TiledCopy::from_thr_val(CopyAtom::new(op, "half_t").unwrap(), &l(t), &l(v)).unwrap(),
        );
    }
    for (op, side) in [
        ("SM75_U32x4_LDSM_N", Operand::A),
        ("SM75_U32x2_LDSM_N", Operand::B),
        ("SM75_U16x8_LDSM_T", Operand::A),
        ("SM75_U16x4_LDSM_T", Operand::B),
        ("SM90_U32x4_STSM_N", Operand::C),
        ("SM90_U16x8_STSM_T", Operand::C),
    ] {
        out.push(TiledCopy::for_mma(CopyAtom::new(op, "half_t").unwrap(), &mma, side).unwrap());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any CuTe swizzle over a row- or column-major tile a whole number of
    /// copy tiles: both counts agree (or the copy is refused as misaligned
    /// or not contiguous).
    #[test]
    fn partition_count_equals_coordinate_count(
        which in 0usize..12,
        b in 0u32..4, m in 0u32..5, s in 3i32..7,
        rows_x in 1i64..3, cols_x in 1i64..3, row_major in any::<bool>(),
    ) {
        let copy = &copies()[which];
        let (tm, tn) = match &copy.tiler {
            IntTuple::Tuple(v) => (v[0].product(), v[1].product()),
            IntTuple::Int(n) => (*n, 1),
        };
        let (sm, sn) = (tm * rows_x, tn * cols_x);
        let layout = if row_major {
            Layout::new(IntTuple::parse(&format!("({sm},{sn})")).unwrap(), IntTuple::parse(&format!("({sn},1)")).unwrap()).unwrap()
        } else {
            Layout::column_major(IntTuple::parse(&format!("({sm},{sn})")).unwrap()).unwrap()
        };
        prop_assume!(Swizzle::new(b, m, s).is_ok());
        let smem = swizzled(b, m, s, layout);
        let side = shared_side(copy.atom.instruction).unwrap_or(Side::Destination);
        if let Ok(cost) = copy.wavefronts(&smem, side, &BankTarget::nvidia()) {
            prop_assert_eq!(cost.wavefronts, by_coordinates(copy, &smem, side));
            prop_assert!(cost.wavefronts >= cost.ideal);
        }
    }
}

/// Every copy above is legal on one of the two majors of a plain tile (its
/// values contiguous there), and both counts agree on it.
#[test]
fn every_copy_is_counted_on_its_major() {
    for copy in copies() {
        let (tm, tn) = match &copy.tiler {
            IntTuple::Tuple(v) => (v[0].product(), v[1].product()),
            IntTuple::Int(n) => (*n, 1),
        };
        let (sm, sn) = (2 * tm, 2 * tn);
        let row = Layout::new(
            IntTuple::parse(&format!("({sm},{sn})")).unwrap(),
            IntTuple::parse(&format!("({sn},1)")).unwrap(),
        )
        .unwrap();
        let col = Layout::column_major(IntTuple::parse(&format!("({sm},{sn})")).unwrap()).unwrap();
        let side = shared_side(copy.atom.instruction).unwrap_or(Side::Destination);
        let counted: Vec<u64> = [row, col]
            .into_iter()
            .filter_map(|layout| {
                let smem = swizzled(3, 3, 3, layout);
                let cost = copy.wavefronts(&smem, side, &BankTarget::nvidia()).ok()?;
                assert_eq!(
                    cost.wavefronts,
                    by_coordinates(&copy, &smem, side),
                    "{}",
                    copy.atom.op
                );
                Some(cost.wavefronts)
            })
            .collect();
        assert!(
            !counted.is_empty(),
            "{} is refused on both majors",
            copy.atom.op
        );
    }
}
