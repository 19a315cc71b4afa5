//! One warp's shared-memory access when lanes share addresses (broadcast)
//! or banks (conflicts), against an H100: 114 patterns of 32-, 64- and
//! 128-bit loads and stores (tests/vectors/nvidia/broadcast_wavefronts.cu,
//! measure_broadcast.sh). Lane bit b moves the byte address by the
//! pattern's offset b. Every count must be the GPU's, by the enumeration
//! oracle, by the rank formula and in the trace the pictures draw.
//!
//! What the measurements taught: a load of 64 or 128 bits whose quads of
//! lanes ask for at most two addresses is served with twice the lanes per
//! phase (a 64-bit load by the whole warp, a 128-bit one by half-warps);
//! stores never are.

use crate::common;

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, trace, wavefronts_by_enumeration,
    wavefronts_by_rank,
};
use layout_algebra::{DimName, LinearLayout};

/// The access as layouts over a 1-D tensor of 32-bit words (4096 of them,
/// 16 KiB): registers are the words of one lane's vector, lanes the
/// pattern's offsets; the shared layout stores word i at offset i.
fn access_layouts(bits: u32, lane_offsets: &[u64]) -> (LinearLayout, LinearLayout) {
    let words = 4096i64;
    let registers: Vec<Vec<i64>> = (0..(bits / 32).trailing_zeros())
        .map(|b| vec![1i64 << b])
        .collect();
    let lanes: Vec<Vec<i64>> = lane_offsets.iter().map(|&o| vec![(o / 4) as i64]).collect();
    let distributed = LinearLayout::from_bases_with_sizes(
        vec![
            ("register".to_string(), registers),
            ("lane".to_string(), lanes),
            ("warp".to_string(), Vec::new()),
        ],
        vec![(DimName::from("dim0"), words)],
        false,
    )
    .unwrap();
    let shared = LinearLayout::from_bases_with_sizes(
        vec![(
            "offset".to_string(),
            (0..words.trailing_zeros())
                .map(|b| vec![1i64 << b])
                .collect(),
        )],
        vec![(DimName::from("dim0"), words)],
        true,
    )
    .unwrap();
    (distributed, shared)
}

#[test]
fn every_broadcast_and_conflict_pattern_takes_the_wavefronts_the_gpu_served() {
    let measured = common::load("nvidia/broadcast_wavefronts.json");
    let cases = measured["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 114);
    let target = BankTarget::nvidia();
    let mut wrong = Vec::new();
    for case in cases {
        let bits = case["bits"].as_u64().unwrap() as u32;
        let direction = match case["direction"].as_str().unwrap() {
            "load" => Direction::Load,
            _ => Direction::Store,
        };
        let offsets: Vec<u64> = case["lane_offsets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_u64().unwrap())
            .collect();
        let (distributed, shared) = access_layouts(bits, &offsets);
        let access = Access {
            distributed: &distributed,
            shared: &shared,
            element_bits: 32,
            instruction: Instruction::LdSt { bits },
            direction,
        };
        let gpu = case["wavefronts"].as_u64().unwrap();
        let oracle = wavefronts_by_enumeration(&access, &target)
            .unwrap()
            .wavefronts;
        let rank = wavefronts_by_rank(&access, &target).unwrap().wavefronts;
        let traced = trace(&access, &target, &[]).unwrap().wavefronts();
        if (oracle, rank, traced) != (gpu, gpu, gpu) {
            wrong.push(format!(
                "{} {bits} {} {offsets:?}: gpu {gpu}, oracle {oracle}, rank {rank}, trace {traced}",
                case["direction"], case["pattern"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 114:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
