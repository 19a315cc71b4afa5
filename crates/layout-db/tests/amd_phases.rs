//! The AMD presets serve LDS lanes in the phases measured on hardware
//! (tests/vectors/amd/lds_phases.json): for every measured instruction, the
//! preset groups the 64 lanes exactly as the measurement does, and sees the
//! measured number of banks. The file also lists instructions whose phases
//! are assumed, not measured (the halves of `ds_read2`/`ds_write2`, gfx950's
//! `ds_read_b64_tr_b16`): each states its rule, and the presets follow it.

use layout_algebra::bank::Direction;
use layout_db::TargetFacts;
use layout_db::target::preset;

#[test]
fn presets_serve_lds_lanes_in_the_measured_phases() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/amd/lds_phases.json"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    let mut mismatches = Vec::new();
    let mut unmeasured = 0;
    for case in cases {
        let name = format!("{} {}", case["target"], case["instruction"]);
        let measured = case["measured"].as_bool().unwrap();
        if !measured {
            unmeasured += 1;
            assert!(
                case["rule"].as_str().is_some_and(|r| !r.is_empty()),
                "{name}: an unmeasured case states the rule it assumes"
            );
        }
        let target = TargetFacts::from_preset(preset(case["target"].as_str().unwrap()).unwrap())
            .bank_target();
        let direction = match case["direction"].as_str().unwrap() {
            "load" => Direction::Load,
            _ => Direction::Store,
        };
        let served = target.phases_for(case["bits"].as_u64().unwrap() as u32, direction);
        if served.banks as u64 != case["banks"].as_u64().unwrap() {
            mismatches.push(format!(
                "{name}: {} banks, measured {}",
                served.banks, case["banks"]
            ));
        }
        let measured: Vec<Vec<u32>> = serde_json::from_value(case["phases"].clone()).unwrap();
        let lanes: usize = measured.iter().map(Vec::len).sum();
        assert_eq!(lanes, 64, "{name}: the measured phases cover the wavefront");
        for phase in &measured {
            for &lane in phase {
                let ours = served.phase_of(lane);
                if ours != *phase {
                    mismatches.push(format!(
                        "{name}: lane {lane} is served with {ours:?}, measured {phase:?}"
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(unmeasured >= 4 && unmeasured < cases.len());
}

/// Without a rule for an instruction, a phase is as many consecutive lanes
/// as fill one line of banks (the NVIDIA rule): on gfx942 a 64-bit access
/// serves 16 lanes, on gfx950 a 32-bit access the whole wavefront.
#[test]
fn instructions_without_a_measurement_fill_one_line_per_phase() {
    let gfx942 = TargetFacts::from_preset(preset("gfx942").unwrap()).bank_target();
    let served = gfx942.phases_for(64, Direction::Load);
    assert_eq!(served.phase_of(0), (0..16).collect::<Vec<_>>());
    assert_eq!(served.banks, 32);
    let gfx950 = TargetFacts::from_preset(preset("gfx950").unwrap()).bank_target();
    assert_eq!(
        gfx950.phases_for(32, Direction::Store).phase_of(5),
        (0..64).collect::<Vec<_>>()
    );
}

/// The example's layout on both CDNA generations. gfx942 (32 banks): a
/// store phase of 8 consecutive lanes is conflict-free, a ds_read_b128
/// phase (lanes 0-3 with 20-23) is 2-way. gfx950 (64 banks): a store phase
/// of 16 consecutive lanes is conflict-free, a ds_read_b128 phase (lanes
/// 0-3, 12-15, 20-27) is 2-way: 4 and 8 wavefronts.
#[test]
fn loads_and_stores_of_one_layout_differ_on_both_cdna_generations() {
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/amd_lds_phases.lay"
    ))
    .unwrap();
    let gfx950 = example
        .replace("target = gfx942", "target = gfx950")
        .replace("\"store\") == 8", "\"store\") == 4")
        .replace("\"load\") == 16", "\"load\") == 8");
    for text in [example, gfx950] {
        let mut db = layout_db::Database::default();
        let file = layout_db::SourceFile::open(&mut db, "amd.lay".into(), text.clone());
        let report = layout_db::check_file(&db, file);
        assert_eq!(report.checks, 3, "{text}");
        assert_eq!(report.checks_passed, 3, "{:?}", report.diagnostics);
    }
}
