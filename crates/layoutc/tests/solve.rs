//! `layoutc solve` end to end: the JSON of CONTRACT §4 on its own example,
//! the text a kernel engineer reads, and `--write` (atomic, keeps the rest
//! of the file, idempotent, and the recorded answer checked afterwards).

use std::process::{Command, Output};

use expect_test::expect;
use serde_json::Value;

fn layoutc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_layoutc"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("runs layoutc")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The two requests of CONTRACT §4: a 64x64 f16 tensor over 4 warps and
/// the TPU tiling.
const CONTRACT: &str = r#"target = sm90
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
solve smem64 {
    kind = swizzle
    write = tensor<64x64xf16, #blocked>
    read = tensor<64x64xf16, #dot_a>
    instructions = matrix
}
solve tpu {
    kind = tiling
    array = xla bf16[1000,300]
    target = tpu
}
"#;

#[test]
fn json_has_the_contract_shape_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contract.lay");
    std::fs::write(&path, CONTRACT).unwrap();
    let o = layoutc(&["solve", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let s = &j["solutions"];
    assert_eq!(s.as_array().unwrap().len(), 2);
    let smem = &s[0];
    assert_eq!(smem["name"], "smem64");
    assert_eq!(smem["kind"], "swizzle");
    assert_eq!(smem["status"], "optimal");
    assert_eq!(
        smem["notations"]["triton"],
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    );
    assert_eq!(smem["notations"]["cute"], "Sw<3,3,3> o (64,64):(64,1)");
    assert!(smem["notations"]["linear"].is_string());
    // 2 KiB per warp: at least 16 wavefronts each way, and no more.
    assert_eq!(smem["write_wavefronts"], 16);
    assert_eq!(smem["read_wavefronts"], 16);
    assert_eq!(smem["read_conflicts"], 0);
    assert_eq!(smem["write_conflicts"], 0);
    assert_eq!(smem["lower_bound"]["read_wavefronts"], 16);
    assert_eq!(smem["lower_bound"]["write_wavefronts"], 16);
    assert!(smem["solve_ms"].is_number());
    let ins = smem["linear"]["ins"].as_array().unwrap();
    assert_eq!(ins[0]["name"], "offset");
    assert_eq!(ins[0]["size"], 4096);
    assert_eq!(smem["linear"]["outs"][0]["name"], "dim0");
    let tpu = &s[1];
    assert_eq!(tpu["kind"], "tiling");
    assert_eq!(tpu["status"], "optimal");
    assert_eq!(tpu["xla"]["text"], "bf16[1000,300]{0,1:T(8,128)(2,1)}");
    assert_eq!(tpu["xla"]["padded_elements"], 311296);
    assert_eq!(tpu["xla"]["padded_bytes"], 622592);
    assert_eq!(tpu["lower_bound"]["padded_bytes"], 622592);
}

#[test]
fn text_says_what_was_found_and_why() {
    let o = layoutc(&["solve", "examples/solve_tpu.lay"]);
    assert_eq!(o.status.code(), Some(0));
    let text: String = stdout(&o)
        .lines()
        .filter(|l| !l.trim_start().starts_with("solved in"))
        .map(|l| format!("{l}\n"))
        .collect();
    expect![[r#"
        activations (line 4:7): XLA tiling, optimal
          answer: bf16[1000,300]{0,1:T(8,128)(2,1)}
          padding: 311296 elements, 622592 bytes in all
          why: every one of the 4 orders and TPU formats was scored; none pads to fewer than 622592 bytes

        scales (line 12:7): XLA tiling, optimal
          answer: f32[3,1000]{1,0:T(4,128)}
          padding: 4096 elements, 16384 bytes in all
          why: every one of the 2 orders and TPU formats was scored; none pads to fewer than 16384 bytes

        ragged (line 26:7): XLA tiling, optimal
          answer: f32[1531,2047]{1,0:T(383,128)}
          padding: 3137536 elements, 12550144 bytes in all
          why: 262144 tile sizes in 2 placements; Z3 proved that none pads to fewer than 12550144 bytes (searching 1 of them; no other placement's floor is lower)

    "#]]
    .assert_eq(&text);
}

#[test]
fn write_records_each_answer_in_its_block() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.lay");
    let original = CONTRACT.replace(
        "    instructions = matrix\n",
        "    instructions = matrix // ldmatrix for the dot operand\n",
    );
    std::fs::write(&path, &original).unwrap();
    let p = path.to_str().unwrap();
    let o = layoutc(&["solve", p, "--write"]);
    assert_eq!(o.status.code(), Some(0));
    let written = std::fs::read_to_string(&path).unwrap();
    // Only the answers were added, each before its block's `}`.
    let added: Vec<&str> = written
        .lines()
        .filter(|l| !original.lines().any(|o| o == *l))
        .collect();
    assert_eq!(
        added,
        [
            "    answer = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            "    answer = xla bf16[1000,300]{0,1:T(8,128)(2,1)}",
        ]
    );
    assert!(written.contains("// ldmatrix for the dot operand"));
    // Idempotent, formatted, and the file checks clean.
    layoutc(&["solve", p, "--write"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    assert_eq!(layoutc(&["fmt", "--check", p]).status.code(), Some(0));
    let check = layoutc(&["check", p, "--color", "never"]);
    assert_eq!(check.status.code(), Some(0));
    assert!(!stdout(&check).contains("W0501"));
    // A recorded answer that is no longer the solver's is a warning.
    std::fs::write(&path, written.replace("maxPhase = 8", "maxPhase = 4")).unwrap();
    let stale = layoutc(&["check", p, "--color", "never"]);
    assert!(stdout(&stale).contains("W0501"), "{}", stdout(&stale));
}

#[test]
fn a_request_that_cannot_be_met_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tight.lay");
    std::fs::write(
        &path,
        CONTRACT.replace("    instructions = matrix\n", "    budget = 4096\n"),
    )
    .unwrap();
    let o = layoutc(&["solve", path.to_str().unwrap(), "--format", "json"]);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["solutions"][0]["status"], "infeasible");
    assert!(
        j["solutions"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("8192 bytes, more than the budget of 4096")
    );
}

#[test]
fn timeout_flag_replaces_each_blocks_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hard.lay");
    // A search far too large to finish, whose block allows a minute.
    std::fs::write(
        &path,
        "solve hard {\n    kind = tiling\n    array = xla f32[10007,10009,997]\n    tile_multiple = [1, 1, 1]\n    min_tile_elements = 1000000\n    max_tile_elements = 4000000\n    timeout = 60000\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let o = layoutc(&["solve", p, "--timeout", "50", "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let s = &v["solutions"][0];
    assert_eq!(s["status"], "timeout", "{s}");
    assert!(s["reason"].as_str().unwrap().contains("after 50 ms"), "{s}");
    for bad in ["0", "-5", "soon"] {
        let o = layoutc(&["solve", p, "--timeout", bad]);
        assert_eq!(o.status.code(), Some(2), "--timeout {bad}");
    }
}
