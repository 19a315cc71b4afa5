//! A tour of the algebra on the seed's worked examples: the ownership grid of
//! a blocked layout over 2x2 CTAs, a swizzled shared layout's offset table,
//! and the bank conflicts of storing one into the other.
//!
//! `cargo run --release -p layout-algebra --example tour`

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, bank_conflicts, wavefronts_by_enumeration,
    wavefronts_by_rank,
};
use layout_algebra::triton::{Blocked, CgaLayout, SwizzledShared};
use layout_algebra::{LayoutError, LinearLayout};

fn main() -> Result<(), LayoutError> {
    // Seed 000: sizePerThread [2, 2], threadsPerWarp [8, 4], warpsPerCTA [1, 2],
    // CTAsPerCGA = CTASplitNum = [2, 2], order [1, 0], on a 32x32 tensor.
    let blocked = Blocked {
        size_per_thread: vec![2, 2],
        threads_per_warp: vec![8, 4],
        warps_per_cta: vec![1, 2],
        order: vec![1, 0],
        cga: CgaLayout::from_split(&[2, 2], &[2, 2], &[1, 0])?,
    };
    let layout = blocked.to_linear_layout(&[32, 32])?;
    println!(
        "#ttg.blocked<{{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0], CTAsPerCGA = [2, 2], CTASplitNum = [2, 2]}}> on 32x32\n"
    );
    println!("{layout}\n");
    println!("thread owning each element of CTA 0's 16x16 tile (warp * 32 + lane):");
    print_ownership(&layout, 16, 16)?;

    // Seed 000: swizzled shared vec=2, perPhase=1, maxPhase=4 on 4x8.
    let shared = SwizzledShared {
        vec: 2,
        per_phase: 1,
        max_phase: 4,
        order: vec![1, 0],
        cga: CgaLayout::single(2),
    };
    let smem = shared.to_linear_layout(&[4, 8])?;
    println!(
        "\n#ttg.swizzled_shared<{{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}}> on 4x8: offset of each element"
    );
    let inverse = smem.invert()?;
    for row in 0..4u64 {
        let cells: Vec<String> = (0..8u64)
            .map(|col| {
                inverse
                    .apply(&[("dim0", row), ("dim1", col)])
                    .map(|o| format!("{:>3}", o[0].1))
            })
            .collect::<Result<_, _>>()?;
        println!("  [{} ]", cells.join(""));
    }

    // Storing a 64x64 fp16 tile whose lanes walk down a column (a
    // transpose) into a row-major buffer, unswizzled and 128B-swizzled.
    let store = Blocked {
        size_per_thread: vec![1, 1],
        threads_per_warp: vec![32, 1],
        warps_per_cta: vec![1, 4],
        order: vec![0, 1],
        cga: CgaLayout::single(2),
    };
    let dist = store.to_linear_layout(&[64, 64])?;
    for (vec, per_phase, max_phase) in [(1, 1, 1), (8, 1, 8)] {
        let smem = SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order: vec![1, 0],
            cga: CgaLayout::single(2),
        }
        .to_linear_layout(&[64, 64])?;
        let access = Access {
            distributed: &dist,
            shared: &smem,
            element_bits: 16,
            instruction: Instruction::LdSt { bits: 16 },
            direction: Direction::Store,
        };
        let target = BankTarget::nvidia();
        let by_rank = wavefronts_by_rank(&access, &target)?;
        let by_enum = wavefronts_by_enumeration(&access, &target)?;
        println!(
            "\nst.shared.b16 of a 64x64 fp16 column walk into swizzle (vec {vec}, perPhase {per_phase}, maxPhase {max_phase}): {} wavefronts for {} instructions (ideal {}), enumeration agrees: {}; Triton bankConflicts = {}",
            by_rank.wavefronts,
            by_rank.instructions,
            by_rank.ideal,
            by_rank == by_enum,
            bank_conflicts(&dist, &smem, 16, &target)?
        );
    }
    Ok(())
}

/// Prints `warp * 32 + lane` of the thread holding each element of block 0.
fn print_ownership(layout: &LinearLayout, rows: u64, cols: u64) -> Result<(), LayoutError> {
    let mut owner = vec![vec![String::from("  ."); cols as usize]; rows as usize];
    for warp in 0..layout.in_dim_size("warp") {
        for lane in 0..layout.in_dim_size("lane") {
            for reg in 0..layout.in_dim_size("register") {
                let out = layout.apply(&[
                    ("register", reg),
                    ("lane", lane),
                    ("warp", warp),
                    ("block", 0),
                ])?;
                let (r, c) = (out[0].1 as u64, out[1].1 as u64);
                if r < rows && c < cols {
                    owner[r as usize][c as usize] = format!("{:>3}", warp * 32 + lane);
                }
            }
        }
    }
    for row in owner {
        println!("  [{} ]", row.join(""));
    }
    Ok(())
}
