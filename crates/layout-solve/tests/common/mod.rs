//! Helpers for the solver's tests: requests from Triton's JSON forms.
#![allow(dead_code)]

use std::time::Duration;

use layout_algebra::bank::OffsetMap;
use layout_algebra::bank::{BankTarget, Direction};
use layout_algebra::machine;
use layout_algebra::{DimName, LinearLayout};
use layout_solve::{AccessRequest, Candidate, Family, InstructionPolicy, Machine, SwizzleRequest};

/// The loaders every crate's tests share.
#[allow(unused_imports)]
pub use layout_test_support::{layout, vectors};

/// The bank model of a Triton target (`cuda:80`, `hip:gfx942`).
pub fn machine_for(target: &str) -> Machine {
    let preset = layout_algebra::machine::preset_for_triton_target(target)
        .unwrap_or_else(|| panic!("no preset for {target}"));
    Machine::from_preset(preset)
}

pub fn preset(name: &str) -> Machine {
    Machine::from_preset(machine::preset(name).unwrap())
}

/// A machine with `banks` 4-byte banks and NVIDIA's phases.
pub fn plain_machine(banks: u32, warp_size: u32) -> Machine {
    Machine {
        name: format!("{banks} banks"),
        banks: BankTarget {
            banks,
            bank_bytes: 4,
            warp_size,
            phases: Vec::new(),
            wide_loads_merge_phases: true,
        },
        vendor: layout_algebra::machine::Vendor::Nvidia,
        matrix: layout_algebra::machine::SharedInstructions::LD_ST,
        lds: layout_algebra::machine::LdsInstructions::NONE,
        paired_f32: false,
        booleans_in_64_bit_words: false,
        joined_halves_in_64_bit_words: false,
        packed_byte_arithmetic: false,
    }
}

pub fn request(
    write: &LinearLayout,
    read: &LinearLayout,
    bits: u32,
    machine: Machine,
    family: Family,
    instructions: InstructionPolicy,
) -> SwizzleRequest {
    SwizzleRequest {
        tensor: write.out_dims(),
        element_bits: bits,
        accesses: vec![
            AccessRequest {
                label: "write".into(),
                direction: Direction::Store,
                layout: write.clone(),
                weight: 1,
            },
            AccessRequest {
                label: "read".into(),
                direction: Direction::Load,
                layout: read.clone(),
                weight: 1,
            },
        ],
        family,
        instructions,
        machine,
        min_vector_bits: None,
        budget_bytes: None,
        fixed: Vec::new(),
        timeout: Duration::from_secs(2),
        cute_base: None,
    }
}

/// The shared layout a kernel was compiled with: the answer's offset bases,
/// and for the padded family the intervals of its `padded` notation.
pub fn answer_candidate(answer: &serde_json::Value, tensor: &[(DimName, u64)]) -> Candidate {
    let bases = answer["linear"]["ins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "offset")
        .unwrap()["bases"]
        .clone();
    let offsets = LinearLayout::from_bases_with_sizes(
        vec![(DimName::from("offset"), layout_test_support::lists(&bases))],
        tensor.iter().map(|(n, s)| (n.clone(), *s as i64)).collect(),
        true,
    )
    .unwrap();
    let map = OffsetMap::from_shared(&offsets, tensor).unwrap();
    let mut padding = Vec::new();
    if answer["family"] == "padded" {
        let text = answer["notations"]["padded"].as_str().unwrap();
        let intervals = text.split('{').next().unwrap();
        for part in intervals.split(['[', ']', ',']) {
            if let Some((interval, pad)) = part.trim().split_once(":+") {
                padding.push((interval.parse().unwrap(), pad.parse().unwrap()));
            }
        }
        assert!(!padding.is_empty(), "{text}");
    }
    Candidate {
        map,
        padding,
        rounds: 1,
    }
}
