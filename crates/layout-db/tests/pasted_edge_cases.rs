//! Pasted text at the edges: each input gives the diagnostic that says what
//! is wrong (never an internal error), and the answers that depend on the
//! details (padding inside a vector, SSA names reused across functions,
//! region closers after a pasted operation) are right.

use layout_db::{Database, Severity, SourceFile, Value, check_file, named_values};

fn codes(src: &str) -> Vec<&'static str> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "edge.lay".into(), src.into());
    check_file(&db, file)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code.as_str())
        .collect()
}

fn int(src: &str, name: &str) -> i64 {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "edge.lay".into(), src.into());
    match named_values(&db, file).into_iter().find(|v| v.name == name) {
        Some(layout_db::NamedValue {
            value: Some(Value::Int(n)),
            ..
        }) => n,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn odd_encodings_are_refused_with_their_reason() {
    let cases = [
        (
            "#s = #ttg.padded_shared<[32:+4] {order = [], shape = []}>\n",
            "E0306",
        ),
        (
            "layout t = tensor<f16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>\n",
            "E0203",
        ),
        (
            "layout p = tensor<8xf16, #ttg.partitioned_shared<{numPartitions = 65536, numGroups = 65536, partitionDim = 0, partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>}>>\n",
            "E0308",
        ),
        (
            "#smem = #ttg.shared_memory\nlayout m = !ttg.memdesc<2x3x64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #smem>\n",
            "E0203",
        ),
        ("layout s = cute Sw<4294967299,4,3>\n", "E0312"),
    ];
    for (src, code) in cases {
        assert_eq!(codes(src), [code], "{src}");
    }
}

const PADDED: &str = "target = sm80
#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#pad = #ttg.padded_shared<[4:+4] {order = [1, 0], shape = [32, 8]}>
";

#[test]
fn a_vector_never_crosses_padding() {
    // Eight fp16 per lane, but padding after every 4: two 8-byte vectors.
    let src =
        format!("{PADDED}let v = vectorisation(tensor<32x8xf16, #rows>, tensor<32x8xf16, #pad>)\n");
    assert_eq!(int(&src, "v"), 4);
    // ldmatrix rows are 8 elements: padding inside a row rules it out.
    let src = format!(
        "{PADDED}let x = wavefronts(tensor<32x8xf16, #rows>, tensor<32x8xf16, #pad>, 16, \"load\", \"ldmatrix\")\n"
    );
    assert_eq!(codes(&src), ["E0201"]);
}

#[test]
fn instruction_names_are_read_exactly() {
    for (instruction, code) in [
        ("ldmatrix.x3", "E0201"),
        ("ldmatrixfoo", "E0201"),
        ("st.shared", "E0201"),
    ] {
        let src = format!(
            "{PADDED}let x = wavefronts(tensor<32x8xf16, #rows>, tensor<32x8xf16, #pad>, 16, \"load\", \"{instruction}\")\n"
        );
        assert_eq!(codes(&src), [code], "{instruction}");
    }
    // sm80 has no stmatrix.
    let src = format!(
        "{PADDED}let x = wavefronts(tensor<32x8xf16, #rows>, tensor<32x8xf16, #pad>, 16, \"store\", \"stmatrix\")\n"
    );
    assert_eq!(codes(&src), ["E0201"]);
}

#[test]
fn pasted_operations_may_close_regions_and_reuse_ssa_names() {
    let src = "target = sm80
#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
  tt.func @f() {
    %0 = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #s, #smem> -> tensor<64x64xf16, #b>
  }
  tt.func @g() {
    scf.for %i = %c0 to %c4 step %c1  : i32 {
      ttg.local_store %x, %buf : tensor<64x64xf16, #b> -> !ttg.memdesc<64x64xf16, #s, #smem, mutable> loc(#loc3)
    } loc(#loc4)
    %0 = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #s, #smem> -> tensor<64x64xf16, #b>
  }
layout q = 3
}
";
    // Only the `}` after a .lay declaration is an error.
    assert_eq!(codes(src), ["E0001"]);
    // Each warp loads 1024 fp16 (2 KiB) in 16-byte vectors, conflict-free
    // under the 128-byte swizzle: 16 wavefronts.
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "edge.lay".into(), src.into());
    let values = named_values(&db, file);
    let loads: Vec<_> = values.iter().filter(|v| v.name == "%0").collect();
    assert_eq!(loads.len(), 2);
    for load in loads {
        let Some(Value::Access(a)) = &load.value else {
            panic!("{load:?}")
        };
        assert_eq!(
            (a.instruction.to_string().as_str(), a.wavefronts),
            ("ld.shared.v4.b32", 16)
        );
    }
}

#[test]
fn both_sides_of_and_or_are_checked() {
    assert_eq!(codes("check 1 == 1 or undefined_thing\n"), ["E0101"]);
    assert_eq!(codes("check 1 == 2 and undefined_thing\n"), ["E0101"]);
}

#[test]
fn a_linear_encoding_as_ttgir_prints_it_fits_a_smaller_tensor() {
    // From a gfx950 flash-attention dump: `#linear1` (no `shape`, as TTGIR
    // prints it) on a 64x1 tensor. The Triton 3.9 wheel's
    // to_linear_layout(..., [64, 1]) gives these bases (zero register
    // bases dropped, layoutc's canonical form).
    let src = "module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32}
#linear1 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = [[0, 0], [0, 0]], block = []}>
layout t = tensor<64x1xi32, #linear1>
check t == linear { register: [[32, 0]], lane: [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0]], warp: [[0, 0], [0, 0]], block: [] } -> [dim0: 64, dim1: 1]
";
    assert_eq!(codes(src), Vec::<&str>::new());
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "edge.lay".into(), src.into());
    assert_eq!(check_file(&db, file).checks_passed, 1);
}
