//! Reductions of f32 on sm100 against their PTX
//! (tests/vectors/triton/sm100_reductions.json, gen_sm100_reductions.py):
//! Blackwell's paired f32 arithmetic makes LLVM keep the sums and products
//! its vectoriser pairs in 64-bit registers, and move four f32 of them as
//! `ld/st.shared.v2.b64` where sm90 has `.v4.b32`. 246 kernels: sums,
//! maxima and products of eight shapes on 1 to 8 warps (`red_*`, which the
//! rule was drawn from), and softmax, layer norm, sums of squares and 3-D
//! sums written after it, and sums beside a maximum in one reduction.

use std::collections::BTreeMap;

use layout_db::{Database, SourceFile, kernel_summaries};

struct Compiled {
    name: String,
    /// The summary's total and the compiled kernel's `metadata.shared`.
    shared_bytes: [u64; 2],
    ptx: BTreeMap<String, u64>,
    named: BTreeMap<String, u64>,
}

fn compiled() -> Vec<Compiled> {
    let v = layout_test_support::vectors("triton/sm100_reductions.json");
    assert_eq!(v["target"], "cuda:100");
    v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let name = k["name"].as_str().unwrap().to_string();
            let mut db = Database::default();
            let file = SourceFile::open(
                &mut db,
                format!("{name}.ttgir"),
                k["ttgir"].as_str().unwrap().to_string(),
            );
            let summaries = kernel_summaries(&db, file);
            assert_eq!(summaries.len(), 1, "{name}");
            let mut named = BTreeMap::new();
            for i in summaries[0].ops.iter().flat_map(|o| &o.instructions) {
                *named.entry(i.mnemonic.clone()).or_insert(0) += i.count;
            }
            Compiled {
                name,
                shared_bytes: [
                    summaries[0].shared_bytes,
                    k["shared_bytes"].as_u64().unwrap(),
                ],
                ptx: k["shared_mnemonics"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(m, n)| (m.clone(), n.as_u64().unwrap()))
                    .collect(),
                named,
            }
        })
        .collect()
}

#[test]
fn sums_and_products_on_sm100_move_f32_in_pairs_as_the_ptx_does() {
    let kernels = compiled();
    let (mut exact, mut pairs) = (0, 0);
    let mut wrong_names = Vec::new();
    let mut uncovered = 0;
    for k in &kernels {
        assert_eq!(k.shared_bytes[0], k.shared_bytes[1], "{}", k.name);
        if k.named == k.ptx {
            exact += 1;
            pairs += u64::from(k.ptx.keys().any(|m| m.ends_with(".b64")));
        }
        let lacking: Vec<&String> = k.named.keys().filter(|m| !k.ptx.contains_key(*m)).collect();
        if !lacking.is_empty() {
            wrong_names.push(format!(
                "{}: names {lacking:?}, the PTX {:?}",
                k.name, k.ptx
            ));
        }
        uncovered += usize::from(k.ptx.keys().any(|m| !k.named.contains_key(m)));
    }
    eprintln!(
        "{exact} of {} exact ({pairs} of them with pairs); {} name what the PTX lacks, {uncovered} have PTX instructions no op names",
        kernels.len(),
        wrong_names.len()
    );
    for w in &wrong_names {
        eprintln!("  {w}");
    }
    assert!(kernels.len() >= 240, "{}", kernels.len());
    // The rest are LLVM's vectoriser pairing only part of a thread's
    // values (both forms in one kernel), and (the names below) reductions
    // whose two partials per output it loads as four f32 although the one
    // shuffle step after the load combines them as pairs elsewhere, and
    // five sums beside a maximum along the rows, whose maximum's partials
    // it loads in pairs too (the paired product after the reduction takes
    // them) while it stores them single.
    assert!(
        exact >= 204 && pairs >= 118,
        "{exact} exact, {pairs} with pairs"
    );
    assert!(wrong_names.len() <= 11, "{wrong_names:#?}");
}

/// One reduction of two operands, summed and maximised (`sum_and_max`):
/// the sum's partials are stored in pairs, the maximum's single, operand
/// by operand, as the PTX stores them (16 of the 18; in the other two, on
/// two warps, LLVM's vectoriser pairs only some of a thread's sums).
#[test]
fn a_sum_beside_a_maximum_pairs_alone() {
    let (mut compared, mut exact) = (0, 0);
    for k in compiled()
        .iter()
        .filter(|k| k.name.starts_with("sum_and_max"))
    {
        let stores = |m: &BTreeMap<String, u64>| -> BTreeMap<String, u64> {
            m.iter()
                .filter(|(name, _)| name.starts_with("st."))
                .map(|(name, n)| (name.clone(), *n))
                .collect()
        };
        compared += 1;
        exact += usize::from(stores(&k.named) == stores(&k.ptx));
    }
    assert_eq!(compared, 18);
    assert!(exact >= 16, "{exact} of {compared}");
}

/// A maximum has no paired arithmetic: its kernels move four f32 as
/// `.v4.b32`, and so does the model.
#[test]
fn maxima_are_not_paired() {
    let mut compared = 0;
    for k in compiled().iter().filter(|k| k.name.contains("_op1_")) {
        assert!(
            !k.ptx.keys().any(|m| m.ends_with(".b64")),
            "{}: {:?}",
            k.name,
            k.ptx
        );
        assert_eq!(k.named, k.ptx, "{}", k.name);
        compared += 1;
    }
    assert!(compared >= 40, "{compared}");
}

/// The conversions' `ldmatrix` / `stmatrix`, by count of matrices and as
/// often as the PTX has them: where the data goes through the buffer in
/// several rounds, each instruction moves one round's matrices (four
/// rounds of one matrix are `4 x ldmatrix...x1`, not one `.x4`).
#[test]
fn matrix_instructions_move_one_round_each() {
    let mut compared = 0;
    for k in compiled() {
        let matrices = |m: &BTreeMap<String, u64>| -> BTreeMap<String, u64> {
            m.iter()
                .filter(|(name, _)| name.contains("matrix"))
                .map(|(name, n)| (name.clone(), *n))
                .collect()
        };
        let ptx = matrices(&k.ptx);
        if ptx.is_empty() {
            continue;
        }
        assert_eq!(matrices(&k.named), ptx, "{}", k.name);
        compared += 1;
    }
    assert!(compared >= 100, "{compared}");
}
