//! The analysis of a dump agrees with what the compiled kernel does
//! (tests/corpus/ttgir/manifest.json: each kernel's shared-memory bytes and
//! instruction counts from its PTX or AMDGCN, by the Triton 3.9 wheel):
//! - every shared-memory access layoutc names — loads, stores and
//!   allocations with a value — uses an instruction the kernel's code
//!   really has, by its exact opcode: `st.shared.v4.b32` or
//!   `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` on NVIDIA, and on
//!   AMD the LDS mnemonic, including the paired `ds_read2*`/`ds_write2*`
//!   the compiler forms and gfx950's transposing `ds_read_b64_tr_b16/b8`;
//! - a conversion through shared memory needs no more scratch than the
//!   kernel allocates, and a kernel with one uses shared memory at all.

use layout_algebra::bank::Instruction;
use layout_db::{Database, SourceFile, Value, item_values};

fn manifest() -> Vec<serde_json::Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/ttgir/manifest.json"
    );
    serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// How often the kernel's code uses an instruction (0 when not counted).
fn uses(kernel: &serde_json::Value, name: &str) -> u64 {
    kernel["instructions"][name].as_u64().unwrap_or(0)
}

#[test]
fn the_analysis_of_every_dump_matches_its_compiled_kernel() {
    let kernels = manifest();
    assert!(kernels.len() >= 40);
    let (mut accesses, mut amd, mut nvidia, mut paired, mut transposed, mut conversions) =
        (0, 0, 0, 0, 0, 0);
    let mut disagreements = Vec::new();
    for k in &kernels {
        let file_name = k["file"].as_str().unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/ttgir")
            .join(file_name);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, file_name.into(), text.clone());
        let shared_bytes = k["shared_bytes"].as_u64().unwrap();
        for (span, value) in item_values(&db, file) {
            let line = text[..span.start].lines().count();
            match &value {
                Some(Value::Access(a)) => {
                    accesses += 1;
                    let name = a.instruction.to_string();
                    let counted = if let Some(lds) = k.get("lds") {
                        // AMD: the exact mnemonic.
                        amd += 1;
                        paired += matches!(a.instruction.instruction, Instruction::Paired { .. })
                            as usize;
                        transposed += matches!(
                            a.instruction.instruction,
                            Instruction::ReadTransposed { .. }
                        ) as usize;
                        lds[name.as_str()].as_u64().unwrap_or(0)
                    } else {
                        // NVIDIA: the exact opcode, and its family agrees.
                        nvidia += 1;
                        let exact = k["shared_mnemonics"][name.as_str()].as_u64().unwrap_or(0);
                        exact.min(uses(k, a.instruction.family()))
                    };
                    if counted == 0 {
                        disagreements.push(format!(
                            "{file_name}:{line}: layoutc says {name}, the kernel's code has none"
                        ));
                    }
                }
                Some(Value::Conversion(c)) if c.kind.name() == "shared" => {
                    conversions += 1;
                    if c.scratch_bytes > shared_bytes || shared_bytes == 0 {
                        disagreements.push(format!(
                            "{file_name}:{line}: {} scratch bytes, the kernel allocates {shared_bytes}",
                            c.scratch_bytes
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    eprintln!(
        "{accesses} accesses ({nvidia} on NVIDIA, {amd} on AMD: {paired} paired, {transposed} transposing reads), {conversions} conversions through shared memory"
    );
    assert!(
        accesses >= 100
            && amd >= 80
            && nvidia >= 30
            && paired >= 30
            && transposed >= 12
            && conversions >= 5,
        "{accesses} accesses ({amd} AMD, {paired} paired, {transposed} transposing), {conversions} conversions"
    );
}
