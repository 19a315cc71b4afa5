//! Hand-checkable answers of `solve` blocks, through the language:
//! Triton's legacy dot-operand swizzles, the 128-byte TMA mode, the 16x32
//! fp32 transpose ("XOR by 2*row", not by row), an AMD gfx942 case and the
//! TPU tiling of CONTRACT §4. Each answer is also used in the file, where
//! `check`s re-measure it by enumeration.

use layout_db::value::{SolveKind, SolveOutcome};
use layout_db::{Database, SourceFile, Value, check_file, named_values};
use layout_solve::Status;

/// The solve blocks of `text` by name, after checking the file is clean.
fn solve(text: &str) -> Vec<(String, SolveOutcome)> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "golden.lay".into(), text.into());
    let report = check_file(&db, file);
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    named_values(&db, file)
        .into_iter()
        .filter_map(|v| match v.value {
            Some(Value::Solve(s)) => Some((v.name, *s)),
            _ => None,
        })
        .collect()
}

fn notation(s: &SolveOutcome, key: &str) -> String {
    let SolveKind::Swizzle(w) = &s.kind else {
        panic!("not a swizzle")
    };
    w.notations
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key} notation in {:?}", w.notations))
        .1
        .clone()
}

#[test]
fn legacy_fp16_dot_operand_swizzles() {
    let text = r#"
target = sm80
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_a1 = #ttg.dot_op<{opIdx = 0, parent = #mma1, kWidth = 2}>
#load64 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#load32 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#load16 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
solve a128x64 {
    kind = swizzle
    write = tensor<128x64xf16, #load64>
    read = tensor<128x64xf16, #dot_a>
    family = triton
    instructions = matrix
}
solve a128x32 {
    kind = swizzle
    write = tensor<128x32xf16, #load32>
    read = tensor<128x32xf16, #dot_a>
    family = triton
    instructions = matrix
}
solve a16x16 {
    kind = swizzle
    write = tensor<16x16xf16, #load16>
    read = tensor<16x16xf16, #dot_a1>
    family = triton
    instructions = matrix
}
check wavefronts(tensor<128x64xf16, #dot_a>, a128x64, 16, "load", "ldmatrix.x4") == 32
check bank_conflicts(tensor<128x64xf16, #load64>, a128x64, 16) == 0
"#;
    let solved = solve(text);
    let expect = [
        ("a128x64", "vec = 8, perPhase = 1, maxPhase = 8"),
        ("a128x32", "vec = 8, perPhase = 2, maxPhase = 4"),
        ("a16x16", "vec = 8, perPhase = 4, maxPhase = 2"),
    ];
    for ((name, s), (want_name, params)) in solved.iter().zip(expect) {
        assert_eq!(name, want_name);
        assert_eq!(s.status, Status::Optimal, "{name}: {}", s.why);
        assert_eq!(
            notation(s, "triton"),
            format!("#ttg.swizzled_shared<{{{params}, order = [1, 0]}}>"),
            "{name}"
        );
    }
}

#[test]
fn tma_128_byte_mode_for_a_64_column_fp16_tile() {
    let text = r#"
target = sm90
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#load = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
solve tile {
    kind = swizzle
    write = tensor<128x64xf16, #load>
    read = tensor<128x64xf16, #dot_a>
    family = nvmma
    instructions = matrix
}
check bank_conflicts(tensor<128x64xf16, #load>, tile, 16) == 0
"#;
    let solved = solve(text);
    let s = &solved[0].1;
    assert_eq!(s.status, Status::Optimal);
    assert_eq!(
        notation(s, "nvmma"),
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    );
    // The same layout is CuTe's 128-byte swizzle of 16-bit elements.
    assert_eq!(notation(s, "cute"), "Sw<3,3,3> o (128,64):(64,1)");
}

#[test]
fn transpose_in_one_warp_xors_by_twice_the_row() {
    let text = r#"
target = sm80
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>
solve t {
    kind = swizzle
    write = tensor<16x32xf32, #rows>
    read = tensor<16x32xf32, #cols>
}
// XOR by row leaves a 2-way read conflict; by 2*row none.
check wavefronts(tensor<16x32xf32, #cols>, tensor<16x32xf32, #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>>) == 64
check wavefronts(tensor<16x32xf32, #cols>, tensor<16x32xf32, #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>>) == 32
check wavefronts(tensor<16x32xf32, #cols>, t) == 32
check wavefronts(tensor<16x32xf32, #rows>, t) == 16
"#;
    let solved = solve(text);
    let s = &solved[0].1;
    assert_eq!(s.status, Status::Optimal, "{}", s.why);
    let SolveKind::Swizzle(w) = &s.kind else {
        panic!()
    };
    assert_eq!((w.write_conflicts, w.read_conflicts), (0, 0));
    assert_eq!((w.write_wavefronts, w.read_wavefronts), (16, 32));
}

#[test]
fn gfx942_ds_read_b128_operand_is_conflict_free() {
    let text = r#"
target = gfx942
#mfma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
#dot_b = #ttg.dot_op<{opIdx = 1, parent = #mfma, kWidth = 8}>
#load = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
solve b {
    kind = swizzle
    write = tensor<64x128xf16, #load>
    read = tensor<64x128xf16, #dot_b>
}
check wavefronts(tensor<64x128xf16, #dot_b>, b, 16, "load", "ds_read_b128") == wavefronts(tensor<64x128xf16, #dot_b>, b, 16, "load")
"#;
    let solved = solve(text);
    let s = &solved[0].1;
    let SolveKind::Swizzle(w) = &s.kind else {
        panic!()
    };
    assert_eq!(s.status, Status::Optimal, "{}", s.why);
    assert_eq!((w.write_conflicts, w.read_conflicts), (0, 0), "{w:?}");
    assert!(
        w.accesses[1].instruction.to_string() == "ds_read_b128",
        "{w:?}"
    );
}

#[test]
fn tpu_tiling_of_the_contract() {
    let text = r#"
solve tpu {
    kind = tiling
    array = xla bf16[1000,300]
    target = tpu
}
check tpu == xla bf16[1000,300]{0,1:T(8,128)(2,1)}
"#;
    let solved = solve(text);
    let s = &solved[0].1;
    let SolveKind::Tiling(t) = &s.kind else {
        panic!()
    };
    let x = t.answer.as_ref().unwrap();
    assert_eq!(x.to_string(), "bf16[1000,300]{0,1:T(8,128)(2,1)}");
    assert_eq!((x.padded_elements(), x.padded_bytes()), (311296, 622592));
    assert_eq!(s.status, Status::Optimal);
}

/// Every Triton notation of an answer, pasted back as a tensor type, is the
/// answer (`linear` is `#ttg.shared_linear`).
#[test]
fn notations_read_back_to_the_answer() {
    let head = r#"target = sm90
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
"#;
    let mut checked = 0;
    for (shape, read) in [
        ("64x64", "#dot_a"),
        ("128x64", "#dot_a"),
        ("64x128", "#dot_b"),
    ] {
        for family in ["linear", "triton", "nvmma"] {
            let text = format!(
                "{head}solve s {{\n    kind = swizzle\n    write = tensor<{shape}xf16, #blocked>\n    read = tensor<{shape}xf16, {read}>\n    family = {family}\n    instructions = best\n}}\n"
            );
            let solved = solve(&text);
            let SolveKind::Swizzle(w) = &solved[0].1.kind else {
                panic!()
            };
            let mut checks = String::new();
            for (key, notation) in &w.notations {
                if key != "cute" {
                    checks += &format!("check s == tensor<{shape}xf16, {notation}>\n");
                    checked += 1;
                }
            }
            // `solve` asserts the file checks clean: every check holds.
            solve(&format!("{text}{checks}"));
        }
    }
    assert!(checked >= 15, "{checked}");
}

/// `fixed` pins offset bases: the answer keeps them (its `#ttg.shared_linear`
/// starts with them) and costs what the pin forces.
#[test]
fn fixed_bases_are_kept_and_cost_what_they_force() {
    let text = |fixed: &str| {
        format!(
            r#"target = sm90
#rows = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>
solve s {{
    kind = swizzle
    write = tensor<64x64xf16, #rows>
{fixed}}}
"#
        )
    };
    let free = &solve(&text(""))[0].1;
    let pinned = &solve(&text("    fixed = [[1, 0]]\n"))[0].1;
    let (SolveKind::Swizzle(f), SolveKind::Swizzle(p)) = (&free.kind, &pinned.kind) else {
        panic!()
    };
    let linear = notation(pinned, "linear");
    assert!(
        linear.starts_with("#ttg.shared_linear<{offset = [[1, 0], "),
        "{linear}"
    );
    // Rows at consecutive offsets: no vector along the row any more.
    assert_eq!(f.write_wavefronts, 16);
    assert!(p.write_wavefronts > f.write_wavefronts, "{p:?}");
    assert_eq!(pinned.status, Status::Optimal, "{}", pinned.why);
}

/// The cute family over a base the user gives: a column-major tile read by
/// column-contiguous loads gets the 128-byte swizzle over that base.
#[test]
fn cute_family_over_a_given_base() {
    let text = r#"target = sm80
#cols = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#dot_b = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
solve tile {
    kind = swizzle
    write = tensor<64x64xf16, #cols>
    read = tensor<64x64xf16, #dot_b>
    family = cute
    base = cute (64,64):(1,64)
    instructions = matrix
}
check bank_conflicts(tensor<64x64xf16, #cols>, tile, 16) == 0
"#;
    let solved = solve(text);
    let s = &solved[0].1;
    assert_eq!(s.status, Status::Optimal, "{}", s.why);
    let cute = notation(s, "cute");
    assert!(cute.ends_with(" o (64,64):(1,64)"), "{cute}");
    let SolveKind::Swizzle(w) = &s.kind else {
        panic!()
    };
    assert_eq!((w.write_conflicts, w.read_conflicts), (0, 0), "{w:?}");

    // A base that is not a bijection built from its strides is refused.
    let mut db = Database::default();
    let bad = text.replace("base = cute (64,64):(1,64)", "base = cute (64,64):(1,65)");
    let file = SourceFile::open(&mut db, "bad.lay".into(), bad);
    let report = check_file(&db, file);
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.message.contains("is not a bijection")),
        "{:#?}",
        report.diagnostics
    );
}

/// A tile-size search too large to list: Z3 proves the least padding. The
/// answer is derived by hand in examples/solve_tpu.lay (1531 is prime).
#[test]
fn tile_size_search_by_z3() {
    let text = "\
solve ragged {
    kind = tiling
    array = xla f32[1531,2047]
    tile_multiple = [1, 128]
    min_tile_elements = 16384
    max_tile_elements = 131072
}
check ragged == xla f32[1531,2047]{1,0:T(383,128)}
";
    let solved = solve(text);
    let outcome = &solved[0].1;
    assert_eq!(outcome.status, Status::Optimal, "{}", outcome.why);
    assert!(outcome.why.contains("Z3 proved"), "{}", outcome.why);
}
