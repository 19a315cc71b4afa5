//! Helpers for the solver's tests: requests from Triton's JSON forms.
#![allow(dead_code)]

use std::time::Duration;

use layout_algebra::bank::{BankTarget, Direction};
use layout_algebra::machine;
use layout_algebra::{DimName, LinearLayout};
use layout_solve::{AccessRequest, Family, InstructionPolicy, Machine, SwizzleRequest};
use serde_json::Value;

pub fn vectors(rel: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn lists(v: &Value) -> Vec<Vec<i64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        })
        .collect()
}

/// `{"bases": {"register": [..], ...}, "outDims": [[name, size], ..]}` or
/// `{"bases": [[name, [..]], ..], "outs": [[name, size], ..]}`.
pub fn layout(v: &Value) -> LinearLayout {
    let outs_v = v.get("outDims").or_else(|| v.get("outs")).unwrap();
    let outs: Vec<(DimName, i64)> = outs_v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                DimName::from(p[0].as_str().unwrap()),
                p[1].as_i64().unwrap(),
            )
        })
        .collect();
    let bases: Vec<(DimName, Vec<Vec<i64>>)> = match &v["bases"] {
        Value::Object(o) => ["register", "lane", "warp", "block"]
            .iter()
            .filter_map(|n| o.get(*n).map(|b| (DimName::from(*n), lists(b))))
            .collect(),
        Value::Array(a) => a
            .iter()
            .map(|p| (DimName::from(p[0].as_str().unwrap()), lists(&p[1])))
            .collect(),
        _ => panic!("bases"),
    };
    LinearLayout::from_bases_with_sizes(bases, outs, false).unwrap()
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
