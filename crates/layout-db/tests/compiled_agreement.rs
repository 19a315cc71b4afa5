//! The analysis of a dump agrees with what the compiled kernel does
//! (tests/corpus/ttgir/manifest.json: each kernel's shared-memory bytes and
//! instruction counts from its PTX or AMDGCN, by the Triton 3.9 wheel):
//! - every shared-memory access layoutc names with a matrix instruction or an
//!   LDS width is one the kernel's code really uses, except for two AMD
//!   instructions layoutc does not model yet, which are named: the paired
//!   `ds_read2`/`ds_write2` (two addresses per lane; the compiler pairs the
//!   32- and 64-bit accesses layoutc counts one by one) and gfx950's
//!   transposing `ds_read_b64_tr_b16` (where layoutc, which has no
//!   transposing LDS read, counts 16-bit reads);
//! - a conversion through shared memory needs no more scratch than the
//!   kernel allocates, and a kernel with one uses shared memory at all.

use layout_db::{Database, SourceFile, Value, named_values};

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
    let (mut accesses, mut conversions, mut unmodelled) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for k in &kernels {
        let file_name = k["file"].as_str().unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/ttgir")
            .join(file_name);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, file_name.into(), text);
        let shared_bytes = k["shared_bytes"].as_u64().unwrap();
        for v in named_values(&db, file) {
            match &v.value {
                Some(Value::Access(a)) => {
                    accesses += 1;
                    let name = &a.instruction;
                    // ldmatrix.x4.trans -> ldmatrix; ds_read_b128 as counted.
                    let counted = if name.starts_with("ldmatrix") {
                        uses(k, "ldmatrix")
                    } else if name.starts_with("stmatrix") {
                        uses(k, "stmatrix")
                    } else if name.starts_with("ds_") {
                        uses(k, name)
                    } else if name.starts_with("ld.shared") {
                        uses(k, "ld.shared")
                    } else {
                        uses(k, "st.shared")
                    };
                    let load = name.starts_with("ds_read");
                    let paired = uses(k, if load { "ds_read2" } else { "ds_write2" }) > 0
                        && (name.ends_with("_b32") || name.ends_with("_b64"));
                    let transposing = load
                        && k["target"] == "gfx950"
                        && (name.ends_with("_b16") || name.ends_with("_b8"))
                        && uses(k, "ds_read_b64") > 0;
                    if counted == 0 && (paired || transposing) {
                        unmodelled += 1;
                    } else if counted == 0 {
                        disagreements.push(format!(
                            "{file_name} {}: layoutc says {name}, the kernel's code has none",
                            v.name
                        ));
                    }
                }
                Some(Value::Conversion(c)) if c.kind.name() == "shared" => {
                    conversions += 1;
                    if c.scratch_bytes > shared_bytes || shared_bytes == 0 {
                        disagreements.push(format!(
                            "{file_name} {}: {} scratch bytes, the kernel allocates {shared_bytes}",
                            v.name, c.scratch_bytes
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    eprintln!(
        "{accesses} accesses ({unmodelled} through AMD instructions layoutc does not model), {conversions} conversions through shared memory"
    );
    assert!(
        accesses >= 20 && conversions >= 5,
        "{accesses} accesses, {conversions} conversions"
    );
    assert!(
        unmodelled * 3 < accesses,
        "{unmodelled} of {accesses} unmodelled"
    );
}
