//! End-to-end tests of the real binary: exit codes, the JSON of CONTRACT §3,
//! SARIF and GitHub output, and `fmt`.

use std::path::Path;
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

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn examples_pass_and_exit_zero() {
    let o = layoutc(&["check", "examples", "--color", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).starts_with("ok: 20 files:"), "{}", stdout(&o));
}

#[test]
fn exit_codes_follow_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.lay", "check 1 + 1 == 3\n");
    assert_eq!(layoutc(&["check", &bad]).status.code(), Some(1));
    assert_eq!(
        layoutc(&["check", "no/such/file.lay"]).status.code(),
        Some(2)
    );
    assert_eq!(layoutc(&["check", "--bogus", &bad]).status.code(), Some(2));
    assert_eq!(layoutc(&["show", &bad, "nothing"]).status.code(), Some(2));
    assert_eq!(layoutc(&["--version"]).status.code(), Some(0));
    // Globs expand; one matching nothing is bad usage.
    let pattern = format!("{}/*.lay", dir.path().display());
    assert_eq!(layoutc(&["check", &pattern]).status.code(), Some(1));
    let none = format!("{}/*.nothing", dir.path().display());
    assert_eq!(layoutc(&["check", &none]).status.code(), Some(2));
    // A directory without .lay files is a mistake worth stopping CI for.
    let empty = tempfile::tempdir().unwrap();
    let empty = empty.path().display().to_string();
    assert_eq!(layoutc(&["check", &empty]).status.code(), Some(2));
}

const SHOW: &str = r#"#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
layout acc = tensor<32x8xf32, #mma>
layout t = cute ((4,2),4):((8,4),1)
layout x = xla f32[3,5]{1,0:T(2,2)}
let n = 7
let k = (1, 2)
let ok = n == 7
layout broken = invert(zeros_1d(4, "i", "o"))
"#;

#[test]
fn show_json_has_the_contract_shape() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "show.lay", SHOW);
    let o = layoutc(&["show", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "the file has an error");
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["file"], f.as_str());
    let names: Vec<&str> = j["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["#mma", "acc", "t", "x", "n", "k", "ok", "broken"]);
    let acc = &j["values"][1];
    assert_eq!(acc["kind"], "layout");
    assert_eq!(
        acc["span"],
        serde_json::json!({"start": 112, "end": 115, "line": 2, "column": 8})
    );
    // Triton 3.9's layout for this tensor.
    assert_eq!(
        acc["linear"],
        serde_json::json!({
            "ins": [
                {"name": "register", "size": 4, "bases": [[0, 1], [8, 0]]},
                {"name": "lane", "size": 32, "bases": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                {"name": "warp", "size": 2, "bases": [[16, 0]]},
                {"name": "block", "size": 1, "bases": []}
            ],
            "outs": [{"name": "dim0", "size": 32}, {"name": "dim1", "size": 8}]
        })
    );
    let t = &j["values"][2];
    assert_eq!(t["cute"]["text"], "((4,2),4):((8,4),1)");
    assert_eq!(t["cute"]["size"], 32);
    assert_eq!(t["cute"]["cosize"], 32);
    assert_eq!(
        t["cute"]["table"].as_array().unwrap()[..6],
        serde_json::json!([0, 8, 16, 24, 4, 12]).as_array().unwrap()[..]
    );
    let x = &j["values"][3];
    assert_eq!(x["xla"]["padded_elements"], 24);
    assert_eq!(
        x["xla"]["offsets"],
        serde_json::json!([0, 1, 4, 5, 8, 2, 3, 6, 7, 10, 12, 13, 16, 17, 20])
    );
    assert_eq!(j["values"][4]["int"], 7);
    assert_eq!(j["values"][5]["tuple"], "(1,2)");
    assert_eq!(j["values"][6]["bool"], true);
    let broken = &j["values"][7];
    assert!(broken.get("linear").is_none());
    let d = &j["diagnostics"][0];
    assert_eq!(d["code"], "E0304");
    let start = d["span"]["start"].as_u64().unwrap() as usize;
    assert!(SHOW[start..].starts_with("invert(zeros_1d"));
}

#[test]
fn show_text_draws_the_ownership_grid() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "show.lay", SHOW);
    let o = layoutc(&["show", &f, "acc"]);
    let text = stdout(&o);
    // Thread 0 holds (0,0), (0,1), (8,0), (8,1); thread 1 holds (0,2), (0,3).
    assert!(text.contains("   0 |  T0:0  T0:1  T1:0  T1:1"), "{text}");
    assert!(text.contains("   8 |  T0:2  T0:3  T1:2  T1:3"), "{text}");
    assert!(text.contains("  16 | T32:0 T32:1"), "{text}");
}

#[test]
fn sarif_and_github_formats() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bad.lay", "let a = 1\ncheck a == 2\n");
    let o = layoutc(&["check", &f, "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["version"], "2.1.0");
    let run = &j["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "layoutc");
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "E0401");
    assert_eq!(r["level"], "error");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(2), Some(7))
    );
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "E0401");
    // Every rule carries its documentation as help.
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains("check identity_1d(8, \"i\", \"o\")(5) == 4"),
        "{rule}"
    );
    // An absolute path is a file:// URI (a relative reference may not
    // start with `/`, SARIF1004).
    let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/bad.lay"),
        "{uri}"
    );

    let o = layoutc(&["check", &f, "--format", "github"]);
    let line = stdout(&o).replace(&f, "FILE");
    expect![[r#"
        ::error file=FILE,line=2,col=7,endLine=2,endColumn=13,title=E0401 check failed::a is 1, expected 2
        ::notice title=layoutc failed::1 file: 0 of 1 check passed, 1 error
    "#]]
    .assert_eq(&line);
}

#[test]
fn fmt_prints_checks_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "f.lay", "let   a=1 // one\ncheck a==1\n");
    let o = layoutc(&["fmt", &f]);
    assert_eq!(stdout(&o), "let a = 1 // one\ncheck a == 1\n");
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        "let   a=1 // one\ncheck a==1\n",
        "fmt alone writes nothing"
    );
    assert_eq!(layoutc(&["fmt", "--check", &f]).status.code(), Some(1));
    assert_eq!(layoutc(&["fmt", "--write", &f]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        "let a = 1 // one\ncheck a == 1\n"
    );
    assert_eq!(layoutc(&["fmt", "--check", &f]).status.code(), Some(0));
    assert_eq!(
        layoutc(&["fmt", "--check", "examples"]).status.code(),
        Some(0),
        "examples are formatted"
    );
}

/// The text outputs, as a newcomer sees them (`UPDATE_EXPECT=1` refreshes).
#[test]
fn text_output_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "snap.lay",
        "#shared = #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>\n\
         layout sm = tensor<4x8xf16, #shared>\n\
         layout t = cute (2,4):(4,1)\n\
         layout x = xla f32[3,5]{1,0:T(2,2)}\n\
         check sm(offset = 8) == (dim0 = 1, dim1 = 2)\n\
         check t(1, 1) == 5\n",
    );
    let show = stdout(&layoutc(&["show", &f, "--color", "never"])).replace(&f, "snap.lay");
    expect_test::expect_file!["snapshots/show.txt"].assert_eq(&show);
    let check = stdout(&layoutc(&["check", &f, "--color", "never"])).replace(&f, "snap.lay");
    expect_test::expect_file!["snapshots/check.txt"].assert_eq(&check);
}

#[test]
fn explain_prints_the_documented_example() {
    let o = layoutc(&["explain", "e0304"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.starts_with("E0304: layout is not injective"), "{text}");
    assert!(text.contains("invert(zeros_1d(4, \"i\", \"o\"))"), "{text}");
    assert_eq!(layoutc(&["explain", "E9999"]).status.code(), Some(2));
}

#[test]
fn convert_rejects_mismatched_tensors_with_spans() {
    // Both forms: the call and the declaration (with and without TTGIR's
    // operation pasted in front of the types).
    let dir = tempfile::tempdir().unwrap();
    let text = "#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n\
#sh = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>\n\
layout a = convert(tensor<64x64xf16, #rows>, tensor<64x32xf16, #rows>)\n\
layout b = convert(tensor<64x64xf16, #rows>, tensor<64x64xf32, #rows>)\n\
layout c = convert(tensor<64x64xf16, #rows>, tensor<64x64xf16, #sh>)\n\
check kind(3) == \"noop\"\n\
convert d = tensor<64x64xf16, #rows> -> tensor<32x64xf16, #rows>\n\
convert e = ttg.convert_layout %0 : tensor<64x64xf16, #sh> -> tensor<64x64xf16, #rows>\n\
convert f = tensor<64x64xf16, #rows> -> tensor<64x64xf16, #rows>\n\
check kind(f) == \"noop\"\n";
    let path = write(dir.path(), "bad.lay", text);
    let o = layoutc(&["check", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = j["files"][0]["diagnostics"].as_array().unwrap().clone();
    let got: Vec<(String, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["span"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [
        ("E0309", 3),
        ("E0201", 4),
        ("E0201", 5),
        ("E0201", 6),
        ("E0309", 7),
        ("E0201", 8),
        // The file names no machine, and a conversion's lowering depends on it.
        ("W0301", 9),
    ]
    .iter()
    .map(|(c, l)| (c.to_string(), *l))
    .collect();
    assert_eq!(got, want, "{}", stdout(&o));
}

#[test]
fn a_file_that_is_not_utf8_is_bad_input_not_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    // Latin-1 `é` (0xE9) in a comment at byte 42; the rest checks, and a
    // failing check after it is still found at its own byte offsets.
    let mut bytes = b"layout a = identity_1d(4, \"i\", \"o\")\n// caf".to_vec();
    bytes.push(0xE9);
    bytes.extend_from_slice(b"\ncheck a(3) == 2\n");
    let path = dir.path().join("latin1.lay");
    std::fs::write(&path, &bytes).unwrap();
    let path = path.display().to_string();
    let o = layoutc(&["check", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = j["files"][0]["diagnostics"].as_array().unwrap();
    let got: Vec<(&str, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["span"]["start"].as_u64().unwrap(),
            )
        })
        .collect();
    let check_at = bytes.windows(5).position(|w| w == b"a(3) ").unwrap() as u64;
    assert_eq!(got, [("E0002", 42), ("E0401", check_at)]);
    // show still prints its JSON, with the values.
    let o = layoutc(&["show", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["values"][0]["name"], "a");
    // fmt does not rewrite it.
    let o = layoutc(&["fmt", "--write", &path]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(dir.path().join("latin1.lay")).unwrap(), bytes);
}

#[test]
fn show_json_lists_declarations_that_do_not_parse_without_a_value() {
    let dir = tempfile::tempdir().unwrap();
    let text = "layout good = identity_1d(4, \"i\", \"o\")\nlayout bad = compose(good,\n#b = #ttg.blocked<{sizePerThread = [1, }>\nlayout after = good\n";
    let path = write(dir.path(), "broken.lay", text);
    let o = layoutc(&["show", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let values = j["values"].as_array().unwrap();
    let names: Vec<&str> = values.iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["good", "bad", "#b", "after"]);
    for v in &values[1..3] {
        assert!(v.get("linear").is_none(), "{v}");
        let start = v["span"]["start"].as_u64().unwrap() as usize;
        let name = v["name"].as_str().unwrap();
        assert!(text[start..].starts_with(name), "{name} at {start}");
    }
}

#[test]
fn a_triton_dump_checks_as_it_is_with_warnings_at_its_lines() {
    let dump = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/ttgir/transpose_sm80.ttgir"
    );
    let o = layoutc(&["check", dump, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = j["files"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["code"], "W0401");
    assert_eq!(d["span"]["line"], 61);
    // Triton allocates 8192 bytes for this kernel (k.metadata.shared) and
    // stores with st.shared, loads with ldmatrix.
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("8192 scratch bytes") && message.contains("ldmatrix"),
        "{message}"
    );
    // The kernel's Python line, from `loc(#loc19)`.
    assert_eq!(
        d["notes"][0],
        "in the kernel at tests/vectors/triton/gen_ttgir_corpus.py:132:5"
    );
}

#[test]
fn import_turns_every_dump_into_a_lay_file_that_checks() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/ttgir");
    let dir = tempfile::tempdir().unwrap();
    let mut dumps: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttgir"))
        .collect();
    dumps.sort();
    assert!(dumps.len() >= 27);
    for dump in dumps {
        let name = dump.file_stem().unwrap().to_string_lossy().to_string();
        let out = dir.path().join(format!("{name}.lay"));
        let o = layoutc(&[
            "import",
            dump.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{name}");
        let lay = std::fs::read_to_string(&out).unwrap();
        let dump_text = std::fs::read_to_string(&dump).unwrap();
        // One analysed line per conversion and shared-memory access.
        let count = |text: &str| {
            text.lines()
                .filter(|l| {
                    !l.trim_start().starts_with("//")
                        && ["convert_layout", "local_alloc", "local_store", "local_load"]
                            .iter()
                            .any(|op| l.contains(&format!("ttg.{op} ")))
                })
                .count()
        };
        assert_eq!(count(&lay), count(&dump_text), "{name}");
        // The analysis comments say where each came from.
        assert!(
            !lay.contains("has errors") && lay.matches("// dump line").count() >= count(&lay),
            "{name}"
        );
        let o = layoutc(&["check", out.to_str().unwrap(), "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
    }
    // The transpose's conversion, as Triton compiles it: 8192 bytes.
    let lay = std::fs::read_to_string(dir.path().join("transpose_sm80.lay")).unwrap();
    assert!(
        lay.contains("gen_ttgir_corpus.py:132:5: convert shared (16 bits): 8192 scratch bytes")
    );
}

#[test]
fn import_of_hlo_text_lists_every_array_with_its_padding() {
    let hlo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/hlo/convert_bf16.hlo"
    );
    let o = layoutc(&["import", hlo]);
    assert_eq!(o.status.code(), Some(0));
    let lay = stdout(&o);
    let lines: Vec<&str> = lay.lines().filter(|l| l.starts_with("layout ")).collect();
    // Four distinct arrays (f32[1000,300] appears three times); seed 001:
    // 300 columns pad to 384 in (8,128) tiles, f32[3,5] to 4x6 in (2,2),
    // pred[8,8,8] to 8 x (8,128) with 32-bit elements.
    expect![[r#"
        layout a0 = xla f32[1000,300]{1,0:T(8,128)} // line 1: 300000 elements, 384000 with padding (+28.0%), 1536000 bytes
        layout a1 = xla bf16[1000,300]{1,0:T(8,128)(2,1)} // line 1: 300000 elements, 384000 with padding (+28.0%), 768000 bytes
        layout a2 = xla pred[8,8,8]{0,2,1:T(8,128)E(32)} // line 5: 512 elements, 8192 with padding (+1500.0%), 32768 bytes
        layout a3 = xla f32[3,5]{1,0:T(2,2)} // line 6: 15 elements, 24 with padding (+60.0%), 96 bytes"#]]
    .assert_eq(&lines.join("\n"));
    let dir = tempfile::tempdir().unwrap();
    let out = write(dir.path(), "hlo.lay", &lay);
    assert_eq!(layoutc(&["check", &out]).status.code(), Some(0));
}

#[test]
fn show_json_gives_a_padded_layouts_offsets_with_the_padding() {
    // pad_05 of tests/vectors/triton/shared_encodings.json (Triton 3.9: the
    // offsets checked against a compiled kernel's stores).
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/vectors/triton/shared_encodings.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "pad_05_identity_8x16_8p1_16p2")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "layout p = tensor<8x16xf16, {}>\n",
        case["ttgir"].as_str().unwrap()
    );
    let path = write(dir.path(), "padded.lay", &text);
    let o = layoutc(&["show", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let v = &j["values"][0];
    // Not a linear layout: its offsets are padded.
    assert!(v.get("linear").is_none(), "{v}");
    assert_eq!(v["padded"]["offsets"], case["padded_offsets"]);
    assert_eq!(v["padded"]["alloc_elements"], case["alloc_elements"]);
}

#[test]
fn a_binary_is_one_error_not_a_flood() {
    let dir = tempfile::tempdir().unwrap();
    // 100 KB of bytes from a fixed generator (xorshift): mostly not UTF-8.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..100_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect();
    let path = dir.path().join("random.ttgir");
    std::fs::write(&path, &bytes).unwrap();
    let path = path.display().to_string();
    let o = layoutc(&["check", &path, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = j["files"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["code"], "E0002");
    assert!(diags[0]["message"].as_str().unwrap().contains("binary"));
    let o = layoutc(&["check", &path]);
    assert!(stdout(&o).len() + String::from_utf8_lossy(&o.stderr).len() < 2000);
}

#[test]
fn a_log_section_is_chosen_by_pass_or_number() {
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/kernels/cumsum_1d_sm80.dump.log"
    );
    // By default the last TritonGPU module: the scan's 32 bytes (Triton's
    // allocation is already in it).
    let o = layoutc(&["show", log, "--format", "json"]);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["kernels"][0]["shared_bytes"], 32);
    assert_eq!(j["kernels"][0]["triton_shared_bytes"], 32);
    // The module before the first layout cleanup: no allocation recorded yet.
    let o = layoutc(&[
        "show",
        log,
        "--section",
        "TritonGPURemoveLayoutConversions",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["kernels"][0]["shared_bytes"], 32);
    assert!(j["kernels"][0].get("triton_shared_bytes").is_none());
    let said = j["diagnostics"][0]["message"].as_str().unwrap();
    assert!(said.contains("as asked"), "{said}");
    // A pass the log does not have is bad usage, with the passes it has.
    let o = layoutc(&["check", log, "--section", "NoSuchPass"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ConvertTritonGPUToLLVM"), "{err}");
    let o = layoutc(&["check", log, "--section", "999"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Two local loads whose reads gfx942 pairs (an unrolled convolution's two
/// stages of weights): the first names the paired reads, the second says
/// it reads with them, in JSON (`read_with`) and in text.
#[test]
fn show_names_reads_paired_across_two_loads_on_the_first() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/kernels/conv_implicit_gemm_bf16_gfx942.ttgir"
    );
    let j: Value =
        serde_json::from_str(&stdout(&layoutc(&["show", file, "--format", "json"]))).unwrap();
    let ops = j["kernels"][0]["ops"].as_array().unwrap();
    let second = ops.iter().find(|o| o.get("read_with").is_some()).unwrap();
    assert_eq!(second["instructions"], serde_json::json!([]));
    let first = ops
        .iter()
        .find(|o| o["line"] == second["read_with"])
        .unwrap();
    assert_eq!(first["instructions"][0]["mnemonic"], "ds_read2st64_b64");
    assert_eq!(first["instructions"][0]["count"], 8);
    let text = stdout(&layoutc(&["show", file]));
    let line = format!("read by line {}'s paired reads", second["read_with"]);
    assert_eq!(text.matches(&line).count(), 1, "{text}");
}

/// Two local stores whose writes gfx942 pairs (attention backward's Q and
/// dO tiles, two buffers each, picked by the loop's one index): in JSON
/// (`written_with`) and in text, before the loop and in it.
#[test]
fn show_names_writes_paired_across_two_stores_on_the_first() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/kernels/attention_backward_staged_stores_gfx942.ttgir"
    );
    let j: Value =
        serde_json::from_str(&stdout(&layoutc(&["show", file, "--format", "json"]))).unwrap();
    let ops = j["kernels"][0]["ops"].as_array().unwrap();
    let seconds: Vec<_> = ops
        .iter()
        .filter(|o| o.get("written_with").is_some())
        .collect();
    assert_eq!(seconds.len(), 3);
    let text = stdout(&layoutc(&["show", file]));
    for second in seconds {
        assert_eq!(second["op"], "ttg.local_store");
        assert_eq!(second["instructions"], serde_json::json!([]));
        assert!(second.get("read_with").is_none());
        let first = ops
            .iter()
            .find(|o| o["line"] == second["written_with"])
            .unwrap();
        assert_eq!(first["instructions"][0]["mnemonic"], "ds_write2st64_b64");
        assert_eq!(first["instructions"][0]["count"], 1);
        let line = format!("written by line {}'s paired writes", second["written_with"]);
        assert_eq!(text.matches(&line).count(), 1, "{text}");
    }
}

#[test]
fn show_places_calls_warp_specialisation_and_partitioned_pieces_as_triton_does() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/kernels/");
    // Two tensors cut in two pieces each on gfx1250: every piece in a
    // partition of its own, at Triton's offsets.
    let file = format!("{corpus}partitioned_pair_gfx1250.allocated.ttgir");
    let o = layoutc(&["show", &file, "--format", "json"]);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let kernel = &j["kernels"][0];
    assert_eq!(kernel["shared_bytes"], 98304);
    assert_eq!(kernel["triton_shared_bytes"], 98304);
    for op in kernel["ops"].as_array().unwrap() {
        assert_eq!(
            op["partition_offsets"], op["triton_partition_offsets"],
            "{op}"
        );
    }
    assert_eq!(
        kernel["ops"][1]["partition_offsets"],
        serde_json::json!([16384, 81920])
    );
    let text = stdout(&layoutc(&["show", &file]));
    assert!(text.contains("32768 B at 16384 + 81920"), "{text}");
    // A call: the callee's bytes at the call, the callee summarised too.
    let file = format!("{corpus}call_reduce_sm90.allocated.ttgir");
    let j: Value =
        serde_json::from_str(&stdout(&layoutc(&["show", &file, "--format", "json"]))).unwrap();
    let call = j["kernels"][0]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "tt.call")
        .unwrap();
    assert_eq!(call["kind"], "call");
    assert_eq!(call["shared_bytes"], j["kernels"][1]["shared_bytes"]);
    assert_eq!(call["shared_bytes"], call["triton_size"]);
    // Warp specialisation: no difference from Triton's allocation is warned.
    let file = format!("{corpus}matmul_ws_sm90.allocated.ttgir");
    let o = layoutc(&["check", &file, "--format", "json"]);
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let diags = j["files"][0]["diagnostics"].as_array().unwrap();
    assert!(diags.iter().all(|d| d["code"] != "W0404"), "{diags:#?}");
}
