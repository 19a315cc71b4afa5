//! The wavefronts layoutc counts are the ones an H100 serves.
//!
//! `tests/vectors/triton/hw_sm90_wavefronts.json` (and `hw_sm90_answers.json`,
//! today's answers run on an H200) holds, for every pair of
//! the swizzle corpus that Triton lowers through shared memory, kernels the
//! Triton 3.9 wheel compiled for sm90 around layoutc's answers (the linear,
//! triton and padded families): a store of the source layout into the shared
//! layout and a load of the destination layout out of it. Each was run once,
//! one CTA, on an NVIDIA H100 under Nsight Compute, which counted the
//! shared-memory wavefronts of every warp
//! (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st` / `_op_ld`).
//!
//! Here each kernel is pasted as TTGIR (`local_alloc`, `local_store`,
//! `local_load`) and analysed as a dump: the instruction layoutc says Triton
//! emits must be in the kernel's PTX, and its wavefronts times the warps must
//! be what the hardware counted. Where the totals differ, the kernel was
//! rebuilt from its recorded layout and read again per SASS instruction on
//! an H200 (`gen_hw_kernels.py --rebuild`, `measure_hw_sass.sh`:
//! `sass_runs`), and those counts must be layoutc's. The differences left
//! are printed by which way they go; the count of agreements may only grow.
//!
//! Padded answers whose padding is not a whole number of the vectors Triton
//! emits faulted on the H100 (a misaligned address); the model must say
//! which ones do.

use std::collections::BTreeMap;

use layout_algebra::bank::{Direction, Instruction};
use layout_db::{Database, SourceFile, Value, item_values};
use layout_test_support::SassRun;
use serde_json::Value as Json;

fn vectors(name: &str) -> Json {
    layout_test_support::vectors(&format!("triton/{name}"))
}

fn element(bits: u64) -> &'static str {
    match bits {
        8 => "i8",
        16 => "f16",
        32 => "f32",
        64 => "f64",
        _ => panic!("{bits}-bit elements"),
    }
}

/// The swizzle corpus's pairs by name: their layouts as TTGIR prints them.
fn corpus_pairs() -> BTreeMap<String, Json> {
    let corpus = vectors("swizzle_corpus.json");
    corpus["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p.clone()))
        .collect()
}

/// The kernel's shared-memory traffic as a pasted dump.
fn dump(kernel: &Json, pair: &Json) -> String {
    let dims: Vec<String> = kernel["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.to_string())
        .collect();
    let ty = format!(
        "{}x{}",
        dims.join("x"),
        element(kernel["bits"].as_u64().unwrap())
    );
    let memdesc = format!("!ttg.memdesc<{ty}, #shared, #smem, mutable>");
    format!(
        "#src = {src}\n#dst = {dst}\n#shared = {shared}\n#smem = #ttg.shared_memory\n\
         module attributes {{\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = {warps} : i32, ttg.target = \"cuda:90\", \"ttg.threads-per-warp\" = 32 : i32}} {{\n\
         %buf = ttg.local_alloc : () -> {memdesc}\n\
         ttg.local_store %x, %buf : tensor<{ty}, #src> -> {memdesc}\n\
         %y = ttg.local_load %buf : {memdesc} -> tensor<{ty}, #dst>\n}}\n",
        src = pair["src_ttgir"].as_str().unwrap(),
        dst = pair["dst_ttgir"].as_str().unwrap(),
        shared = kernel["shared_ttgir"].as_str().unwrap(),
        warps = kernel["num_warps"],
    )
}

/// Which way the model and the hardware differ, for an access whose counts
/// per SASS instruction are not layoutc's either.
fn cause(model: u64, measured: u64) -> &'static str {
    if measured < model {
        "fewer on the hardware"
    } else {
        "more on the hardware"
    }
}

/// How layoutc's counts compare with a measured file's answers.
struct Agreement {
    counted: usize,
    agree: usize,
    /// Accesses whose totals differ but whose count per SASS instruction
    /// (measure_hw_sass.sh) is layoutc's.
    per_instruction: usize,
    wrong_instruction: Vec<String>,
    differences: BTreeMap<&'static str, Vec<String>>,
}

fn agreement(file: &str) -> Agreement {
    let hw = vectors(file);
    let pairs = corpus_pairs();
    let kernels: Vec<&Json> = hw["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["kind"] != "own" && k.get("hw").is_some())
        .collect();
    assert!(kernels.len() >= 700, "{} answer kernels", kernels.len());
    let mut out = Agreement {
        counted: 0,
        agree: 0,
        per_instruction: 0,
        wrong_instruction: Vec::new(),
        differences: BTreeMap::new(),
    };
    for k in &kernels {
        let name = format!(
            "{}.{}",
            k["pair"].as_str().unwrap(),
            k["kind"].as_str().unwrap()
        );
        let warps = k["num_warps"].as_u64().unwrap();
        let opcodes = &k["ptx_shared_opcodes"];
        let reports = accesses(&name, dump(k, &pairs[k["pair"].as_str().unwrap()]));
        assert_eq!(reports.len(), 2, "{name}: store and load");
        for a in reports {
            out.counted += 1;
            let (metric, what) = match a.direction {
                Direction::Store => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st", "store"),
                Direction::Load => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "load"),
            };
            let mnemonic = a.instruction.to_string();
            if opcodes[mnemonic.as_str()].as_u64().unwrap_or(0) == 0 {
                out.wrong_instruction
                    .push(format!("{name} {what}: {mnemonic}, PTX has {opcodes}"));
                continue;
            }
            let model = a.wavefronts * warps;
            let measured = k["hw"][metric].as_u64().unwrap();
            let runs: Vec<SassRun> = k
                .get("sass_runs")
                .map(|r| serde_json::from_value(r.clone()).unwrap())
                .unwrap_or_default();
            let store = a.direction == Direction::Store;
            if model == measured {
                out.agree += 1;
            } else if !runs.is_empty()
                && runs
                    .iter()
                    .all(|r| r.wavefronts_past_exits(store, warps) == model)
            {
                // Per SASS instruction the GPU's count is layoutc's: the
                // totals differ by loads of warps that exit early and by
                // wavefronts of no instruction.
                out.per_instruction += 1;
            } else {
                out.differences
                    .entry(cause(model, measured))
                    .or_default()
                    .push(format!(
                        "{name} {what}: {mnemonic}, {model} counted, {measured} measured"
                    ));
            }
        }
    }
    eprintln!(
        "{file}: {} of {} accesses cost what the GPU measured, {} more per SASS instruction",
        out.agree, out.counted, out.per_instruction
    );
    for (cause, list) in &out.differences {
        eprintln!("{cause}: {}", list.len());
        for d in list.iter().take(5) {
            eprintln!("  {d}");
        }
    }
    for w in &out.wrong_instruction {
        eprintln!("instruction: {w}");
    }
    out
}

/// The answers of an earlier solver (padded ones that faulted left out).
#[test]
fn answers_cost_on_an_h100_what_layoutc_says() {
    let a = agreement("hw_sm90_wavefronts.json");
    // FIXME: two padded loads Triton emits as scalars where layoutc counts a
    // vector. Triton's `largestVectorisation` forbids reordering registers
    // when the layout is padded and wants every other basis clear of the
    // vector's low bits; LLVM's LoadStoreVectorizer then re-widens what it
    // can prove aligned, which layoutc models as "the widest run the lane
    // owns, in any order". These are where LLVM did not re-widen: when it
    // does is not modelled (a stricter rule loses many more accesses).
    assert_eq!(a.wrong_instruction.len(), 2, "{:#?}", a.wrong_instruction);
    // Every other access: the measured wavefronts, exactly, for at least
    // this many (95.7%); all but one of the rest per SASS instruction (the
    // GPU's totals also hold loads that warps holding copies skip by
    // exiting early, and wavefronts of no instruction, which vary from run
    // to run). The one: a padded load the dump counts as 32 x
    // `ld.shared.v2.b64` where LLVM split one of them in two (512
    // wavefronts counted, 508 per instruction).
    assert!(
        a.agree >= 1386,
        "{} of {}: {:#?}",
        a.agree,
        a.counted,
        a.differences
    );
    assert!(a.agree + a.per_instruction >= 1445, "{:#?}", a.differences);
}

/// Today's answers (every padded one aligned), measured on an H200 (the
/// same sm90 shared memory): none faulted, and their counts hold.
#[test]
fn todays_answers_run_and_cost_on_an_h200_what_layoutc_says() {
    let hw = vectors("hw_sm90_answers.json");
    let kernels = hw["kernels"].as_array().unwrap();
    let padded = kernels.iter().filter(|k| k["kind"] == "padded").count();
    let faulted: Vec<_> = kernels
        .iter()
        .filter(|k| k.get("fault").is_some())
        .collect();
    assert!(padded >= 300, "{padded} padded answers");
    assert!(faulted.is_empty(), "{faulted:#?}");
    let a = agreement("hw_sm90_answers.json");
    // FIXME: 14 accesses (12 of them into padded layouts) where Triton or
    // LLVM emit narrower vectors than layoutc counts: Triton's narrowing
    // (no register reordering under padding, other bases clear of the
    // vector's low bits) that LLVM's LoadStoreVectorizer did not undo, as
    // in the test above.
    assert_eq!(a.wrong_instruction.len(), 14, "{:#?}", a.wrong_instruction);
    // 94.8% exactly; all but one of the rest per SASS instruction, as
    // above. The one: a store counted as `st.shared.v4.b16` that LLVM
    // emits as 4 of those and 56 `st.shared.v2.b16` (the dump's rule for
    // vectors, as above).
    assert!(
        a.agree >= 1752,
        "{} of {}: {:#?}",
        a.agree,
        a.counted,
        a.differences
    );
    assert!(a.agree + a.per_instruction >= 1833, "{:#?}", a.differences);
}

/// The accesses layoutc sees in a kernel's pasted dump.
fn accesses(name: &str, text: String) -> Vec<layout_db::value::AccessReport> {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, format!("{name}.ttgir"), text);
    item_values(&db, file)
        .into_iter()
        .filter_map(|(_, v)| match v {
            Some(Value::Access(a)) => Some(*a),
            _ => None,
        })
        .collect()
}

#[test]
fn the_padded_layouts_that_fault_on_an_h100_are_the_misaligned_ones() {
    let hw = vectors("hw_sm90_wavefronts.json");
    let pairs = corpus_pairs();
    let (mut faulted, mut ran, mut wrong) = (0, 0, Vec::new());
    for k in hw["kernels"].as_array().unwrap() {
        if k["kind"] != "padded" {
            continue;
        }
        let name = format!("{}.padded", k["pair"].as_str().unwrap());
        let fault = k.get("fault").is_some();
        if fault {
            faulted += 1;
        } else {
            ran += 1;
        }
        // A vector is misaligned when some padding is not a whole number
        // of it: the vectors after that padding start off their boundary.
        let misaligned = accesses(&name, dump(k, &pairs[k["pair"].as_str().unwrap()]))
            .iter()
            .any(|a| {
                let bits = match a.instruction.instruction {
                    Instruction::LdSt { bits } | Instruction::Paired { bits, .. } => bits,
                    Instruction::Matrix { .. } => 128,
                    Instruction::ReadTransposed { .. } => 64,
                };
                a.shared
                    .encoding
                    .padding()
                    .iter()
                    .any(|&(_, pad)| (pad * a.element_bits) % bits != 0)
            });
        if misaligned != fault {
            wrong.push(format!("{name}: faulted {fault}, misaligned {misaligned}"));
        }
    }
    eprintln!("{faulted} padded kernels faulted, {ran} ran");
    assert!(faulted >= 70 && ran >= 100, "{faulted} faulted, {ran} ran");
    // FIXME: two that ran: one is a load layoutc counts as a vector where
    // Triton emits scalars (see above), in the other LLVM split the
    // misaligned vectors (their padding is a compile-time constant there).
    assert_eq!(wrong.len(), 2, "{wrong:#?}");
}
