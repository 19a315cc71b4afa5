//! `layoutc show` explains a `coalesced_blocked(...)` value step by step.

use std::process::Command;

#[test]
fn show_explains_the_coalesce_pass_of_seed_003() {
    let o = Command::new(env!("CARGO_BIN_EXE_layoutc"))
        .args(["show", "examples/seed003_coalesce.lay", "store"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    for step in [
        "1. order = [0, 1]: the dims sorted by contiguity [64, 1]",
        "2. sizePerThread = [4, 1]: along dim 0, alignment allows min(16 bytes / 4 bytes per element, contiguity 64) = 4 elements, the 128-bit limit 4",
        "3. threadsPerWarp = [16, 2]",
        "4. warpsPerCTA = [1, 4]",
    ] {
        assert!(out.contains(step), "{step:?} missing from:\n{out}");
    }
}
