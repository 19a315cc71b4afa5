//! The kernel summary of a dump against the compiled kernel (Triton 3.9
//! wheel): its bytes equal `metadata.shared` for every kernel of both
//! corpora (tests/corpus/kernels: reductions, scans, histograms, atomics,
//! gathers, sorts, 3-D and fp8 dots; tests/corpus/ttgir: matmuls, attention,
//! normalisations), each operation's buffer and offset equal Triton's own
//! `allocation.offset` / `allocation.size` in the dump it lowers to LLVM,
//! and every instruction the summary names is one the kernel's code uses;
//! tests/corpus/scratch: random conversions and reductions, whose scratch
//! shows the swizzle Triton picks.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use layout_algebra::bank::Direction;
use layout_db::{Database, SourceFile, kernel_summaries};

fn corpus(dir: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/../../tests/corpus/{dir}/manifest.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str::<Vec<serde_json::Value>>(&text).unwrap()
}

fn read(dir: &str, file: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../tests/corpus/{dir}/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The summaries of one dump. Many tests here walk the same corpora, so
/// each dump is summarised once per test process (keyed by its name and
/// text) and shared.
fn summarise(name: &str, text: String) -> Arc<Vec<layout_db::KernelSummary>> {
    type Memo = Mutex<HashMap<(String, String), Arc<Vec<layout_db::KernelSummary>>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = (name.to_string(), text);
    if let Some(found) = memo.lock().unwrap().get(&key) {
        return Arc::clone(found);
    }
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, name.into(), key.1.clone());
    let summaries = Arc::new(kernel_summaries(&db, file).clone());
    memo.lock().unwrap().insert(key, Arc::clone(&summaries));
    summaries
}

/// The instructions the summaries name whose opcode `keep` accepts, each
/// with its total count over every op.
fn named_counts(
    summaries: &[layout_db::KernelSummary],
    keep: impl Fn(&str) -> bool,
) -> BTreeMap<String, u64> {
    let mut named = BTreeMap::new();
    for i in summaries
        .iter()
        .flat_map(|s| &s.ops)
        .flat_map(|o| &o.instructions)
        .filter(|i| keep(&i.mnemonic))
    {
        *named.entry(i.mnemonic.clone()).or_insert(0) += i.count;
    }
    named
}

/// A manifest's counts by opcode whose opcode `keep` accepts.
fn recorded_counts(
    counts: &serde_json::Map<String, serde_json::Value>,
    keep: impl Fn(&str) -> bool,
) -> BTreeMap<String, u64> {
    counts
        .iter()
        .filter(|(m, _)| keep(m))
        .map(|(m, n)| (m.clone(), n.as_u64().unwrap()))
        .collect()
}

#[test]
fn the_summary_of_every_dump_allocates_what_the_compiled_kernel_does() {
    let mut wrong = Vec::new();
    let mut kernels = 0;
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let Some(file) = k["file"].as_str() else {
                continue;
            };
            kernels += 1;
            let expected = k["shared_bytes"].as_u64().unwrap();
            let summaries = summarise(file, read(dir, file));
            // The kernel comes first; the functions it calls (not inlined)
            // follow, each with its own summary.
            let s = &summaries[0];
            if s.shared_bytes != expected || !s.unmeasured.is_empty() {
                wrong.push(format!(
                    "{file}: {} bytes, the kernel {expected}; ops {:?}; unmeasured {:?}",
                    s.shared_bytes,
                    s.ops
                        .iter()
                        .map(|o| (o.op.as_str(), o.shared_bytes, o.offset))
                        .collect::<Vec<_>>(),
                    s.unmeasured
                ));
            }
        }
    }
    eprintln!("{} of {kernels} kernels wrong", wrong.len());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn every_buffer_sits_where_triton_places_it() {
    let mut wrong = Vec::new();
    let mut placed = 0;
    for k in corpus("kernels") {
        let Some(file) = k["allocated"].as_str() else {
            continue;
        };
        let summaries = summarise(file, read("kernels", file));
        assert_eq!(
            summaries[0].recorded_shared_bytes,
            k["shared_bytes"].as_u64(),
            "{file}"
        );
        let ops = || summaries.iter().flat_map(|s| &s.ops);
        for op in ops().filter(|o| o.shared_bytes > 0) {
            placed += 1;
            let Some((offset, size)) = op.recorded else {
                wrong.push(format!("{file}: {} has no allocation.offset", op.op));
                continue;
            };
            if offset != op.offset || size.is_some_and(|size| size != op.shared_bytes) {
                wrong.push(format!(
                    "{file}: {} at {} ({} B), Triton {offset} ({size:?} B)",
                    op.op, op.offset, op.shared_bytes
                ));
            }
            if op.recorded_partition_offsets != op.partition_offsets {
                wrong.push(format!(
                    "{file}: {} pieces at {:?}, Triton {:?}",
                    op.op, op.partition_offsets, op.recorded_partition_offsets
                ));
            }
        }
        let recorded = ops().filter(|o| o.recorded.is_some()).count();
        let triton = k["allocations"].as_array().unwrap().len();
        if recorded != triton {
            wrong.push(format!(
                "{file}: {recorded} ops with Triton's placement, {triton} in the dump"
            ));
        }
    }
    eprintln!("{placed} buffers placed, {} wrong", wrong.len());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn calls_warp_specialisation_and_partitions_allocate_what_triton_does() {
    // Both dumps of each kernel (before Triton's allocation and as the
    // lowering receives it) against the compiled kernel.
    let (mut calls, mut specialised, mut partitioned) = (0, 0, 0);
    for k in corpus("kernels") {
        let name = k["kernel"].as_str().unwrap();
        if ![
            "call_reduce",
            "matmul_ws",
            "ws_reductions",
            "partitioned_pair",
            "partitioned_lanes",
            "partitioned_columns",
        ]
        .contains(&name)
        {
            continue;
        }
        let expected = k["shared_bytes"].as_u64().unwrap();
        for key in ["file", "allocated"] {
            let file = k[key].as_str().unwrap();
            let summaries = summarise(file, read("kernels", file));
            let kernel = &summaries[0];
            assert_eq!(kernel.shared_bytes, expected, "{file}");
            let op = |name: &str| kernel.ops.iter().find(|o| o.op == name);
            match name {
                "call_reduce" => {
                    // The callee's own bytes sit at the call while it runs;
                    // the module's total is the kernel's alone.
                    let callee = &summaries[1];
                    let call = op("tt.call").unwrap_or_else(|| panic!("{file}: no call"));
                    assert_eq!(call.shared_bytes, callee.shared_bytes, "{file}");
                    assert!(callee.shared_bytes > 0, "{file}");
                    assert_eq!(callee.recorded_shared_bytes, None, "{file}");
                    calls += 1;
                }
                "matmul_ws" | "ws_reductions" => {
                    // A byte per partition warp, padded to whole warp
                    // groups, for the whole function; the captures as
                    // scratch of the `ttg.warp_specialize`.
                    let state = op("tt.func").unwrap_or_else(|| panic!("{file}: no state"));
                    assert_eq!(state.shared_bytes % 4, 0, "{file}");
                    // Its stores (start and exit) and each partition
                    // warp's read of its byte are in the PTX.
                    let compiled = kernel_instructions(&k);
                    for i in &state.instructions {
                        let n = compiled
                            .iter()
                            .find(|(m, _)| *m == i.mnemonic)
                            .map_or(0, |(_, n)| *n);
                        assert!(
                            n >= i.count,
                            "{file}: {} x {}, PTX {n}",
                            i.count,
                            i.mnemonic
                        );
                    }
                    assert!(
                        state
                            .instructions
                            .iter()
                            .any(|i| ["ld.shared.b8", "ds_load_u8"].contains(&i.mnemonic.as_str())),
                        "{file}"
                    );
                    let captures = op("ttg.warp_specialize").unwrap();
                    assert!(captures.shared_bytes > 0, "{file}");
                    specialised += 1;
                }
                _ => {
                    let pieces: Vec<&Vec<u64>> = kernel
                        .ops
                        .iter()
                        .map(|o| &o.partition_offsets)
                        .filter(|p| !p.is_empty())
                        .collect();
                    assert_eq!(pieces.len(), 2, "{file}: {pieces:?}");
                    // gfx1250's partitions hold 64 KiB: the pieces of a
                    // tensor are each in a different one.
                    for p in &pieces {
                        let mut slots: Vec<u64> = p.iter().map(|o| o / 65536).collect();
                        slots.dedup();
                        assert!(p.len() >= 2 && slots.len() == p.len(), "{file}: {pieces:?}");
                    }
                    // Every access is named, as often as the AMDGCN has it:
                    // the lanes of one instruction may reach several
                    // partitions, each through its own base.
                    let all = |_: &str| true;
                    assert_eq!(
                        named_counts(&summaries, all),
                        recorded_counts(k["lds"].as_object().unwrap(), all),
                        "{file}"
                    );
                    partitioned += 1;
                }
            }
        }
    }
    assert!(
        calls >= 12 && specialised >= 8 && partitioned >= 6,
        "{calls} {specialised} {partitioned}"
    );
}

/// The shared-memory instructions of a compiled kernel by exact opcode
/// (PTX `ld/st.shared*`, `ldmatrix`, `stmatrix`; AMDGCN `ds_*` that touch
/// LDS — not the cross-lane `ds_permute`/`ds_bpermute`/`ds_swizzle`, which
/// do not).
fn kernel_instructions(k: &serde_json::Value) -> Vec<(String, u64)> {
    let mut counts = k
        .get("shared_mnemonics")
        .or_else(|| k.get("lds"))
        .and_then(|c| c.as_object())
        .cloned()
        .unwrap_or_default();
    // Copies from global memory into shared memory (cp.async, TMA,
    // direct-to-LDS): tests/corpus/kernels records them by opcode, and
    // tests/corpus/ttgir counts cp.async by cache operator.
    if let Some(copies) = k.get("async_copies").and_then(|c| c.as_object()) {
        counts.extend(copies.clone());
    }
    // A TMA descriptor built on the device: its fields' `tensormap.replace`
    // and the copy out (`descriptor_mnemonics`).
    if let Some(built) = k.get("descriptor_mnemonics").and_then(|c| c.as_object()) {
        counts.extend(built.clone());
    }
    for (key, mnemonic) in [
        ("cp.async.cg", "cp.async.cg.shared.global"),
        ("cp.async.ca", "cp.async.ca.shared.global"),
    ] {
        if let Some(n) = k["instructions"][key].as_u64().filter(|&n| n > 0) {
            counts.insert(mnemonic.to_string(), n.into());
        }
    }
    counts
        .into_iter()
        .filter(|(m, _)| {
            !["ds_permute", "ds_bpermute", "ds_swizzle"]
                .iter()
                .any(|p| m.starts_with(p))
        })
        .map(|(m, n)| (m, n.as_u64().unwrap()))
        .collect()
}

#[test]
fn every_instruction_the_summary_names_is_in_the_compiled_kernel() {
    let mut wrong = Vec::new();
    let (mut named, mut kernels, mut covered) = (0, 0, 0);
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let Some(file) = k["file"].as_str() else {
                continue;
            };
            kernels += 1;
            let compiled = kernel_instructions(&k);
            let summaries = summarise(file, read(dir, file));
            let mut names = Vec::new();
            for op in summaries.iter().flat_map(|s| &s.ops) {
                for i in &op.instructions {
                    named += 1;
                    names.push(i.mnemonic.clone());
                    // tests/corpus/ttgir counts TMA copies by family only.
                    let tma = i.mnemonic.starts_with("cp.async.bulk.tensor")
                        && k["instructions"]["cp.async.bulk.tensor"].as_u64() > Some(0);
                    if !tma && !compiled.iter().any(|(m, _)| *m == i.mnemonic) {
                        wrong.push(format!(
                            "{file}: {} names {}, the kernel has {compiled:?}",
                            op.op, i.mnemonic
                        ));
                    }
                }
            }
            if compiled.iter().all(|(m, _)| names.contains(m)) {
                covered += 1;
            } else if std::env::var("SHOW_UNCOVERED").is_ok() {
                // `SHOW_UNCOVERED=1 cargo test ... -- --nocapture` lists what
                // each uncovered kernel has that no op names.
                eprintln!(
                    "UNCOVERED {file}: {:?} named {:?}",
                    compiled
                        .iter()
                        .filter(|(m, _)| !names.contains(m))
                        .collect::<Vec<_>>(),
                    names
                );
            }
        }
    }
    eprintln!(
        "{named} instructions named, {} not in the kernel; {covered} of {kernels} kernels have every shared-memory instruction named",
        wrong.len()
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(
        named >= 7273 && covered >= 863,
        "{named} named, {covered} covered"
    );
}

/// The kernels whose summary names every shared-memory instruction as often
/// as the compiled kernel has it. What is left is listed in
/// docs/architecture.md (LLVM's choices the TTGIR does not fix: partial
/// pairing by its vectorisers, where the register allocator puts narrow
/// values).
#[test]
fn most_kernels_name_every_instruction_as_often_as_the_compiled_kernel() {
    let (mut kernels, mut exact) = (0, 0);
    let mut differing = Vec::new();
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let Some(file) = k["file"].as_str() else {
                continue;
            };
            // tests/corpus/ttgir counts TMA copies by family only.
            if dir == "ttgir" && k["instructions"]["cp.async.bulk.tensor"].as_u64() > Some(0) {
                continue;
            }
            kernels += 1;
            let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
            let summaries = summarise(file, read(dir, file));
            let named = named_counts(&summaries, |_| true);
            if named == compiled {
                exact += 1;
            } else {
                differing.push(file.to_string());
            }
        }
    }
    eprintln!("{exact} of {kernels} kernels exact; the others: {differing:?}");
    assert!(
        exact >= EXACT_KERNELS,
        "{exact} of {kernels}: {differing:#?}"
    );
}

/// Kernels of both corpora whose every opcode count is the compiled
/// kernel's (`most_kernels_name_every_instruction_as_often_as_the_compiled_kernel`).
const EXACT_KERNELS: usize = 860;

/// `ttng.tensormap_create` on NVIDIA: each field's `tensormap.replace` as
/// often as the PTX has it (one per dimension for the box, the extent and
/// the element stride, one per outer dimension for the stride, the
/// constant fields only where they are not zero) and one copy out per
/// descriptor: 1-, 2- and 3-D descriptors, a NaN fill, bytes, halves and
/// floats, swizzled and not, on sm90 and sm100.
#[test]
fn device_built_descriptors_name_the_ptx_s_tensormap_instructions() {
    let mut compared = 0;
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let (Some(file), Some(built)) = (
                k["file"].as_str(),
                k.get("descriptor_mnemonics").and_then(|c| c.as_object()),
            ) else {
                continue;
            };
            let summaries = summarise(file, read(dir, file));
            let named = named_counts(&summaries, |m| m.starts_with("tensormap."));
            assert_eq!(named, recorded_counts(built, |_| true), "{file}");
            compared += 1;
        }
    }
    // matmul_fp16_tma and matmul_ws, device_descriptors: each on sm90 and
    // sm100.
    assert!(compared >= 6, "{compared}");
}

#[test]
fn async_copies_are_counted_as_the_ptx_has_them() {
    // tests/corpus/ttgir's manifest counts `cp.async.cg` and `cp.async.ca`
    // lines of each kernel's PTX: the static copies of its prologue and loop.
    let mut compared = 0;
    let mut wrong = Vec::new();
    for k in corpus("ttgir") {
        let Some(file) = k["file"].as_str() else {
            continue;
        };
        if k.get("lds").is_some() {
            continue;
        }
        let summaries = summarise(file, read("ttgir", file));
        let named = |mnemonic: &str| -> u64 {
            summaries[0]
                .ops
                .iter()
                .flat_map(|o| &o.instructions)
                .filter(|i| i.mnemonic == mnemonic)
                .map(|i| i.count)
                .sum()
        };
        for (key, mnemonic) in [
            ("cp.async.cg", "cp.async.cg.shared.global"),
            ("cp.async.ca", "cp.async.ca.shared.global"),
        ] {
            let ptx = k["instructions"][key].as_u64().unwrap_or(0);
            let ours = named(mnemonic);
            if ptx > 0 || ours > 0 {
                compared += 1;
                if ptx != ours {
                    wrong.push(format!("{file}: {ours} x {mnemonic}, the PTX {ptx}"));
                }
            }
        }
    }
    // tests/corpus/kernels records every copy by exact opcode, AMD's
    // direct-to-LDS loads (`global_load_lds_dwordx4`) too; tests/corpus/ttgir
    // records AMD's, gfx1250's tensor data mover (`tensor_load_to_lds`)
    // among them.
    let mut tdm = 0;
    for (dir, k) in ["kernels", "ttgir"]
        .into_iter()
        .flat_map(|d| corpus(d).into_iter().map(move |k| (d, k)))
    {
        let Some(file) = k["file"].as_str() else {
            continue;
        };
        let Some(copies) = k["async_copies"].as_object() else {
            continue;
        };
        // LLVM unrolls this one's constant loop, copies and all
        // (`small_matmuls_name_what_llvm_leaves_of_their_loads_and_stores`).
        if file == "static_k_matmul_sm100.ttgir" {
            continue;
        }
        tdm += usize::from(copies.contains_key("tensor_load_to_lds"));
        let summaries = summarise(file, read(dir, file));
        for (mnemonic, n) in copies {
            let ours: u64 = summaries[0]
                .ops
                .iter()
                .flat_map(|o| &o.instructions)
                .filter(|i| i.mnemonic == *mnemonic)
                .map(|i| i.count)
                .sum();
            compared += 1;
            if Some(ours) != n.as_u64() {
                wrong.push(format!("{file}: {ours} x {mnemonic}, the code {n}"));
            }
        }
    }
    // TMA: one `cp.async.bulk.tensor` per copy operation, loads and stores.
    for k in corpus("ttgir") {
        let Some(file) = k["file"].as_str() else {
            continue;
        };
        let ptx = k["instructions"]["cp.async.bulk.tensor"]
            .as_u64()
            .unwrap_or(0);
        if ptx == 0 {
            continue;
        }
        let summaries = summarise(file, read("ttgir", file));
        let ours: u64 = summaries[0]
            .ops
            .iter()
            .flat_map(|o| &o.instructions)
            .filter(|i| i.mnemonic.starts_with("cp.async.bulk.tensor"))
            .map(|i| i.count)
            .sum();
        compared += 1;
        if ours != ptx {
            wrong.push(format!("{file}: {ours} TMA copies, the PTX {ptx}"));
        }
    }
    eprintln!("{compared} copy counts compared, {} wrong", wrong.len());
    assert!(
        compared >= 39 && tdm >= 1,
        "{compared} compared, {tdm} with TDM copies"
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Blackwell's tensor memory as Triton's allocator places it: every
/// `ttng.tmem_alloc`'s column (where the dump records it) and the kernel's
/// columns (`ttg.tensor_memory_size` of the dumps after allocation,
/// `metadata.tmem_size` of tests/corpus/ttgir): matmul accumulators, and
/// attention, whose 64-row blocks share columns in the two halves of the
/// lanes and whose 128-row ones do not.
#[test]
fn tensor_memory_is_allocated_as_triton_does() {
    let mut compared = 0;
    for k in corpus("kernels") {
        let Some(file) = k["allocated"].as_str() else {
            continue;
        };
        let summaries = summarise(file, read("kernels", file));
        let s = &summaries[0];
        let Some(recorded) = s.recorded_tensor_memory_columns.filter(|&c| c > 0) else {
            assert!(s.tensor_memory.is_empty(), "{file}");
            continue;
        };
        compared += 1;
        assert_eq!(s.tensor_memory_columns(), recorded, "{file}");
        for t in &s.tensor_memory {
            assert_eq!(Some(t.column), t.recorded_column, "{file}");
        }
    }
    for k in corpus("ttgir") {
        let (Some(file), Some(recorded)) =
            (k["file"].as_str(), k["tensor_memory_columns"].as_u64())
        else {
            continue;
        };
        let summaries = summarise(file, read("ttgir", file));
        assert_eq!(summaries[0].tensor_memory_columns(), recorded, "{file}");
        compared += 1;
    }
    assert!(compared >= 9, "{compared}");
}

#[test]
fn scans_store_and_load_what_the_ptx_does() {
    // Every scan kernel: the summary's counts equal the PTX's, and on AMD
    // the AMDGCN's (LLVM's merged `ds_read_b96`, paired `ds_read2_b32` and
    // `ds_write2st64_b32`, and the reads whose address InstCombine folds
    // off the common base, alone: gfx1250's cumsum_2d reads 61 pairs and 2
    // singles, the 64-bit scan down a 2-D tile 27 pairs and 8 singles on
    // the three AMD targets; bf16 partials of neighbouring chunks two to a
    // register on gfx942 and gfx950, every second stored from the high
    // half, where the warp's scan takes two shuffle steps, and apart where
    // it takes one, `cumsum_2d_bf16*`; the partial stores InstCombine folds
    // onto the warp id, on a base of their own, `cumsum_*_chunks`,
    // `cumsum_rows_i64_folded`); the scan's are the kernel's only
    // LDS accesses besides `ds_bpermute`.
    let (mut compared, mut amd) = (0, 0);
    for k in corpus("kernels") {
        let Some(file) = k["file"].as_str() else {
            continue;
        };
        if !k["kernel"].as_str().unwrap().starts_with("cumsum") {
            continue;
        }
        let recorded = if k.get("lds").is_some() {
            amd += 1;
            &k["lds"]
        } else {
            &k["shared_mnemonics"]
        };
        let summaries = summarise(file, read("kernels", file));
        // A scan within warps (the row of cumsum_rows_i64 in one 64-lane
        // wave) takes no shared memory at all.
        if k["shared_bytes"].as_u64() == Some(0) {
            assert!(summaries[0].ops.is_empty(), "{file}");
            continue;
        }
        let scan = summaries[0].ops.iter().find(|o| o.op == "tt.scan").unwrap();
        assert!(!scan.instructions.is_empty(), "{file}");
        let named: BTreeMap<&str, u64> = scan
            .instructions
            .iter()
            .map(|i| (i.mnemonic.as_str(), i.count))
            .collect();
        let compiled: BTreeMap<&str, u64> = recorded
            .as_object()
            .unwrap()
            .iter()
            .filter(|(m, _)| !m.starts_with("ds_bpermute"))
            .map(|(m, n)| (m.as_str(), n.as_u64().unwrap()))
            .collect();
        compared += named.len();
        assert_eq!(named, compiled, "{file}");
    }
    assert!(
        compared >= 24 && amd == 39,
        "{compared} compared, {amd} on AMD"
    );
}

/// gfx1250's transposing reads (`ds_load_tr16_b128`: 8 lanes exchange 128
/// bits of halves; `ds_load_tr8_b64`: 64 bits of bytes in two halves) of
/// dot operands, in matmuls, attention and a batched dot compiled by the
/// Triton 3.9 wheel: each named as often as the AMDGCN has it.
#[test]
fn gfx1250_reads_dot_operands_transposed_as_the_amdgcn_does() {
    let mut compared = 0;
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let (Some(file), Some(lds)) = (k["file"].as_str(), k["lds"].as_object()) else {
                continue;
            };
            let transposed = |m: &str| m.starts_with("ds_load_tr");
            let recorded = recorded_counts(lds, transposed);
            if recorded.is_empty() {
                continue;
            }
            let summaries = summarise(file, read(dir, file));
            assert_eq!(named_counts(&summaries, transposed), recorded, "{file}");
            compared += 1;
        }
    }
    assert!(compared >= 6, "{compared}");
}

/// The captures of a `ttg.warp_specialize` that its partitions cannot
/// recompute (a loaded scalar, a pointer a loop advanced, a value more
/// than 16 operations from the arguments, a TMA descriptor built on the
/// device) go through shared memory, packed; each partition loads those it
/// uses. Where only the warp state and the captures touch shared memory
/// (ws_captures*), the summary's counts are the PTX's, opcode by opcode;
/// matmul_ws's two descriptors are its only 64-bit pairs.
#[test]
fn captures_the_partitions_cannot_recompute_go_through_shared_memory() {
    let mut compared = 0;
    for k in corpus("kernels") {
        let (Some(file), Some(kernel)) = (k["file"].as_str(), k["kernel"].as_str()) else {
            continue;
        };
        if !kernel.starts_with("ws_captures") && kernel != "matmul_ws" {
            continue;
        }
        let summaries = summarise(file, read("kernels", file));
        let named = named_counts(&summaries, |_| true);
        // PTX's opcodes, or the AMDGCN's (gfx1250).
        let compiled = k.get("shared_mnemonics").or_else(|| k.get("lds"));
        let ptx = recorded_counts(compiled.unwrap().as_object().unwrap(), |_| true);
        if kernel == "matmul_ws" {
            for pair in ["st.shared.v2.b64", "ld.shared.v2.b64"] {
                assert_eq!(named.get(pair), ptx.get(pair), "{file}: {pair}");
            }
        } else {
            assert_eq!(named, ptx, "{file}");
        }
        compared += 1;
    }
    assert_eq!(compared, 8);
}

/// W0401 on a conversion names the instructions the kernel summary lists
/// for that op, by exact opcode and count: one analysis feeds both.
#[test]
fn the_conversion_warning_names_the_summarys_instructions() {
    let mut checked = 0;
    for dir in ["kernels", "ttgir"] {
        for k in corpus(dir) {
            let Some(name) = k["file"].as_str() else {
                continue;
            };
            let mut db = Database::default();
            let file = SourceFile::open(&mut db, name.into(), read(dir, name));
            let report = layout_db::check_file(&db, file);
            for op in kernel_summaries(&db, file)
                .iter()
                .flat_map(|s| &s.ops)
                .filter(|o| o.op == "ttg.convert_layout" && !o.instructions.is_empty())
            {
                let warning = report
                    .diagnostics
                    .iter()
                    .find(|d| {
                        d.code == layout_db::Code::SharedConversion
                            && d.span.start < op.span.end
                            && op.span.start < d.span.end
                    })
                    .unwrap_or_else(|| panic!("{name}: no W0401 at {:?}", op.span));
                for i in &op.instructions {
                    let named =
                        format!("{} x {} ({} wavefronts)", i.count, i.mnemonic, i.wavefronts);
                    assert!(
                        warning.message.contains(&named),
                        "{name}: {named} not in {}",
                        warning.message
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} conversions");
}

/// A histogram's bins as the compiled kernel zeroes, fills and reads them,
/// every opcode as often: NVIDIA one `atom.shared.add` per element of the
/// thread's input, AMD one `ds_add_u32` per bin a lane owns after the
/// warp's ballots; the zeroing one word per thread at a time (AMD pairs
/// two in `ds_write2st64_b32`), the read of consecutive bins as one vector.
/// 64 bins on 4 warps and 1024 bins on 8, on seven targets.
#[test]
fn histograms_zero_add_and_read_their_bins_as_the_compiled_kernel_does() {
    let mut checked = 0;
    for k in corpus("kernels") {
        let Some(file) = k["file"].as_str().filter(|f| f.starts_with("histogram")) else {
            continue;
        };
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
        let summaries = summarise(file, read("kernels", file));
        assert_eq!(named_counts(&summaries, |_| true), compiled, "{file}");
        checked += 1;
    }
    assert_eq!(checked, 14);
}

/// Conversions between random blocked layouts and column reductions across
/// warps (tests/corpus/scratch, `gen_scratch_corpus.py`): the scratch is
/// what the swizzle Triton picks allocates — AMD's ld/st-only swizzle with
/// the machine's banks and `ds_read_b128`'s lane groups on gfx942 and
/// gfx950 (a conversion's; a reduction's takes the first lanes), NVIDIA's
/// per-instruction tiles —, so the total equals `metadata.shared` for every
/// one, and every opcode the summary names is the compiled kernel's.
#[test]
fn random_conversions_and_reductions_allocate_what_triton_does() {
    let (mut kernels, mut wrong, mut named_wrong, mut covered) = (0, Vec::new(), Vec::new(), 0);
    for k in corpus("scratch") {
        let file = k["file"].as_str().unwrap();
        kernels += 1;
        let summaries = summarise(file, read("scratch", file));
        let expected = k["shared_bytes"].as_u64().unwrap();
        if summaries[0].shared_bytes != expected {
            wrong.push(format!(
                "{file}: {} vs {expected}",
                summaries[0].shared_bytes
            ));
        }
        let compiled = kernel_instructions(&k);
        let named = named_counts(&summaries, |_| true);
        for m in named.keys() {
            if !compiled.iter().any(|(c, _)| c == m) {
                named_wrong.push(format!("{file}: {m}, the kernel has {compiled:?}"));
            }
        }
        covered += usize::from(compiled.iter().all(|(m, _)| named.contains_key(m)));
    }
    eprintln!("{kernels} dumps; {covered} with every shared-memory instruction named");
    assert!(kernels >= 512, "{kernels}");
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(named_wrong.is_empty(), "{named_wrong:#?}");
    // The rest: bytes loaded one at a time (strided) that gfx1250's
    // register allocator packs in pairs anyway, AMD scan partials whose
    // pairing LLVM leaves.
    assert!(covered >= 503, "{covered}");
}

/// AMD's global memory takes unaligned dword accesses, so LLVM merges the
/// element-by-element loads Triton emits for pointers without
/// `tt.divisibility` into vectors wherever the pointers are contiguous:
/// the bytes and halves then sit packed, and a conversion storing them one
/// at a time stores every register's high half with `_d16_hi` (NVIDIA's
/// loads stay scalar). The random conversions of tests/corpus/scratch load
/// from such arguments, along the memory's rows or across them: their
/// stores, every opcode as often as the compiled kernel's, on gfx942,
/// gfx950 and gfx1250.
#[test]
fn amd_merges_unaligned_contiguous_loads_so_narrow_stores_take_the_high_half() {
    let stores = |m: &str| m.starts_with("ds_write") || m.starts_with("ds_store");
    let (mut checked, mut exact, mut high) = (0, 0, 0);
    for k in corpus("scratch") {
        let file = k["file"].as_str().unwrap();
        if !(file.starts_with("convert") && k["target"].as_str().unwrap().starts_with("gfx")) {
            continue;
        }
        let text = read("scratch", file);
        assert!(!text.contains("tt.divisibility"), "{file}");
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k)
            .into_iter()
            .filter(|(m, _)| stores(m))
            .collect();
        let named = named_counts(&summarise(file, text), stores);
        checked += 1;
        exact += usize::from(named == compiled);
        high += usize::from(named == compiled && compiled.keys().any(|m| m.ends_with("_d16_hi")));
    }
    assert_eq!(checked, 240);
    // One is not: gfx1250 packs bytes it loaded one at a time (strided),
    // two to a register, as its allocator chooses (30 of 64 stores high).
    assert!(exact >= 239, "{exact} of {checked}");
    assert!(high >= 13, "{high}");
}

/// Bits one thread reads (or writes) with `count` of the instruction
/// `mnemonic`: what stays the same however LLVM pairs its accesses.
fn thread_bits(mnemonic: &str, count: u64) -> (layout_algebra::bank::Direction, u64) {
    use layout_algebra::bank::{Instruction, Mnemonic};
    let m: Mnemonic = mnemonic.parse().unwrap();
    let bits = match m.instruction {
        Instruction::Paired { bits, .. } => 2 * bits,
        Instruction::Matrix { count, .. } => 32 * count,
        other => other.bits_per_lane(),
    };
    (m.direction, u64::from(bits) * count)
}

/// Reductions and scans of two operands of which one result is used, and
/// a conversion of which one half is used (tests/corpus/scratch:
/// `pairsum`, `pairscan`, `colmaxvalue`, `splithalf`; sm90 and
/// gfx942/950/1250): LLVM drops the last loads nothing needs — on AMD a
/// reduction's last round and a scan's reads of the unneeded operand, on
/// both the loads of an unused result's conversion to its layout and the
/// vectors of a conversion's registers nothing reads (`tt.split`) —, and
/// keeps every store. Every total is `metadata.shared`, every named opcode
/// the kernel's, and each thread reads and writes as many bits as the
/// compiled kernel does (LLVM pairs a few scan reads otherwise: 6 of the 64
/// name `ds_read2_b32` where it left two `ds_read_b32`).
#[test]
fn results_nothing_uses_load_nothing() {
    let mut checked = 0;
    let mut exact = 0;
    for k in corpus("scratch") {
        let file = k["file"].as_str().unwrap();
        if !["pairsum_", "pairscan_", "colmaxvalue_", "splithalf_"]
            .iter()
            .any(|family| file.starts_with(family))
        {
            continue;
        }
        checked += 1;
        let summaries = summarise(file, read("scratch", file));
        assert_eq!(
            summaries[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{file}"
        );
        let named = named_counts(&summaries, |_| true);
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
        let volume = |counts: &BTreeMap<String, u64>| {
            let mut v = BTreeMap::new();
            for (m, n) in counts {
                let (direction, bits) = thread_bits(m, *n);
                *v.entry(format!("{direction:?}")).or_insert(0) += bits;
            }
            v
        };
        assert_eq!(
            volume(&named),
            volume(&compiled),
            "{file}: {named:?} vs {compiled:?}"
        );
        assert!(
            named.keys().all(|m| compiled.contains_key(m)),
            "{file}: {named:?} vs {compiled:?}"
        );
        exact += usize::from(named == compiled);
    }
    assert_eq!(checked, 64);
    assert!(exact >= 58, "{exact}");
}

/// Narrow elements on NVIDIA (tests/corpus/packed, gen_packed_corpus.py),
/// sm80 to sm100: the halves and bytes LLVM moves through shared memory as
/// words are named as words — halves stored as words when they were
/// loaded in vectors or converted from f32 in pairs (sm86 on; sm80 as
/// below), loaded as
/// words when a vectorised global store takes them; two fp8 loaded as one
/// 16-bit word when they only go to a conversion to f16 or bf16 — and the
/// summary names every shared-memory instruction of the PTX, as often: on
/// matmul epilogues, fp8 upcasts, and Gluon conversions of halves loaded
/// along or across their contiguous addresses (only a load that moved
/// vectors gives words, and only a shared vector within one keeps them),
/// conversions of booleans (a condition, a mask or a number reads its
/// two- and four-byte vectors' bytes apart; a stored value does not), and
/// the tutorial's masked matmul with small tiles (masks whose bounds are
/// divisible keep the global vectors, so the epilogue loads words), and
/// gathers within warps (their 32-bit shuffles leave a half per register,
/// which LLVM stores as words; the load after one across rows takes
/// halves apart), boolean reductions (a round's partials, which the
/// combine takes as `i1`, are read bytes apart; booleans extended to
/// bytes are read two as one 16-bit word), sm100's boolean conversions
/// (eight and sixteen booleans move in 64-bit words) and atomic adds of
/// halves (before sm90 f16 goes in and comes back two to a word where the
/// counters' runs allow), and dots of f16 with a byte operand converted in
/// registers (the f16 operand's halves read as words for the mma, the
/// bytes read alone and sign-extended with `ld.shared.s8`). sm80 converts f32 to halves in pairs only where two conversions are
/// packed in the block that makes them (a product stored as it is; not
/// when scaled, not a K loop's result).
#[test]
fn narrow_elements_move_through_shared_memory_as_llvm_types_them() {
    let mut wrong = Vec::new();
    let dumps = corpus("packed");
    for k in &dumps {
        let file = k["file"].as_str().unwrap();
        let summaries = summarise(file, read("packed", file));
        assert_eq!(
            summaries[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{file}"
        );
        // Loads and stores; the pipelined matmuls' copies (cp.async) are
        // the kernel corpora's.
        let named = named_counts(&summaries, |m| !m.starts_with("cp.async"));
        let compiled = recorded_counts(k["shared_mnemonics"].as_object().unwrap(), |_| true);
        if named != compiled {
            wrong.push(format!("{file}: named {named:?}, compiled {compiled:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(dumps.len(), 565);
}

/// Pipelined matmuls with a transposed operand (bf16, i8, fp8) on seven
/// targets: every shared-memory instruction as often as the compiled
/// kernel has it. A tile loaded in vectors across the buffer's rows is
/// stored an element at a time, on AMD each register's high half with the
/// `_d16_hi` form; fp8 widened to f16 for the dot is stored two halves to
/// a word on NVIDIA. In one of the 21 (fp8 on gfx1250) LLVM leaves one
/// pair of reads unpaired.
#[test]
fn pipelined_transposed_operands_name_the_compiled_instructions_as_often() {
    let (mut checked, mut exact) = (0, 0);
    for k in corpus("kernels") {
        let Some(file) = k["file"]
            .as_str()
            .filter(|f| f.starts_with("pipelined_trans"))
        else {
            continue;
        };
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k)
            .into_iter()
            .filter(|(m, _)| !m.starts_with("cp.async") && !m.starts_with("global_load"))
            .collect();
        let summaries = summarise(file, read("kernels", file));
        assert_eq!(
            summaries[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{file}"
        );
        let named = named_counts(&summaries, |m| {
            !m.starts_with("cp.async") && !m.starts_with("global_load")
        });
        checked += 1;
        if named == compiled {
            exact += 1;
        } else {
            assert_eq!(
                file, "pipelined_trans_fp8_gfx1250.ttgir",
                "{named:?} {compiled:?}"
            );
        }
    }
    assert_eq!((checked, exact), (21, 20));
}

/// The kernels of tests/corpus/kernels whose file starts with `prefix`,
/// each summarised from its final TTGIR and checked against the compiled
/// kernel: the total equals `metadata.shared` and every opcode count the
/// PTX's or AMDGCN's. `also` checks more of each (the file, its manifest
/// entry, its summaries). Returns how many were checked.
fn exact_corpus_kernels(
    prefix: &str,
    also: impl FnMut(&str, &serde_json::Value, &[layout_db::KernelSummary]),
) -> usize {
    exact_corpus_kernels_except(prefix, &[], also)
}

/// [`exact_corpus_kernels`] but for the files `except` names (each
/// documented where it is named: what the summary cannot know).
fn exact_corpus_kernels_except(
    prefix: &str,
    except: &[&str],
    mut also: impl FnMut(&str, &serde_json::Value, &[layout_db::KernelSummary]),
) -> usize {
    let mut checked = 0;
    for k in corpus("kernels") {
        let Some(file) = k["file"]
            .as_str()
            .filter(|f| f.starts_with(prefix) && !except.contains(f))
        else {
            continue;
        };
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
        let summaries = summarise(file, read("kernels", file));
        assert_eq!(
            summaries[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(named_counts(&summaries, |_| true), compiled, "{file}");
        also(file, &k, &summaries);
        checked += 1;
    }
    checked
}

/// The tutorial's causal attention forward (off-diagonal blocks, then the
/// diagonal block, whose trip count `BM / BN` is a constant though its
/// bounds are not): on AMD the pipeliner peels each loop into stages under
/// `scf.if trip >= k`, and LLVM removes the stages that cannot run, the
/// shared-memory reads and conversion loads only they use, a loop whose
/// bounds fold equal, and (on CDNA) the copies a mask that folds to false
/// guards. Every instruction as the compiled kernels have them, on seven
/// targets and with two tilings; the dumps before LLVM lowering keep the
/// kernel's total.
#[test]
fn stages_of_a_peeled_loop_that_cannot_run_issue_nothing() {
    let checked = exact_corpus_kernels("causal_stages", |file, k, _| {
        let allocated = file.replace(".ttgir", ".allocated.ttgir");
        let before_llvm = summarise(&allocated, read("kernels", &allocated));
        assert_eq!(
            before_llvm[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{allocated}"
        );
    });
    assert_eq!(checked, 11);
}

/// Blackwell matmuls with one stage: the K loop carries the MMA's
/// `use_acc` flag (false on the first trip, true after), a phi LLVM makes
/// invariant by peeling the first trip where twice the loop's size fits
/// its unroll threshold, so the small loops (i8 64x128x32, f16 128x64x64 on
/// 8 warps) store their operands twice and the larger ones (bf16 128x64x64
/// on 4 warps, fp8 256x64x128) once; sm90's loops carry no such flag.
/// Every instruction as the compiled kernels have them.
#[test]
fn small_blackwell_loops_whose_flag_becomes_invariant_are_peeled() {
    let mut peeled = Vec::new();
    let checked = exact_corpus_kernels("unstaged_matmul_bias", |file, k, summaries| {
        if !file.ends_with("_sm100.ttgir") {
            return;
        }
        // The operands' stores, per trip: vectors of 16 bytes.
        let stores: u64 = summaries[0]
            .ops
            .iter()
            .filter(|o| o.op == "ttg.local_alloc")
            .flat_map(|o| &o.instructions)
            .map(|i| i.count)
            .sum();
        let per_trip: u64 = summaries[0]
            .ops
            .iter()
            .filter(|o| o.op == "ttg.local_alloc" && !o.instructions.is_empty())
            .map(|o| o.shared_bytes / 16 / (32 * k["num_warps"].as_u64().unwrap()))
            .sum();
        if stores == 2 * per_trip {
            peeled.push(file.to_string());
        } else {
            assert_eq!(stores, per_trip, "{file}");
        }
    });
    assert_eq!(checked, 7);
    assert_eq!(
        peeled,
        [
            "unstaged_matmul_bias_i8_sm100.ttgir",
            "unstaged_matmul_bias_f16_sm100.ttgir"
        ]
    );
}

/// An argmax of bf16 over 8 rows of 512 on 8 warps (two along the rows):
/// each thread's warp round loads two rows' partials, which the one shuffle
/// step left combines as they come. From sm86 on the vectoriser pairs both
/// rows' compares and LLVM reads the two halves as one word
/// (`ld.shared.b32`); sm80 reads them as halves (`ld.shared.v2.b16`).
#[test]
fn an_argmax_reads_two_rows_halves_as_one_word_where_one_shuffle_step_pairs_them() {
    let mut words = Vec::new();
    let checked = exact_corpus_kernels("paired_rows_argmax_bf16", |file, _, summaries| {
        let reduce = summaries[0]
            .ops
            .iter()
            .find(|o| o.op == "tt.reduce")
            .unwrap();
        if reduce
            .instructions
            .iter()
            .any(|i| i.mnemonic == "ld.shared.b32")
        {
            words.push(file.to_string());
        } else {
            assert!(
                reduce
                    .instructions
                    .iter()
                    .any(|i| i.mnemonic == "ld.shared.v2.b16"),
                "{file}"
            );
        }
    });
    assert_eq!(checked, 4);
    assert_eq!(
        words,
        [
            "paired_rows_argmax_bf16_sm89.ttgir",
            "paired_rows_argmax_bf16_sm90.ttgir",
            "paired_rows_argmax_bf16_sm100.ttgir"
        ]
    );
}

/// Column reductions of 32-bit values (an i32 sum, an f32 maximum) whose
/// result only a conversion takes: on sm100, which keeps f32 pairs in
/// 64-bit registers, the reduction's conversion to the result's layout
/// loads pairs of words (`ld.shared.v2.b64`) and the next conversion stores
/// them untouched (`st.shared.v2.b64`); sm90 moves words both ways.
#[test]
fn reduced_words_only_a_conversion_takes_move_as_pairs_on_sm100() {
    let mut pairs = Vec::new();
    let mut checked = 0;
    for prefix in ["column_sum_i32", "f32_column_max"] {
        checked += exact_corpus_kernels(prefix, |file, _, summaries| {
            let named = |op: &str, mnemonic: &str| {
                summaries[0]
                    .ops
                    .iter()
                    .filter(|o| o.op == op)
                    .flat_map(|o| &o.instructions)
                    .any(|i| i.mnemonic == mnemonic)
            };
            let reduce_loads = named("tt.reduce", "ld.shared.v2.b64");
            let conversion_stores = named("ttg.convert_layout", "st.shared.v2.b64");
            assert_eq!(reduce_loads, conversion_stores, "{file}");
            if reduce_loads {
                pairs.push(file.to_string());
            }
        });
    }
    assert_eq!(checked, 4);
    assert_eq!(
        pairs,
        ["column_sum_i32_sm100.ttgir", "f32_column_max_sm100.ttgir"]
    );
}

/// 3x3 convolutions as implicit GEMMs with their nine taps unrolled: where
/// a tap's K loop runs twice, its two stages' buffers are indexed by
/// constants, and gfx942 pairs each weight read of the first stage with the
/// same read of the second (`ds_read2st64_b64`, 16 KB apart): the pair is
/// named on the first load and the second reads with it, once per tap. One
/// trip per tap (the f16 tiling) leaves the reads single, and gfx950 and
/// gfx1250 read transposed. Every instruction as compiled, on four targets.
#[test]
fn an_unrolled_convolution_pairs_its_stages_weight_reads_on_gfx942() {
    let mut read_with = Vec::new();
    let checked = exact_corpus_kernels("conv_implicit_gemm_", |file, _, summaries| {
        let loads: Vec<_> = summaries[0]
            .ops
            .iter()
            .filter(|o| o.op == "ttg.local_load")
            .collect();
        let second = loads.iter().filter(|o| o.paired_with.is_some()).count();
        for o in loads.iter().filter(|o| o.paired_with.is_some()) {
            assert!(o.instructions.is_empty(), "{file}");
            let with = o.paired_with.unwrap();
            assert_eq!(with.direction, Direction::Load);
            let with = loads.iter().find(|p| p.span == with.op).unwrap();
            assert_eq!(with.instructions[0].mnemonic, "ds_read2st64_b64", "{file}");
        }
        if second > 0 {
            read_with.push((file.to_string(), second));
        }
    });
    assert_eq!(checked, 8);
    assert_eq!(
        read_with,
        [("conv_implicit_gemm_bf16_gfx942.ttgir".to_string(), 9)]
    );
}

/// The same convolution with a barrier put between one tap's two stages'
/// loads: LLVM pairs no reads across a wait, so that tap's weight loads
/// each read their own (`ds_read_b64`), and the other eight taps pair.
#[test]
fn reads_are_not_paired_across_a_barrier() {
    let file = "conv_implicit_gemm_bf16_gfx942.ttgir";
    let text = read("kernels", file);
    let at = text.find("    %a_76 = ttg.local_load").unwrap();
    let text = format!(
        "{}    gpu.barrier loc(#loc62)\n{}",
        &text[..at],
        &text[at..]
    );
    let summaries = summarise(file, text);
    let loads: Vec<_> = summaries[0]
        .ops
        .iter()
        .filter(|o| o.op == "ttg.local_load")
        .collect();
    assert_eq!(loads.iter().filter(|o| o.paired_with.is_some()).count(), 8);
    let single: u64 = loads
        .iter()
        .flat_map(|o| &o.instructions)
        .filter(|i| i.mnemonic == "ds_read_b64")
        .map(|i| i.count)
        .sum();
    assert_eq!(single, 16);
}

/// Attention backward stores its Q and dO tiles one after the other into
/// buffers of one layout: gfx942 pairs each write of the first store with
/// the same write of the second (`ds_write2st64_b64`), before the loop (the
/// buffers indexed by constants) and in it — with one buffer each at a
/// fixed distance, and with two each, picked by the loop's one stage index,
/// as far apart as the allocations. The pair is named on the Q store and
/// the dO store writes with it. gfx950 and gfx1250 store through
/// `local_alloc`s of their own or in 128 bits, and NVIDIA copies with
/// cp.async. Every instruction as compiled, on four targets.
#[test]
fn attention_backward_pairs_its_q_and_do_stores_on_gfx942() {
    let mut written_with = Vec::new();
    let checked = exact_corpus_kernels("attention_backward_", |file, _, summaries| {
        let stores: Vec<_> = summaries[0]
            .ops
            .iter()
            .filter(|o| o.op == "ttg.local_store")
            .collect();
        let second: Vec<_> = stores.iter().filter(|o| o.paired_with.is_some()).collect();
        for o in &second {
            assert!(o.instructions.is_empty(), "{file}");
            let with = o.paired_with.unwrap();
            assert_eq!(with.direction, Direction::Store, "{file}");
            let first = stores.iter().find(|p| p.span == with.op).unwrap();
            assert!(first.span.start < o.span.start, "{file}");
            assert_eq!(
                first.instructions[0].mnemonic, "ds_write2st64_b64",
                "{file}"
            );
        }
        if !second.is_empty() {
            written_with.push((file.to_string(), second.len()));
        }
    });
    assert_eq!(checked, 15);
    assert_eq!(
        written_with,
        [
            (
                "attention_backward_paired_stores_gfx942.ttgir".to_string(),
                2
            ),
            (
                "attention_backward_staged_stores_gfx942.ttgir".to_string(),
                3
            ),
        ]
    );
}

/// The same kernel with a barrier put between the loop's two stores: LLVM
/// pairs no writes across a wait, so the loop's stores write alone
/// (`ds_write_b64`), and the stores before the loop still pair.
#[test]
fn writes_are_not_paired_across_a_barrier() {
    let file = "attention_backward_staged_stores_gfx942.ttgir";
    let text = read("kernels", file);
    let stores: Vec<_> = text
        .match_indices("ttg.local_store")
        .map(|(at, _)| at)
        .collect();
    let at = text[..stores[5]].rfind('\n').unwrap() + 1;
    let text = format!("{}      gpu.barrier\n{}", &text[..at], &text[at..]);
    let summaries = summarise(file, text);
    let stores: Vec<_> = summaries[0]
        .ops
        .iter()
        .filter(|o| o.op == "ttg.local_store")
        .collect();
    assert_eq!(stores.len(), 6);
    assert_eq!(stores.iter().filter(|o| o.paired_with.is_some()).count(), 2);
    let alone: u64 = stores
        .iter()
        .flat_map(|o| &o.instructions)
        .filter(|i| i.mnemonic == "ds_write_b64")
        .map(|i| i.count)
        .sum();
    assert_eq!(alone, 2);
}

/// A K loop unrolled twice, whose remainder loop may run no times and
/// starts from the unrolled loop's accumulator, not from zeros: instcombine
/// folds no incoming value into the merge's phi, so the narrowing to bf16
/// stays after it, in pairs even on sm80, whose conversion to the store's
/// layout stores the halves as words (`st.shared.v2.b32`), as on sm89.
#[test]
fn a_remainder_loop_from_another_loops_accumulator_narrows_in_pairs_on_sm80() {
    let checked = exact_corpus_kernels("unrolled_tail_matmul_bf16", |file, _, summaries| {
        if file.ends_with("_sm90.ttgir") {
            return;
        }
        let words = summaries[0]
            .ops
            .iter()
            .filter(|o| o.op == "ttg.convert_layout")
            .flat_map(|o| &o.instructions)
            .any(|i| i.mnemonic == "st.shared.v2.b32");
        assert!(words, "{file}");
    });
    assert_eq!(checked, 3);
}

/// A masked float minimum, which Triton takes as two integer atomics
/// masked by the load's mask and the value's sign, and a select between
/// their results: the converted booleans serve only as masks (of the
/// atomics, through an `arith.andi` with the load's mask) and as the
/// select's condition, so NVIDIA reads them a byte at a time
/// (`ld.shared.b8`, not the `.v2.b8` their vector would be); every
/// instruction as the compiled kernels have them, on seven targets.
#[test]
fn booleans_that_mask_atomics_are_read_a_byte_at_a_time() {
    let checked = exact_corpus_kernels("atomic_min_masked", |file, k, _| {
        if file.contains("_sm") {
            assert_eq!(
                k["shared_mnemonics"]["ld.shared.b8"].as_u64(),
                Some(4),
                "{file}"
            );
        }
    });
    assert_eq!(checked, 7);
}

/// TMA beyond copies, as the PTX has it: a tile reduced into global memory
/// (`desc.atomic_add`, `desc.atomic_max`: one `cp.reduce.async.bulk.tensor`
/// with the reduction's name), and Blackwell's row gather and scatter
/// (`tile::gather4`, `tile::scatter4`: one instruction per four distinct
/// row offsets of a thread and 128-byte message of a row — 16 for 64 rows
/// of 128 f32 over four warps, 2 for 32 rows of 32 halves over two), with
/// the descriptors built on the device and the kernel's total; the dumps
/// before LLVM lowering name the same.
#[test]
fn tma_reductions_gathers_and_scatters_name_the_ptx_s_bulk_tensor_instructions() {
    let checked = exact_corpus_kernels("tma_", |file, k, summaries| {
        let compiled: BTreeMap<String, u64> = kernel_instructions(k).into_iter().collect();
        assert!(
            compiled.keys().any(
                |m| m.starts_with("cp.reduce.async.bulk.tensor") || m.contains("tile::gather4")
            ),
            "{file}"
        );
        let allocated = file.replace(".ttgir", ".allocated.ttgir");
        let before_llvm = summarise(&allocated, read("kernels", &allocated));
        assert_eq!(
            named_counts(&before_llvm, |_| true),
            named_counts(summaries, |_| true),
            "{allocated}"
        );
    });
    assert_eq!(checked, 6);
}

/// A tensor atomic with fewer elements than threads (its layout repeats
/// them): the thread that did each atomic stores what it returned into
/// scratch and every thread reads its copy, on NVIDIA through Triton's
/// `storeShared` (`st.shared::cta`), on AMD also for an add to a buffer
/// (`amdg.buffer_atomic_rmw`). The kernel's total, the scratch's offset
/// Triton gave it and every instruction as the compiled kernels have them,
/// on seven targets.
#[test]
fn atomics_whose_layout_repeats_elements_return_them_through_scratch() {
    let checked = exact_corpus_kernels("atomic_repeated", |file, k, summaries| {
        let allocated = file.replace(".ttgir", ".allocated.ttgir");
        let before_llvm = summarise(&allocated, read("kernels", &allocated));
        for (dump, s) in [(file, summaries), (allocated.as_str(), &before_llvm[..])] {
            assert_eq!(
                named_counts(s, |_| true),
                named_counts(summaries, |_| true),
                "{dump}"
            );
            let atomic = s[0]
                .ops
                .iter()
                .find(|op| op.op.contains("atomic"))
                .expect("the atomic");
            assert_eq!(atomic.offset, 0, "{dump}");
            assert_eq!(atomic.shared_bytes, k["shared_bytes"].as_u64().unwrap());
            if dump.contains(".allocated.") {
                assert_eq!(atomic.recorded.map(|(at, _)| at), Some(0), "{dump}");
            }
            if file.contains("_sm") {
                assert!(
                    atomic
                        .instructions
                        .iter()
                        .any(|i| i.mnemonic.starts_with("st.shared::cta.b")),
                    "{dump}"
                );
            }
        }
    });
    assert_eq!(checked, 14);
}

/// A boolean reduction's result as the condition of selects whose result
/// a conversion stores: from sm86 on LLVM's vectoriser takes as many
/// selects as the conversion's store vector holds as one vector select,
/// and reads their four booleans as one 32-bit word (`ld.shared.b32`); on
/// sm80, and where the conversion stores two floats a lane, it reads the
/// word's bytes apart (`ld.shared.b16` and two `ld.shared.b8`). Every
/// shared-memory instruction as often as the PTX has it.
#[test]
fn selects_a_conversion_stores_read_a_reduction_s_booleans_whole_from_sm86_on() {
    let checked = exact_corpus_kernels("reduce_or_select", |file, _, summaries| {
        // The reduction's own loads: its result read whole or apart.
        let reduce = summaries[0]
            .ops
            .iter()
            .find(|op| op.op == "tt.reduce")
            .expect("the reduction");
        let whole = reduce
            .instructions
            .iter()
            .any(|i| i.mnemonic == "ld.shared.b32");
        let four_a_lane = !file.starts_with("reduce_or_select_pairs");
        assert_eq!(
            whole,
            four_a_lane && !file.ends_with("_sm80.ttgir"),
            "{file}"
        );
    });
    assert_eq!(checked, 7);
}

/// Small matmuls over a K loop that may run no times, on seven targets:
/// every shared-memory instruction as often as the compiled kernel has it.
/// The accumulator's epilogue folds into the loop exit's phi (starting
/// from zeros, or from C widened to f32 and narrowed back), so on sm100
/// (registers of paired 32-bit values) the converted tile is stored as
/// 64-bit words (`st.shared.v2.b64`); on sm80/sm89 the 8-bit B operand,
/// read an element at a time before the loop and at the end of its body,
/// is read once (instcombine makes the two loads one in the loop header).
/// A loop with constant bounds has no path that skips it: sm80 and sm89
/// convert its f16 result in pairs and store words (`static_k_matmul`).
/// On gfx942 the 16-bit loops keep one stage in a buffer at a nonzero
/// offset, and LLVM peels their first trip (`peeled_loops`): their accesses
/// come twice. Where a loop's body is small LLVM unrolls it, which the TTGIR
/// does not say: on sm100 (whose `tcgen05` body reads no operands) the
/// constant loop's three iterations.
#[test]
fn small_matmuls_name_what_llvm_leaves_of_their_loads_and_stores() {
    let (mut checked, mut exact) = (0, 0);
    for k in corpus("kernels") {
        let Some(file) = k["file"]
            .as_str()
            .filter(|f| f.starts_with("small_matmul") || f.starts_with("static_k_matmul"))
        else {
            continue;
        };
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
        let summaries = summarise(file, read("kernels", file));
        assert_eq!(
            summaries[0].shared_bytes,
            k["shared_bytes"].as_u64().unwrap(),
            "{file}"
        );
        let named = named_counts(&summaries, |_| true);
        checked += 1;
        if named == compiled {
            exact += 1;
        } else {
            assert_eq!(
                file, "static_k_matmul_sm100.ttgir",
                "{named:?} {compiled:?}"
            );
        }
    }
    assert_eq!((checked, exact), (29, 28));
}

/// Causal attention of bf16 on seven targets: every shared-memory
/// instruction as often as the compiled kernel has it. On gfx950 the
/// probabilities, converted to bf16 two to a register
/// (`v_cvt_pk_bf16_f32`), are stored one at a time, every second from the
/// high half of its register (`ds_write_b16_d16_hi`); gfx942 converts one
/// at a time and has no such store.
#[test]
fn causal_attention_names_the_compiled_instructions_as_often() {
    let mut checked = 0;
    for k in corpus("kernels") {
        let Some(file) = k["file"]
            .as_str()
            .filter(|f| f.starts_with("causal_attention"))
        else {
            continue;
        };
        let compiled: BTreeMap<String, u64> = kernel_instructions(&k).into_iter().collect();
        let summaries = summarise(file, read("kernels", file));
        // TMA copies and device-built descriptors have their own tests.
        let named = named_counts(&summaries, |m| {
            !m.starts_with("cp.async.bulk") && !m.starts_with("tensormap")
        });
        assert_eq!(named, compiled, "{file}");
        checked += 1;
    }
    assert_eq!(checked, 7);
}

/// Scans across warps read each chunk's partials as LLVM leaves them: the
/// last warp's partial of each accumulator's last chunk feeds nothing and
/// is not read; on NVIDIA the rest of a chunk's side-by-side partials
/// merge into vectors of up to 128 bits, three (or five to seven) widened
/// to the next power of two and narrow ones then typed as 32-bit words
/// (`ld.shared.v2.b32` for three halves), one left alone scalar; on AMD
/// runs of whole dwords (`ds_read_b96`) and a half left over
/// (`ds_read_u16`). Where a 64-lane wave's warps repeat the tensor, only
/// the warps that hold data of their own take scratch. Every total and
/// opcode as the compiled kernels have them, on seven targets; gfx1250
/// keeps 16-bit partials in half registers, two to a register, and stores
/// every second one from its high half (`ds_store_b16_d16_hi`).
#[test]
fn scans_read_the_partials_llvm_keeps() {
    let checked = exact_corpus_kernels("scan_partials", |file, k, _| {
        let compiled = kernel_instructions(k);
        let has = |m: &str| compiled.iter().any(|(c, _)| c == m);
        if file == "scan_partials_f16_sm80.ttgir" {
            assert!(
                has("ld.shared.v4.b16") && has("ld.shared.v2.b32"),
                "{compiled:?}"
            );
        }
        if file == "scan_partials_i64_sm90.ttgir" {
            assert!(
                has("ld.shared.v2.b64") && has("ld.shared.b64"),
                "{compiled:?}"
            );
        }
        if file == "scan_partials_f32_w8_gfx942.ttgir" {
            assert_eq!(k["shared_bytes"].as_u64(), Some(16));
            assert!(has("ds_read_b96"), "{compiled:?}");
        }
        if file == "scan_partials_columns_gfx1250.ttgir" {
            assert!(
                has("ds_store_b16") && has("ds_store_b16_d16_hi"),
                "{compiled:?}"
            );
        }
    });
    assert_eq!(checked, 6 * 7);
}

/// Rows of bf16 gathered within warps: Triton's AMD shuffles sign-extend
/// each source half to the 32 bits `ds_bpermute_b32` moves, and LLVM
/// folds the extension into the read (`ds_read_i16`, gfx1250's
/// `ds_load_i16`); the gathered halves come truncated into registers of
/// their own, so gfx950 stores none from a high half. Sums of halves
/// across warps: from sm86 on the vectoriser pairs the combine and the
/// partials are stored as 32-bit words (`st.shared.v2.b32` for four
/// halves, `st.shared.b32` for two); sm80 stores halves; gfx1250 reads
/// them back in vectors and keeps the results two to a register, so their
/// conversion stores every second one from a high half. An argmax of bf16
/// across warps: from sm86 on the vectoriser pairs the compares, and a
/// warp round reads four halves as two words (`ld.shared.v2.b32`). Every
/// total and opcode as the compiled kernels have them.
///
/// Not modelled: on sm90 and sm100 LLVM reads four of the indices again
/// one word at a time (`ld.shared.b32`) beside their vectors; gfx1250's
/// register allocator puts some gathered halves in high halves
/// (`ds_store_b16_d16_hi`). The gather's reads of the source are checked
/// alone there.
#[test]
fn gathered_and_summed_halves_move_as_llvm_extends_and_pairs_them() {
    let not_modelled = [
        "gather_rows_bf16_sm90.ttgir",
        "gather_rows_bf16_sm100.ttgir",
        "gather_rows_bf16_gfx1250.ttgir",
    ];
    let checked = exact_corpus_kernels_except("gather_rows_bf16", &not_modelled, |file, k, _| {
        let compiled = kernel_instructions(k);
        let has = |m: &str| compiled.iter().any(|(c, _)| c == m);
        if file.ends_with("_gfx942.ttgir") || file.ends_with("_gfx950.ttgir") {
            assert!(has("ds_read_i16") && !has("ds_read_u16"), "{compiled:?}");
        }
    }) + exact_corpus_kernels("half_row_sums_across_warps", |file, k, _| {
        let compiled = kernel_instructions(k);
        let has = |m: &str| compiled.iter().any(|(c, _)| c == m);
        match file {
            "half_row_sums_across_warps_sm90.ttgir" => {
                assert!(has("st.shared.v2.b32"), "{compiled:?}");
            }
            "half_row_sums_across_warps_sm80.ttgir" => {
                assert!(has("st.shared.v4.b16"), "{compiled:?}");
            }
            "half_row_sums_across_warps_gfx1250.ttgir" => {
                assert!(has("ds_store_b16_d16_hi"), "{compiled:?}");
            }
            _ => {}
        }
    }) + exact_corpus_kernels("row_argmax_bf16", |file, k, _| {
        let compiled = kernel_instructions(k);
        let has = |m: &str| compiled.iter().any(|(c, _)| c == m);
        match file {
            "row_argmax_bf16_sm90.ttgir" => assert!(has("ld.shared.v2.b32"), "{compiled:?}"),
            "row_argmax_bf16_sm80.ttgir" => assert!(has("ld.shared.v4.b16"), "{compiled:?}"),
            _ => {}
        }
    });
    assert_eq!(checked, 4 + 2 * 7 + 7);
    let file = "gather_rows_bf16_gfx1250.ttgir";
    let k = corpus("kernels")
        .into_iter()
        .find(|k| k["file"] == file)
        .unwrap();
    let reads = |m: &str| {
        named_counts(&summarise(file, read("kernels", file)), |n| n == m)
            .get(m)
            .copied()
    };
    assert_eq!(reads("ds_load_i16"), k["lds"]["ds_load_i16"].as_u64());
    assert_eq!(reads("ds_load_u16"), None);
}

/// Halves as LLVM holds them after control flow and `tt.split`: a loop of
/// `tt.dot`s accumulating in f16 leaves the loop as halves (it unpacks
/// them from the mma's words; no arithmetic pairs them), so even from
/// sm86 on the epilogue stores `st.shared.v4.b16`; the halves `tt.split`
/// takes from pairs loaded as 32-bit words are lanes of words, and sm80
/// and sm89 store any two as a word (`st.shared.b32`, after a `prmt`).
#[test]
fn halves_leave_loops_and_splits_as_llvm_holds_them() {
    let checked = exact_corpus_kernels("matmul_f16_acc", |file, k, _| {
        if file.ends_with("_sm89.ttgir") {
            assert!(k["shared_mnemonics"]["st.shared.v4.b16"].as_u64() > Some(0));
        }
    }) + exact_corpus_kernels("split_pairs", |file, k, _| {
        if file.ends_with("_sm80.ttgir") || file.ends_with("_sm89.ttgir") {
            assert_eq!(k["shared_mnemonics"]["st.shared.b32"].as_u64(), Some(16));
        }
    });
    assert_eq!(checked, 2 * 7);
}

/// The tutorial's persistent matmul on tensor descriptors (one loop over
/// tiles, flattened; its epilogue stored whole or in two subtiles; fp16
/// and fp8; on sm100 also warp-specialised): where the K loop may run no
/// times the kernel stores a tile of zeros, which LLVM stores as words
/// (`st.shared.v2.b64` on sm100), and through an fp8 conversion it cannot
/// fold as bytes apart on sm90 (`st.shared.v2.b8`); an accumulator
/// narrowed to fp8 comes two bytes to a word (`st.shared.b16`). Every
/// total and opcode as the compiled kernels have them.
#[test]
fn persistent_descriptor_matmuls_store_their_epilogues_as_llvm_packs_them() {
    let checked = exact_corpus_kernels("persistent_descriptors", |file, k, _| {
        let count = |m: &str| k["shared_mnemonics"][m].as_u64().unwrap_or(0);
        if file == "persistent_descriptors_fp8_subtile_sm90.ttgir" {
            assert!(count("st.shared.b16") > 0 && count("st.shared.v2.b8") > 0);
        }
        if file.ends_with("_sm100.ttgir") {
            assert!(count("st.shared.v2.b64") > 0, "{file}");
        }
    });
    // Seven, and a 128x256 tile warp-specialised (`_ws_256`).
    assert_eq!(checked, 8);
}

/// A matmul whose epilogue adds a bias row (converted from its 1-D
/// layout to a slice of the accumulator's) and applies GELU: on sm100 the
/// bias only goes to paired f32 additions, so LLVM reads it in 64-bit
/// pairs (`ld.shared.v2.b64`). Every total and opcode as the compiled
/// kernels have them, on seven targets.
#[test]
fn a_bias_only_paired_arithmetic_takes_is_read_in_pairs_on_sm100() {
    let checked = exact_corpus_kernels("bias_gelu_matmul", |file, k, _| {
        if file.ends_with("_sm100.ttgir") {
            assert!(k["shared_mnemonics"]["ld.shared.v2.b64"].as_u64() > Some(0));
        }
    });
    assert_eq!(checked, 7);
}

/// A gather along the rows with 64-bit indices (as `torch.gather` takes
/// them): the indices' conversion stores 64-bit words, and since the
/// gather uses only their low 32 bits, NVIDIA reads each index's low word
/// (`ld.shared.b32`), and two indices read together as four 32-bit words
/// (`ld.shared.v4.b32`). Every total and opcode as the compiled kernels
/// have them, on sm80 to sm100. (AMD reads some of them as their low
/// words too, which is not modelled.)
#[test]
fn a_gathers_64_bit_indices_are_read_as_their_low_words() {
    let checked = exact_corpus_kernels("gather_rows_i64", |file, k, _| {
        let count = |m: &str| k["shared_mnemonics"][m].as_u64().unwrap_or(0);
        assert!(
            count("st.shared.b64") + count("st.shared.v2.b64") > 0
                && count("ld.shared.b64") + count("ld.shared.v2.b64") == 0,
            "{file}"
        );
        if file.starts_with("gather_rows_i64_vectors") {
            assert!(count("ld.shared.v4.b32") > 0, "{file}");
        }
    });
    assert_eq!(checked, 8);
}

/// Halves moved as LLVM keeps them in 32-bit registers: bf16 rows loaded
/// in vectors, joined and permuted, are stored as words from sm80 on
/// (`st.shared.v2.b32`: NVPTX packs the joined pairs with `prmt`); a
/// descriptor matmul lowered without TMA stores its result through
/// offsets a `tt.reshape` of a range makes, which step along its columns
/// as the range does, so its conversion reads the halves as words
/// (`ld.shared.v2.b32`). Every total and opcode as the compiled kernels
/// have them.
#[test]
fn halves_keep_their_words_through_joins_and_reshapes() {
    let checked = exact_corpus_kernels("join_permute_bf16", |file, k, _| {
        if file.ends_with("_sm80.ttgir") {
            assert!(k["shared_mnemonics"]["st.shared.v2.b32"].as_u64() > Some(0));
        }
    }) + exact_corpus_kernels("descriptor_matmul_64", |file, k, _| {
        assert!(
            k["shared_mnemonics"]["ld.shared.v2.b32"].as_u64() > Some(0),
            "{file}"
        );
    });
    assert_eq!(checked, 7 + 2);
}

/// A bias added to the accumulator on sm100: where the sum is packed to
/// halves, LLVM pairs the f32 arithmetic and reads the bias as 64-bit
/// pairs (`ld.shared.v2.b64`); kept as f32, or as integers, the stores'
/// vectors of four leave it scalar and the bias is read as `.v4.b32`.
/// And a B operand transposed in registers: the conversion making the
/// mma's operand reads its halves as words (`ld.shared.b32`). Every total
/// and opcode as the compiled kernels have them.
#[test]
fn a_bias_pairs_only_where_its_sum_is_packed_to_halves() {
    let pairs = |k: &serde_json::Value| k["shared_mnemonics"]["ld.shared.v2.b64"].as_u64();
    let checked = exact_corpus_kernels("bias_matmul_f16", |file, k, _| {
        if file.ends_with("_sm100.ttgir") {
            assert!(pairs(k) > Some(0), "{file}");
        }
    }) + exact_corpus_kernels("bias_matmul_f32", |file, k, _| {
        assert_eq!(pairs(k), None, "{file}");
    }) + exact_corpus_kernels("bias_matmul_i8", |file, k, _| {
        assert_eq!(pairs(k), None, "{file}");
    }) + exact_corpus_kernels("trans_b_row_sums", |file, k, _| {
        assert!(
            k["shared_mnemonics"]["ld.shared.b32"].as_u64() > Some(1),
            "{file}"
        );
        assert_eq!(k["shared_mnemonics"]["ld.shared.v2.b16"].as_u64(), None);
    });
    assert_eq!(checked, 3 * 2 + 3);
}

/// TMA copies of more than one box: Triton clamps the box to a swizzle
/// row along the contiguous dim (and 256 elements a dim) and sends a
/// message per box, one per issuing warp a round: a one-warp kernel's
/// loads of 64 f32 under a 128-byte swizzle issue two each, its 128x128
/// f32 store four; a 128x256 f16 store from a partition of four warps
/// issues one per thread. Every total and opcode as compiled.
#[test]
fn tma_copies_send_a_message_per_box_a_warp_at_a_time() {
    let bulk = |k: &serde_json::Value, m: &str| k["async_copies"][m].as_u64();
    let load = "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes";
    let store = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group";
    let checked = exact_corpus_kernels("matmul_ws_f32_one_warp", |file, k, s| {
        let copies = s[0]
            .ops
            .iter()
            .filter(|o| o.op.ends_with("async_tma_copy_global_to_local"))
            .count() as u64;
        assert_eq!(bulk(k, load), Some(2 * copies), "{file}");
        assert_eq!(bulk(k, store), Some(4), "{file}");
    }) + exact_corpus_kernels("persistent_descriptors_ws_256", |file, k, _| {
        assert_eq!(bulk(k, store), Some(2), "{file}");
    });
    assert_eq!(checked, 2);
}

/// 64-bit values gathered within warps: Triton shuffles each as two
/// 32-bit halves, so the gather's source conversion reads them as 32-bit
/// words (`ld.shared.v4.b32` for two) and the conversion of its result
/// stores them so (`st.shared.v2.b32` for one), on every NVIDIA target;
/// the transposed result's own reads stay 64-bit. Every total and opcode
/// as compiled.
#[test]
fn gathered_64_bit_values_move_as_words() {
    let checked = exact_corpus_kernels("gather_columns_i64", |file, k, _| {
        let count = |m: &str| k["shared_mnemonics"][m].as_u64();
        assert!(count("ld.shared.v4.b32") > Some(0), "{file}");
        assert!(count("st.shared.v2.b32") > Some(0), "{file}");
        assert!(count("ld.shared.b64") > Some(0), "{file}");
    });
    assert_eq!(checked, 4);
}

/// A malformed dump whose values name themselves (an fp8 conversion of
/// its own result, a join of itself) still gets its summary: every walk
/// over the producers of a stored value is bounded, so none recurses
/// without end, and the buffers keep their bytes.
#[test]
fn values_that_name_themselves_end_every_walk() {
    let file = "persistent_descriptors_fp8_sm100.ttgir";
    let text = read("kernels", file);
    for (from, to) in [
        ("%53 = tt.fp_to_fp %acc_43,", "%53 = tt.fp_to_fp %53,"),
        (
            "%53 = tt.fp_to_fp %acc_43,",
            "%53 = tt.join %53, %53 : tensor<128x128xf32, #linear> -> tensor<128x128x2xf32, #linear> loc(#loc21)\n %99 = tt.fp_to_fp %acc_43,",
        ),
    ] {
        assert!(text.contains(from));
        let summaries = summarise(file, text.replace(from, to));
        assert!(summaries[0].shared_bytes > 0);
    }
}

/// Microscaled matmuls (`tl.dot_scaled`). Blackwell keeps an e2m1 operand
/// beside an e5m2 one padded (`fp4Padded`): each byte of packed pairs
/// takes two, so the 64x128 bytes of B take 16384 (the kernel's total was
/// 8192 short). sm90 upcasts e5m2 to bf16 four bytes to a register, so
/// the pairs it reads stay `ld.shared.v2.b8` (e4m3 goes two to a 16-bit
/// register, read as one `ld.shared.b16`). Scales loaded two bytes to a
/// thread and converted as they are store the loaded word
/// (`st.shared.b16`). gfx1250 reads the scales its loop body then refills
/// from registers one request at a time (`ds_load_b32`), and pairs the
/// same reads after the loop. Every total and opcode as compiled.
#[test]
fn microscaled_operands_as_compiled() {
    let count = |k: &serde_json::Value, m: &str| k["shared_mnemonics"][m].as_u64();
    let lds = |k: &serde_json::Value, m: &str| k["lds"][m].as_u64();
    let checked = exact_corpus_kernels("microscaled_matmul_e5m2_e2m1", |file, k, s| {
        if file.ends_with("_sm100.ttgir") {
            let padded = s[0]
                .ops
                .iter()
                .find(|o| o.op.ends_with("local_alloc") && o.offset == 32768)
                .expect("the B buffer");
            assert_eq!(padded.shared_bytes, 16384, "{file}");
        }
        if file.ends_with("_sm90.ttgir") {
            assert_eq!(count(k, "ld.shared.v2.b8"), Some(64), "{file}");
            assert_eq!(count(k, "ld.shared.b16"), None, "{file}");
        }
        if file.ends_with("_gfx1250.ttgir") {
            // Two scale reads in the loop body, two after it in each of
            // the two stages the pipeliner peels.
            assert_eq!(lds(k, "ds_load_b32"), Some(4), "{file}");
            assert_eq!(lds(k, "ds_load_2addr_stride64_b32"), Some(4), "{file}");
        }
    }) + exact_corpus_kernels("microscaled_matmul_e4m3_e2m1", |file, k, _| {
        if file.ends_with("_gfx1250.ttgir") {
            assert_eq!(lds(k, "ds_load_b32"), Some(6), "{file}");
            assert_eq!(lds(k, "ds_load_2addr_b32"), Some(3), "{file}");
        }
    }) + exact_corpus_kernels("microscaled_tile_e2m1", |file, k, _| {
        if file.ends_with("_sm80.ttgir") || file.ends_with("_sm89.ttgir") {
            assert_eq!(count(k, "st.shared.b16"), Some(2), "{file}");
            assert_eq!(count(k, "st.shared.v2.b8"), None, "{file}");
        }
    });
    assert_eq!(checked, 7 + 4 + 7);
}

/// 4-bit weights unpacked, converted to f16 and scaled in registers: the
/// conversion from integers is one at a time on NVIDIA
/// (`cvt.rn.f16.s16`), and the vectoriser leaves the scaling scalar too
/// (`mul.f16`), so the products are stored as halves
/// (`st.shared.v2.b16`), not words, even where it pairs other 16-bit
/// arithmetic (sm89 on). Every total and opcode as compiled.
#[test]
fn halves_converted_from_integers_stay_halves() {
    let checked = exact_corpus_kernels("int4_dequant_matmul", |file, k, _| {
        if ["_sm89", "_sm90", "_sm100"]
            .iter()
            .any(|t| file.ends_with(&format!("{t}.ttgir")))
        {
            let count = |m: &str| k["shared_mnemonics"][m].as_u64();
            assert!(count("st.shared.v2.b16") > Some(0), "{file}");
            assert_eq!(count("st.shared.b32"), None, "{file}");
        }
    });
    assert_eq!(checked, 7);
}

/// 8-bit floats narrowed two at a time into a 16-bit register (e5m2 from
/// sm89, `cvt.rn.satfinite.e5m2x2.f32`) are stored as 16-bit words: four
/// as `st.shared.v2.b16`, eight as `.v4.b16`; before sm89 Triton narrows
/// e5m2 four at a time into a 32-bit register, and the bytes go as words
/// of 32 bits (`st.shared.b32`, `.v2.b32`). An accumulator a K loop that
/// may run no times leaves, taken by a row maximum and converted to
/// halves: with two uses LLVM converts after the loop's merge, and sm80
/// converts the pairs there (`st.shared.v2.b32`). Every total and opcode
/// as compiled.
#[test]
fn narrowed_bytes_and_converted_accumulators_move_as_their_registers() {
    let count = |k: &serde_json::Value, m: &str| k["shared_mnemonics"][m].as_u64();
    let on = |file: &str, target: &str| file.ends_with(&format!("_{target}.ttgir"));
    let checked = exact_corpus_kernels("dot_to_fp8_wide", |file, k, _| {
        if on(file, "sm80") {
            assert_eq!(count(k, "st.shared.v2.b32"), Some(8), "{file}");
        }
        if on(file, "sm89") {
            assert_eq!(count(k, "st.shared.v4.b16"), Some(8), "{file}");
        }
    }) + exact_corpus_kernels("dot_to_fp8_narrow", |file, k, _| {
        if on(file, "sm80") {
            assert_eq!(count(k, "st.shared.b32"), Some(8), "{file}");
        }
        if on(file, "sm89") {
            assert_eq!(count(k, "st.shared.v2.b16"), Some(8), "{file}");
        }
    }) + exact_corpus_kernels("matmul_row_maximum", |file, k, _| {
        // The bf16 kernels' own test is below.
        if on(file, "sm80") && !file.contains("bf16") {
            assert!(count(k, "st.shared.v2.b32") >= Some(8), "{file}");
            assert_eq!(count(k, "st.shared.v4.b16"), None, "{file}");
        }
    });
    assert_eq!(checked, 4 + 4 + 14);
}

/// A row maximum of an mma accumulator across warps: from sm86 on (before
/// sm100's 64-bit f32 pairs) the vectoriser pairs the combine after each
/// round's load, and LLVM reads each vector of four f32 as two pairs
/// (`ld.shared.v2.b32`); sm80 reads them whole. Every total and opcode as
/// compiled.
#[test]
fn row_maxima_across_warps_read_their_partials_in_pairs_from_sm86() {
    let count = |k: &serde_json::Value, m: &str| k["shared_mnemonics"][m].as_u64();
    let checked = exact_corpus_kernels("matmul_row_maximum_bf16", |file, k, _| {
        if file.ends_with("_sm89.ttgir") {
            assert_eq!(count(k, "ld.shared.v2.b32"), Some(4), "{file}");
        }
        if file.ends_with("_sm80.ttgir") {
            assert_eq!(count(k, "ld.shared.v2.b32"), None, "{file}");
        }
    });
    assert_eq!(checked, 7);
}

/// Weight-only quantised matmuls: int8 (or e4m3) weights upcast to the
/// activations' type in a pipelined K loop. The weights read before the
/// loop and for the next iteration feed the loop's phi, which instcombine
/// makes a phi of the bytes (`ld.shared.b8`); the ones read and used in the
/// same iteration sign-extend as they load (`ld.shared.s8`). sm80, with no
/// vectoriser, keeps the loop-carried f16 operand as halves
/// (`ld.shared.v4.b16`, `ld.shared.v2.b32` from sm89); e4m3 converted two
/// to a 16-bit register is read as 16-bit words (`ld.shared.v4.b16` for
/// eight bytes); gfx942 reads weights it takes a byte at a time
/// sign-extended (`ds_read_i8`, the small tile). And column maxima of bytes and 16-bit integers widened to
/// i32 and narrowed back: NVIDIA reads the conversion of the reduced values
/// to the result's layout as 64-bit words (`ld.shared.b64`); where two
/// bytes of the result go to global memory together, NVIDIA reads each
/// pair as a 16-bit word (`ld.shared.b16`), and gfx1250 keeps two pairs to
/// a register, storing every second from a high half
/// (`ds_store_b16_d16_hi`). Every total and opcode as compiled, on every
/// target.
#[test]
fn quantised_weights_and_narrowed_maxima_as_compiled() {
    let count = |k: &serde_json::Value, m: &str| {
        k["shared_mnemonics"][m]
            .as_u64()
            .or_else(|| k["lds"][m].as_u64())
    };
    let mut seen = BTreeMap::new();
    let mut checked = 0;
    for prefix in ["dequant_matmul_", "column_max_"] {
        checked += exact_corpus_kernels(prefix, |file, k, _| {
            for m in [
                "ld.shared.b8",
                "ld.shared.s8",
                "ld.shared.v4.b16",
                "ld.shared.b64",
                "ld.shared.b16",
                "ds_read_i8",
                "ds_store_b16_d16_hi",
            ] {
                if count(k, m).is_some_and(|n| n > 0) {
                    *seen
                        .entry((file.split('_').next_back().unwrap().to_string(), m))
                        .or_insert(0) += 1;
                }
            }
        });
    }
    assert_eq!(checked, 41);
    // The classes above, each where the compiled kernels have it.
    for (target, m) in [
        ("sm80.ttgir", "ld.shared.b8"),
        ("sm80.ttgir", "ld.shared.s8"),
        ("sm80.ttgir", "ld.shared.v4.b16"),
        ("sm89.ttgir", "ld.shared.b8"),
        ("sm90.ttgir", "ld.shared.v4.b16"),
        ("sm90.ttgir", "ld.shared.b64"),
        ("sm100.ttgir", "ld.shared.b64"),
        ("gfx942.ttgir", "ds_read_i8"),
        ("sm90.ttgir", "ld.shared.b16"),
        ("gfx1250.ttgir", "ds_store_b16_d16_hi"),
    ] {
        assert!(
            seen.contains_key(&(target.to_string(), m)),
            "{target} {m}: {seen:?}"
        );
    }
}

/// Scans whose partial stores LLVM folds onto the warp id: with every
/// thread and warp along the axis a chunk's partial goes to `(wave & (W -
/// 1)) + k`, and where `k` sets every bit of the wave's range above the
/// warps InstCombine makes that `wave | k`, a base of its own. On CDNA the
/// 64-bit ones go alone, and a lone 32-bit one too, where the summary would
/// otherwise pair them (`ds_write2_b64` for two): 1-D cumulative sums of
/// i64 over 8 warps and of i32 over 2 (eight chunks), and 64-bit rows over
/// 8 warps. Every total and opcode as compiled, on every target.
#[test]
fn scans_whose_partial_stores_llvm_folds_as_compiled() {
    let mut singles = BTreeMap::new();
    let mut checked = 0;
    for prefix in [
        "cumsum_1d_i64_chunks_",
        "cumsum_1d_i32_chunks_",
        "cumsum_rows_i64_folded_",
    ] {
        checked += exact_corpus_kernels(prefix, |file, k, _| {
            for m in ["ds_write_b32", "ds_write_b64", "ds_store_b64"] {
                if let Some(n) = k["lds"][m].as_u64() {
                    singles.insert((file.to_string(), m), n);
                }
            }
        });
    }
    assert_eq!(checked, 21);
    // The stores that go alone, as the compiled kernels have them.
    for (file, m, n) in [
        ("cumsum_1d_i64_chunks_gfx942.ttgir", "ds_write_b64", 2),
        ("cumsum_1d_i64_chunks_gfx1250.ttgir", "ds_store_b64", 2),
        ("cumsum_1d_i32_chunks_gfx950.ttgir", "ds_write_b32", 2),
        ("cumsum_rows_i64_folded_gfx942.ttgir", "ds_write_b64", 2),
    ] {
        assert_eq!(
            singles.get(&(file.to_string(), m)),
            Some(&n),
            "{file}: {singles:?}"
        );
    }
}

/// C += A·B over a K loop that may run no times, four warps: on the path
/// that skips the loop the narrowing back to bf16 folds to C as loaded, so
/// instcombine moves it into the loop exit's phi, and sm80, which converts
/// in pairs only where the two are packed in the converting block, stores
/// each thread's two halves apart (`st.shared.v2.b16`); sm89 converts in
/// pairs and stores words (`st.shared.b32`); sm90 and sm100 use
/// `stmatrix`. Every opcode as compiled.
#[test]
fn an_accumulated_tile_narrowed_in_the_loop_exit_stays_apart_on_sm80() {
    let mut stores = BTreeMap::new();
    let checked = exact_corpus_kernels(
        "small_matmul_accumulate_four_warps_",
        |file, _, summaries| {
            let last = summaries[0]
                .ops
                .iter()
                .rfind(|o| o.op == "ttg.convert_layout")
                .unwrap();
            stores.insert(file.to_string(), last.instructions[0].mnemonic.clone());
        },
    );
    assert_eq!(checked, 4);
    assert_eq!(
        stores["small_matmul_accumulate_four_warps_sm80.ttgir"],
        "st.shared.v2.b16"
    );
    assert_eq!(
        stores["small_matmul_accumulate_four_warps_sm89.ttgir"],
        "st.shared.b32"
    );
}

/// f32 cumulative sums over many chunks: on CDNA, whose packed f32
/// arithmetic the SLP vectoriser uses, a thread loads its 15 (4 warps) or
/// 31 (2 warps) partials as vectors of growing width from the start of
/// the scratch, and the LDS reads those 8 bytes past a 16-byte line as
/// 64-bit pairs (`ds_read2_b64`), the first two floats as one
/// `ds_read_b64` and the last alone (`ds_read_b32`); NVIDIA and gfx1250
/// read them as they merge. Every total and opcode as compiled.
#[test]
fn f32_scan_partials_the_slp_vectoriser_loads_as_compiled() {
    let mut reads = BTreeMap::new();
    let checked = exact_corpus_kernels("cumsum_1d_f32_", |file, k, _| {
        if let Some(n) = k["lds"]["ds_read2_b64"].as_u64() {
            reads.insert(file.to_string(), n);
        }
    });
    assert_eq!(checked, 14);
    let expected: BTreeMap<String, u64> = [
        ("cumsum_1d_f32_chunks_gfx942.ttgir", 3),
        ("cumsum_1d_f32_chunks_gfx950.ttgir", 3),
        ("cumsum_1d_f32_long_gfx942.ttgir", 7),
        ("cumsum_1d_f32_long_gfx950.ttgir", 7),
    ]
    .into_iter()
    .map(|(f, n)| (f.to_string(), n))
    .collect();
    assert_eq!(reads, expected);
}

/// Booleans widened past a byte (a cumulative sum of them as i32): the
/// conversion that brings them to the scan's layout keeps their truncation
/// to `i1`, and NVIDIA reads the bytes apart (`ld.shared.b16` and two
/// `ld.shared.b8` for four). And narrow values AMD keeps packed as it
/// shuffles them: fp8 pairs swapped by `tt.split` and `tt.join`, then
/// transposed, and halves an AMD buffer load read in vectors of its
/// `contiguity`, permuted in three dims, stored one at a time with every
/// register's high half `_d16_hi`. Every total and opcode as compiled.
#[test]
fn widened_booleans_and_shuffled_vectors_as_compiled() {
    let mut high = 0;
    let mut apart = 0;
    let mut checked = 0;
    for prefix in ["boolean_cumsum_", "swapped_pairs_", "permuted_3d_"] {
        checked += exact_corpus_kernels(prefix, |file, k, _| {
            let lds = k["lds"].as_object();
            high += usize::from(lds.is_some_and(|l| l.keys().any(|m| m.ends_with("_d16_hi"))));
            apart += usize::from(
                file.starts_with("boolean_cumsum_sm")
                    && k["shared_mnemonics"]["ld.shared.b8"].as_u64() == Some(4)
                    && k["shared_mnemonics"]["ld.shared.b16"].as_u64() == Some(2),
            );
        });
    }
    assert_eq!(checked, 20);
    // The shuffles on every AMD target but gfx1250's permute (it stores
    // pairs of halves whole); the cumulative sum on all four NVIDIA targets.
    assert_eq!((high, apart), (5, 4));
}

/// Attention on e4m3 with V stored transposed: gfx950 narrows the
/// probabilities to fp8 two at a time into either half of a register
/// (`v_cvt_scalef32_pk_fp8_f32`), four to a register, and stores every
/// fourth byte from a high half (`ds_write_b8_d16_hi`); gfx942 takes them
/// back to f16 first. Every total and opcode as compiled, on six targets.
#[test]
fn fp8_attention_as_compiled() {
    let mut high = Vec::new();
    let checked = exact_corpus_kernels("attention_fp8_", |file, k, _| {
        if k["lds"]["ds_write_b8_d16_hi"]
            .as_u64()
            .is_some_and(|n| n > 0)
        {
            high.push(file.to_string());
        }
    });
    assert_eq!(checked, 6);
    assert_eq!(high, ["attention_fp8_gfx950.ttgir"]);
}
