//! Helpers for the solver's tests: requests from Triton's JSON forms.
#![allow(dead_code)]

use std::time::Duration;

use layout_algebra::LinearLayout;
use layout_algebra::bank::{BankTarget, Direction};
use layout_algebra::machine;
use layout_solve::{AccessRequest, Family, InstructionPolicy, Machine, SwizzleRequest};

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
