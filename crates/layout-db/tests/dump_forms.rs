//! Every form a dump comes in (issue: "every form a dump comes in"): the
//! module Triton lowers to LLVM (attribute dictionaries before `:`), an
//! `MLIR_ENABLE_DUMP=1` log, several dumps in one file, TTIR, a dump cut
//! anywhere, an empty file, a module closed after named declarations, and
//! a file whose diagnostics would flood. Real dumps of the Triton 3.9 wheel
//! (tests/corpus/kernels, tests/vectors/triton/gen_kernel_corpus.py).

use layout_db::{Code, Database, Severity, SourceFile, check_file, kernel_summaries};

fn read(file: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../tests/corpus/kernels/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn manifest() -> Vec<serde_json::Value> {
    serde_json::from_str(&read("manifest.json")).unwrap()
}

fn check(text: &str) -> (Vec<layout_db::Diagnostic>, Vec<layout_db::KernelSummary>) {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "dump.ttgir".into(), text.to_string());
    (
        layout_db::capped_diagnostics(&check_file(&db, file).diagnostics),
        kernel_summaries(&db, file).clone(),
    )
}

fn errors(diagnostics: &[layout_db::Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{} {:?} {}", d.code.as_str(), d.span, d.message))
        .collect()
}

/// Every compiled kernel's final TTGIR checks without an error too: among
/// them AMD attention's fences, whose `#llvm.mmra_tag<"...":"...">` alias is
/// an attribute no layout reads.
#[test]
fn every_compiled_kernel_checks_without_errors() {
    let mut checked = 0;
    let mut tagged = 0;
    for k in manifest() {
        let Some(file) = k["file"].as_str() else {
            continue;
        };
        let text = read(file);
        let (diagnostics, _) = check(&text);
        assert!(
            errors(&diagnostics).is_empty(),
            "{file}: {:#?}",
            errors(&diagnostics)
        );
        tagged += usize::from(text.contains("#llvm.mmra_tag<"));
        checked += 1;
    }
    assert!(checked >= 370 && tagged >= 2, "{checked} {tagged}");
}

#[test]
fn the_module_triton_lowers_to_llvm_checks_clean() {
    let mut checked = 0;
    for k in manifest() {
        let Some(file) = k["allocated"].as_str() else {
            continue;
        };
        let (diagnostics, kernels) = check(&read(file));
        assert!(
            errors(&diagnostics).is_empty(),
            "{file}: {:#?}",
            errors(&diagnostics)
        );
        assert!(
            !diagnostics
                .iter()
                .any(|d| d.code == Code::AllocationDiffers),
            "{file}: layoutc's placement differs from Triton's"
        );
        assert_eq!(kernels[0].recorded_shared_bytes, k["shared_bytes"].as_u64());
        checked += 1;
    }
    assert!(checked >= 80);
}

#[test]
fn a_dump_log_is_read_at_its_last_tritongpu_module() {
    for (file, expected) in [
        ("cumsum_1d_sm80.dump.log", "cumsum_1d_sm80"),
        ("histogram_gfx942.dump.log", "histogram_gfx942"),
    ] {
        let text = read(file);
        let (diagnostics, kernels) = check(&text);
        assert!(
            errors(&diagnostics).is_empty(),
            "{file}: {:#?}",
            errors(&diagnostics)
        );
        let said: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.code == Code::SeveralDumps)
            .collect();
        assert_eq!(said.len(), 1, "{file}");
        assert!(
            said[0].message.contains("ConvertTritonGPUToLLVM")
                || said[0].message.contains("ConvertTritonAMDGPUToLLVM")
        );
        assert!(
            text[said[0].span.start..said[0].span.end].starts_with("// -----// IR Dump Before")
        );
        let entry = manifest()
            .into_iter()
            .find(|e| e["file"].as_str() == Some(&format!("{expected}.ttgir")))
            .unwrap();
        assert_eq!(kernels.len(), 1, "{file}");
        assert_eq!(
            Some(kernels[0].shared_bytes),
            entry["shared_bytes"].as_u64()
        );
        // Its TTIR sections (`module {`, no encodings) check clean too.
        let ttir_start = text.find("// -----// IR Dump").unwrap();
        let ttir_end =
            text[ttir_start + 10..].find("// -----// IR Dump").unwrap() + ttir_start + 10;
        let ttir = &text[ttir_start..ttir_end];
        assert!(ttir.contains("module {") || ttir.contains("module attributes"));
        let (diagnostics, _) = check(ttir);
        assert!(
            errors(&diagnostics).is_empty(),
            "TTIR of {file}: {:#?}",
            errors(&diagnostics)
        );
    }
}

#[test]
fn several_dumps_in_one_file_are_read_at_the_last() {
    let text = format!(
        "{}{}",
        read("column_sum_sm80.ttgir"),
        read("cumsum_2d_sm90.ttgir")
    );
    let (diagnostics, kernels) = check(&text);
    assert!(
        errors(&diagnostics).is_empty(),
        "{:#?}",
        errors(&diagnostics)
    );
    assert!(diagnostics.iter().any(|d| d.code == Code::SeveralDumps));
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0].name, "cumsum_2d");
    assert_eq!(kernels[0].shared_bytes, 8192);
}

#[test]
fn a_dump_cut_anywhere_says_so_and_never_floods() {
    let mut cut_inside = 0;
    for file in [
        "matmul_trans_b_sm90.ttgir",
        "row_argmax_gfx942.ttgir",
        "batched_dot_sm80.allocated.ttgir",
    ] {
        let text = read(file);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for k in (1..lines.len()).step_by(7) {
            let cut: String = lines[..k].concat();
            let (diagnostics, kernels) = check(&cut);
            assert!(diagnostics.len() <= layout_db::DIAGNOSTIC_LIMIT + 1);
            if kernels.iter().any(|s| !s.complete) {
                cut_inside += 1;
                assert!(
                    diagnostics.iter().any(|d| d.code == Code::CutDump),
                    "{file} cut after {k} lines"
                );
            }
            // A cut in the middle of a line, too.
            let half = &cut[..cut.len() - cut.lines().last().map_or(0, |l| l.len() / 2)];
            let _ = check(half);
        }
    }
    assert!(cut_inside >= 20);
}

#[test]
fn a_module_closed_after_named_declarations_is_accepted() {
    let text = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>\nlayout l = #blocked\n}\n";
    let (diagnostics, _) = check(text);
    assert!(
        errors(&diagnostics).is_empty(),
        "{:#?}",
        errors(&diagnostics)
    );
    // A stray `}` with no module open is still an error.
    let (diagnostics, _) = check(
        "layout l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n}\n",
    );
    assert_eq!(errors(&diagnostics).len(), 1);
}

#[test]
fn an_empty_file_says_it_holds_nothing() {
    for text in ["", "\n\n", "// only a comment\n"] {
        let (diagnostics, _) = check(text);
        assert_eq!(diagnostics.len(), 1, "{text:?}");
        assert_eq!(diagnostics[0].code, Code::NothingHere);
    }
}

#[test]
fn diagnostics_past_the_limit_are_counted_not_listed() {
    let text: String = (0..300).map(|i| format!("let v{i} = (\n")).collect();
    let (diagnostics, _) = check(&text);
    assert_eq!(diagnostics.len(), layout_db::DIAGNOSTIC_LIMIT + 1);
    let last = diagnostics.last().unwrap();
    assert_eq!(last.code, Code::TooManyDiagnostics);
    assert!(
        last.message.starts_with("200 more diagnostics"),
        "{}",
        last.message
    );
}

/// A scan whose tensor is not a power of two long (a dump edited by hand:
/// Triton's never are) cannot be sized: the summary says which op and why,
/// and the total is a lower bound; a call of a function the dump lacks
/// says so too.
#[test]
fn what_cannot_be_sized_says_why() {
    let text = read("cumsum_1d_sm90.ttgir").replace("tensor<1024x", "tensor<1000x");
    let (_, summaries) = check(&text);
    let u = &summaries[0].unmeasured;
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].op, "tt.scan");
    assert_eq!(
        u[0].reason,
        layout_db::UnmeasuredReason::NotPowerOfTwo(1000)
    );
    let calls = read("call_reduce_sm90.ttgir");
    let callee = calls
        .lines()
        .find(|l| l.contains("tt.func") && !l.contains("public"))
        .and_then(|l| l.split('@').nth(1))
        .and_then(|l| l.split('(').next())
        .expect("the called function")
        .to_string();
    let (_, summaries) =
        check(&calls.replace(&format!("tt.call @{callee}("), "tt.call @elsewhere("));
    let kernel = summaries.iter().find(|s| s.name == "call_reduce").unwrap();
    assert_eq!(
        kernel
            .unmeasured
            .iter()
            .map(|u| &u.reason)
            .collect::<Vec<_>>(),
        [&layout_db::UnmeasuredReason::UnknownCallee]
    );
}
