//! Every worked example of the seeds that concerns linear layouts, Triton
//! encodings and the coalesce pass, with the seeds' own numbers.

use layout_algebra::triton::coalesce::{AxisInfo, CoalesceRequest, coalesced_layout};
use layout_algebra::triton::{AmdMfma, Blocked, CgaLayout, Encoding, Slice, SwizzledShared};
use layout_algebra::{DimName, LinearLayout};
use std::collections::BTreeSet;

fn out_values(l: &LinearLayout, inputs: &[(&str, u64)]) -> Vec<u32> {
    l.apply(inputs)
        .unwrap()
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[usize]) -> Blocked {
    Blocked {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpc.to_vec(),
        order: order.to_vec(),
        cga: CgaLayout::single(order.len()),
    }
}

#[test]
fn seed000_l_of_1_3_is_1_2() {
    let l = LinearLayout::from_bases(
        vec![
            ("t", vec![vec![1, 1], vec![2, 2]]),
            ("w", vec![vec![0, 1], vec![0, 2]]),
        ],
        vec!["x", "y"],
    )
    .unwrap();
    assert_eq!(out_values(&l, &[("t", 1), ("w", 3)]), vec![1, 2]);
}

/// The seed infers sizes 8 and 4; three bases cannot cover 32 outputs, so
/// Triton's surjective constructor rejects the layout, and so do we. Without
/// the surjectivity requirement the inferred sizes are the seed's.
#[test]
fn seed000_inferred_out_sizes_are_8_and_4() {
    let bases = || vec![("in1", vec![vec![1, 0], vec![5, 1], vec![2, 2]])];
    assert!(matches!(
        LinearLayout::from_bases(bases(), vec!["out1", "out2"]),
        Err(layout_algebra::LayoutError::NotSurjective { rank: 3, size: 32 })
    ));
    let l = LinearLayout::from_bases_inferring_sizes(bases(), vec!["out1", "out2"], false).unwrap();
    assert_eq!(l.out_dim_size("out1"), 8);
    assert_eq!(l.out_dim_size("out2"), 4);
}

#[test]
fn seed000_division_and_remainder_are_products_of_identity_and_zeros() {
    let id = |n, o: &str| LinearLayout::identity_1d(n, "i", o).unwrap();
    let zero = |n| LinearLayout::zeros_1d(n, "i", "o").unwrap();
    let div4 = zero(4).product(&id(2, "o")).unwrap();
    let mod4 = id(4, "o").product(&zero(2)).unwrap();
    let split = id(4, "o1").product(&id(8, "o2")).unwrap();
    for x in 0..8u64 {
        assert_eq!(out_values(&div4, &[("i", x)]), vec![(x / 4) as u32]);
        assert_eq!(out_values(&mod4, &[("i", x)]), vec![(x % 4) as u32]);
    }
    for x in 0..32u64 {
        assert_eq!(
            out_values(&split, &[("i", x)]),
            vec![(x % 4) as u32, (x / 4) as u32]
        );
    }
}

#[test]
fn seed000_cga_coordinate_1_1_is_block_101b() {
    let cga = CgaLayout::from_split(&[2, 4], &[2, 4], &[1, 0])
        .unwrap()
        .to_linear()
        .unwrap();
    assert_eq!(out_values(&cga, &[("block", 0b101)]), vec![1, 1]);
}

/// `table[i][j]`: the logical (row-major) index of the element stored at
/// offset `i * cols + j`, as the seeds print swizzle tables.
fn swizzle_table(vec: u32, per_phase: u32, max_phase: u32, rows: u32, cols: u32) -> Vec<Vec<u32>> {
    let shared = SwizzledShared {
        vec,
        per_phase,
        max_phase,
        order: vec![1, 0],
        cga: CgaLayout::single(2),
    };
    let l = shared.to_linear_layout(&[rows, cols]).unwrap();
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| {
                    let rc = out_values(&l, &[("offset", (i * cols + j) as u64), ("block", 0)]);
                    rc[0] * cols + rc[1]
                })
                .collect()
        })
        .collect()
}

#[test]
fn seed002_swizzle_tables_4x4_and_4x8() {
    assert_eq!(
        swizzle_table(1, 1, 4, 4, 4),
        vec![
            vec![0, 1, 2, 3],
            vec![5, 4, 7, 6],
            vec![10, 11, 8, 9],
            vec![15, 14, 13, 12]
        ]
    );
    assert_eq!(
        swizzle_table(1, 2, 4, 4, 4),
        vec![
            vec![0, 1, 2, 3],
            vec![4, 5, 6, 7],
            vec![9, 8, 11, 10],
            vec![13, 12, 15, 14]
        ]
    );
    let vec2 = vec![
        vec![0, 1, 2, 3, 4, 5, 6, 7],
        vec![10, 11, 8, 9, 14, 15, 12, 13],
        vec![20, 21, 22, 23, 16, 17, 18, 19],
        vec![30, 31, 28, 29, 26, 27, 24, 25],
    ];
    assert_eq!(swizzle_table(2, 1, 4, 4, 8), vec2);
}

#[test]
fn seed000_swizzle_table_vec1_per_phase2_max_phase2() {
    assert_eq!(
        swizzle_table(1, 2, 2, 8, 4),
        vec![
            vec![0, 1, 2, 3],
            vec![4, 5, 6, 7],
            vec![9, 8, 11, 10],
            vec![13, 12, 15, 14],
            vec![16, 17, 18, 19],
            vec![20, 21, 22, 23],
            vec![25, 24, 27, 26],
            vec![29, 28, 31, 30],
        ]
    );
}

/// Seed 000: sizePerThread [2, 2], threadsPerWarp [8, 4], warpsPerCTA [1, 2],
/// CTAsPerCGA = CTASplitNum = [2, 2], order [1, 0] on 32x32: each CTA holds a
/// 16x16 quarter, and thread `warp * 32 + lane` owns the element printed there.
#[test]
fn seed000_blocked_32x32_over_2x2_ctas() {
    let mut b = blocked(&[2, 2], &[8, 4], &[1, 2], &[1, 0]);
    b.cga = CgaLayout::from_split(&[2, 2], &[2, 2], &[1, 0]).unwrap();
    let l = b.to_linear_layout(&[32, 32]).unwrap();
    // Rows 0, 2 and 14 of CTA [0,0] exactly as the seed prints them.
    let seed_rows: [(u32, [u32; 16]); 3] = [
        (0, [0, 0, 1, 1, 2, 2, 3, 3, 32, 32, 33, 33, 34, 34, 35, 35]),
        (2, [4, 4, 5, 5, 6, 6, 7, 7, 36, 36, 37, 37, 38, 38, 39, 39]),
        (
            14,
            [
                28, 28, 29, 29, 30, 30, 31, 31, 60, 60, 61, 61, 62, 62, 63, 63,
            ],
        ),
    ];
    let mut owner = vec![vec![vec![u32::MAX; 16]; 16]; 4];
    for block in 0..4u64 {
        for warp in 0..2u64 {
            for lane in 0..32u64 {
                for reg in 0..4u64 {
                    let rc = out_values(
                        &l,
                        &[
                            ("register", reg),
                            ("lane", lane),
                            ("warp", warp),
                            ("block", block),
                        ],
                    );
                    // CTA [i, j] holds rows 16i.., cols 16j.. (CTAOrder [1, 0]).
                    let cta = (rc[0] / 16 * 2 + rc[1] / 16) as usize;
                    assert_eq!(cta as u64, block, "block {block} left its quarter");
                    owner[cta][(rc[0] % 16) as usize][(rc[1] % 16) as usize] =
                        (warp * 32 + lane) as u32;
                }
            }
        }
    }
    for cta in &owner {
        for (r, row) in seed_rows {
            assert_eq!(cta[r as usize], row.to_vec());
            assert_eq!(cta[r as usize + 1], row.to_vec(), "rows come in pairs");
        }
    }
}

fn mfma(m: u32) -> AmdMfma {
    AmdMfma {
        version: 3,
        warps_per_cta: vec![1, 1],
        instr_shape: vec![m, m, if m == 32 { 8 } else { 16 }],
        is_transposed: false,
        tiles_per_warp: vec![],
        element_bit_width: 0,
        cga: CgaLayout::single(2),
    }
}

/// Lane owning each element of one warp's MFMA tile.
fn lane_grid(l: &LinearLayout, n: u32) -> Vec<Vec<u64>> {
    let mut grid = vec![vec![u64::MAX; n as usize]; n as usize];
    for lane in 0..64u64 {
        for reg in 0..l.in_dim_size("register") {
            let rc = out_values(
                l,
                &[("register", reg), ("lane", lane), ("warp", 0), ("block", 0)],
            );
            grid[rc[0] as usize][rc[1] as usize] = lane;
        }
    }
    grid
}

#[test]
fn seed000_mfma_32x32_tile() {
    let l = mfma(32).to_linear_layout(&[32, 32]).unwrap();
    let grid = lane_grid(&l, 32);
    for (r, row) in grid.iter().enumerate() {
        // Rows 0-3 hold lanes 0-31, rows 4-7 lanes 32-63, repeating.
        let first = if (r / 4) % 2 == 0 { 0 } else { 32 };
        assert_eq!(*row, (first..first + 32).collect::<Vec<u64>>(), "row {r}");
    }
    assert_eq!(l.in_dim_size("register"), 16);
}

#[test]
fn seed000_mfma_16x16_tile() {
    let l = mfma(16).to_linear_layout(&[16, 16]).unwrap();
    let grid = lane_grid(&l, 16);
    for (r, row) in grid.iter().enumerate() {
        let first = 16 * (r as u64 / 4);
        assert_eq!(*row, (first..first + 16).collect::<Vec<u64>>(), "row {r}");
    }
    assert_eq!(l.in_dim_size("register"), 4);
}

/// Threads (lanes) holding each element, in row-major order.
fn owners(l: &LinearLayout, shape: &[u32]) -> Vec<BTreeSet<u64>> {
    let n: u32 = shape.iter().product();
    let mut sets = vec![BTreeSet::new(); n as usize];
    for lane in 0..l.in_dim_size("lane") {
        for reg in 0..l.in_dim_size("register") {
            let out = out_values(
                l,
                &[("register", reg), ("lane", lane), ("warp", 0), ("block", 0)],
            );
            let flat = out
                .iter()
                .zip(shape)
                .fold(0u32, |acc, (&v, &s)| acc * s + v);
            sets[flat as usize].insert(lane);
        }
    }
    sets
}

#[test]
fn seed000_distributed_layout_broadcasts_rows_and_wraps_columns() {
    // L = 4x4 threads, T = [2, 8].
    let l = blocked(&[1, 1], &[4, 4], &[1, 1], &[1, 0])
        .to_linear_layout(&[2, 8])
        .unwrap();
    let seed: [[u64; 2]; 16] = [
        [0, 8],
        [1, 9],
        [2, 10],
        [3, 11],
        [0, 8],
        [1, 9],
        [2, 10],
        [3, 11],
        [4, 12],
        [5, 13],
        [6, 14],
        [7, 15],
        [4, 12],
        [5, 13],
        [6, 14],
        [7, 15],
    ];
    let got = owners(&l, &[2, 8]);
    for (i, pair) in seed.iter().enumerate() {
        assert_eq!(got[i], pair.iter().copied().collect(), "element {i}");
    }
}

#[test]
fn seed000_slice_of_4x4_along_dim0() {
    let parent = Encoding::Blocked(blocked(&[1, 1], &[4, 4], &[1, 1], &[1, 0]));
    let l = Slice { dim: 0, parent }.to_linear_layout(&[8]).unwrap();
    let got = owners(&l, &[8]);
    for (i, set) in got.iter().enumerate() {
        let c = (i % 4) as u64;
        assert_eq!(
            *set,
            [c, c + 4, c + 8, c + 12].into_iter().collect(),
            "element {i}"
        );
    }
    let _ = DimName::from("");
}

fn coalesce(contiguity: [u32; 2]) -> Blocked {
    coalesced_layout(&CoalesceRequest {
        shape: vec![64, 64],
        element_bits: 32,
        pointer: AxisInfo {
            contiguity: contiguity.to_vec(),
            divisibility: vec![16, 16],
        },
        same_order: vec![],
        num_warps: 4,
        threads_per_warp: 32,
        cga: CgaLayout::single(2),
    })
    .unwrap()
}

#[test]
fn seed003_coalesce_turns_the_64x64_f32_load_and_store_into_vector_layouts() {
    let load = coalesce([1, 64]);
    assert_eq!(load.size_per_thread, vec![1, 4]);
    assert_eq!(load.threads_per_warp, vec![2, 16]);
    assert_eq!(load.warps_per_cta, vec![4, 1]);
    assert_eq!(load.order, vec![1, 0]);
    let store = coalesce([64, 1]);
    assert_eq!(store.size_per_thread, vec![4, 1]);
    assert_eq!(store.threads_per_warp, vec![16, 2]);
    assert_eq!(store.warps_per_cta, vec![1, 4]);
    assert_eq!(store.order, vec![0, 1]);
}
