//! The shared encodings of real AMD and Gluon dumps, pasted as Triton 3.9
//! prints them, lay tensors out exactly as the wheel does
//! (tests/vectors/triton/shared_encodings.json, made by
//! gen_shared_encodings.py): `amd_rotating_shared`, `shared_linear`,
//! `padded_shared` in both printed forms (with the offsets the padding
//! moves, checked against compiled kernels), and `partitioned_shared`.

use layout_algebra::triton::Encoding;
use layout_db::{Database, SourceFile, Value, named_values};

fn vectors() -> serde_json::Value {
    layout_test_support::vectors("triton/shared_encodings.json")
}

fn bases(v: &serde_json::Value) -> Vec<Vec<u32>> {
    layout_test_support::lists(v)
        .into_iter()
        .map(|b| b.into_iter().map(|x| x as u32).collect())
        .collect()
}

#[test]
fn pasted_shared_encodings_lay_out_tensors_as_triton_does() {
    let doc = vectors();
    let cases = doc["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let shape: Vec<u64> = case["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        let text = format!(
            "layout x = tensor<{}xf16, {}>\n",
            dims.join("x"),
            case["ttgir"].as_str().unwrap()
        );
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, "case.lay".into(), text.clone());
        let values = named_values(&db, file);
        let Some(Value::Tensor(t)) = &values[0].value else {
            let report = layout_db::check_file(&db, file);
            failures.push(format!("{name}: {text} -> {:?}", report.diagnostics));
            continue;
        };
        *kinds
            .entry(case["kind"].as_str().unwrap().into())
            .or_default() += 1;
        let got = t.layout.bases();
        // Partitioned layouts around a padded one have no layout in the wheel;
        // their bases come from Triton's rule (`model_bases`).
        let want_bases = case.get("bases").or(case.get("model_bases"));
        for (dim, want) in want_bases.and_then(|b| b.as_object()).into_iter().flatten() {
            let got_dim = got
                .iter()
                .find(|(n, _)| n.as_str() == dim)
                .map(|(_, b)| b.clone())
                .unwrap_or_default();
            if got_dim != bases(want) {
                failures.push(format!("{name} {dim}: {got_dim:?}, Triton {want}"));
            }
        }
        // Padded layouts: every element's offset once the padding is in,
        // and the size of the allocation.
        if let (Some(want), Encoding::PaddedShared(p)) = (case.get("padded_offsets"), &t.encoding) {
            let n: u64 = shape.iter().product();
            let mut offsets = vec![u64::MAX; n as usize];
            let block_free = got
                .iter()
                .all(|(d, b)| d.as_str() != "block" || b.is_empty());
            if block_free {
                for o in 0..n {
                    let coords = t.layout.apply(&[("offset", o), ("block", 0)]).unwrap();
                    let index = coords
                        .iter()
                        .zip(&shape)
                        .fold(0u64, |acc, ((_, c), &d)| acc * d + *c as u64);
                    offsets[index as usize] = p.padded_offset(o);
                }
                let want: Vec<u64> = want
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect();
                if offsets != want {
                    failures.push(format!("{name}: padded offsets differ from Triton's"));
                }
            }
            // Each CTA allocates its own share: the elements its offsets reach.
            let per_cta = 1u64 << t.layout.in_dim_size_log2("offset");
            let alloc = case["alloc_elements"].as_u64().unwrap();
            if p.alloc_elements(per_cta) != alloc {
                failures.push(format!(
                    "{name}: {} elements allocated, Triton {alloc}",
                    p.alloc_elements(per_cta)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for kind in [
        "amd_rotating_shared",
        "shared_linear",
        "padded_shared",
        "partitioned_shared",
    ] {
        assert!(kinds.get(kind).copied().unwrap_or(0) >= 10, "{kinds:?}");
    }
}

/// Where layoutc and the wheel part ways on an invalid paste, on purpose.
const DELIBERATE: &[(&str, &str)] = &[
    // Triton 3.9 accepts these and then divides by zero or builds a
    // non-permutation; layoutc refuses them with the reason.
    ("rotating_defaults", "refused"),
    ("rotating_order_not_permutation", "refused"),
    ("rotating_maxPhase_3", "refused"),
    // Triton ignores keys beside offset/block; layoutc asks for one form.
    ("padded_mixed_forms", "refused"),
    // The CTA keys of older dumps (CTAsPerCGA, ...) are still read.
    ("rotating_old_cta_keys", "accepted"),
    // `alignment` inside the braces means the same as after them.
    ("shared_linear_alignment_inside", "accepted"),
];

#[test]
fn pasted_shared_encodings_are_refused_where_triton_refuses_them() {
    let doc = vectors();
    let mut failures = Vec::new();
    for case in doc["invalid"].as_array().unwrap() {
        let Some(ttgir) = case.get("ttgir").and_then(|t| t.as_str()) else {
            continue;
        };
        let name = case["name"].as_str().unwrap();
        let text = format!("#smem = #ttg.shared_memory\nlayout x = {ttgir}\n");
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, "case.lay".into(), text);
        let errors = layout_db::check_file(&db, file)
            .diagnostics
            .iter()
            .filter(|d| d.severity == layout_db::Severity::Error)
            .count();
        let triton_refuses = case["outcome"] != "ok";
        let refuses = match DELIBERATE.iter().find(|(n, _)| *n == name) {
            Some((_, what)) => *what == "refused",
            None => triton_refuses,
        };
        if (errors > 0) != refuses {
            failures.push(format!(
                "{name}: {} errors, but it should be {}",
                errors,
                if refuses { "refused" } else { "accepted" }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An access to a partitioned tensor is counted with its pieces' buffers as
/// one address space: where a partition's buffer holds whole rows of banks,
/// each lane keeps the bank of its offset in its piece, so the count equals
/// that of the same access to the unpartitioned tensor laid out as the
/// pieces are (a second layout, not the partitioned one). Where a buffer is
/// smaller than a row of banks, the count is refused with the reason.
#[test]
fn partitioned_accesses_count_the_banks_of_their_pieces() {
    let blocked = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let inner = "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>";
    let count = |shared: &str, shape: &str| {
        let text = format!(
            "target = gfx1250\nlayout reg = tensor<{shape}xf32, {blocked}>\nlayout smem = tensor<{shape}xf32, {shared}>\nlet w = wavefronts(reg, smem, 32, \"store\")\nlet c = bank_conflicts(reg, smem)\n"
        );
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, "p.lay".into(), text);
        let report = layout_db::check_file(&db, file);
        let values = named_values(&db, file);
        let int = |name: &str| match values.iter().find(|v| v.name == name) {
            Some(v) => match v.value {
                Some(Value::Int(n)) => Some(n),
                _ => None,
            },
            None => None,
        };
        (int("w"), int("c"), report.diagnostics.clone())
    };
    for (pieces, groups) in [(2, 1), (2, 2), (4, 1), (2, 4)] {
        let partitioned = format!(
            "#ttg.partitioned_shared<{{numPartitions = {pieces}, numGroups = {groups}, partitionDim = 0, partitionLayout = {inner}}}>"
        );
        // Pieces of 128 / (pieces * groups) rows of 64 f32: 256-byte rows.
        let rows = 128 / (pieces * groups);
        let (w, c, diags) = count(&partitioned, "128x64");
        assert!(diags.is_empty(), "{diags:?}");
        let (w_plain, c_plain, _) = count(inner, &format!("{rows}x64"));
        // One piece's access, as often as there are pieces.
        let pieces_total = (pieces * groups) as i64;
        assert_eq!(w, w_plain.map(|w| w * pieces_total), "{pieces} x {groups}");
        assert_eq!(c, c_plain, "{pieces} x {groups}");
    }
    let small = format!(
        "#ttg.partitioned_shared<{{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = {inner}}}>"
    );
    let (w, _, diags) = count(&small, "8x4");
    assert_eq!(w, None);
    assert!(
        diags
            .iter()
            .any(|d| d.message.contains("partitions hold 64 bytes each")),
        "{diags:?}"
    );
}
