//! Triton encodings to linear layouts, against the vectors transcribed from
//! Triton's LinearLayoutConversionsTest (tests/vectors/reference/triton).

use crate::common;

use common::*;

/// Canonical form: broadcast register bases are dropped (as Triton 3.9
/// does); the C++ unit tests at 285de7a keep them as zero bases, so the
/// comparison removes zero register bases from the expectation.
#[test]
fn encodings_match_triton_unit_test_vectors() {
    let vectors = load("reference/triton/unittest_vectors.json");
    let list = vectors.as_array().unwrap();
    let mut bad = Mismatches::default();
    for v in list {
        let name = v["name"].as_str().unwrap();
        let enc = encoding(&v["params"]);
        let shape = shape_of(&v["shape"]);
        match enc.to_linear_layout(&shape) {
            Err(e) => bad.check(false, || format!("{name}: error {e}")),
            Ok(l) => {
                let got = bases_object(&l);
                let expected = without_zero_registers(&v["expected"]);
                let mut got_cmp = got.clone();
                // Compare only the in-dims the vector lists.
                if let Some(obj) = got_cmp.as_object_mut() {
                    obj.retain(|k, _| expected.get(k).is_some());
                }
                bad.check(got_cmp == expected, || {
                    format!("{name} {shape:?}: got {got}, expected {expected}")
                });
                let outs: Vec<(String, u64)> = l
                    .out_dims()
                    .into_iter()
                    .map(|(n, s)| (n.to_string(), s))
                    .collect();
                let expected_outs: Vec<(String, u64)> = v["outDims"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap()))
                    .collect();
                bad.check(outs == expected_outs, || {
                    format!("{name}: out dims {outs:?}, expected {expected_outs:?}")
                });
            }
        }
    }
    bad.finish(list.len());
}

proptest::proptest! {
    /// A partitioned tensor as one address space: the element at offset `o`
    /// of partition `p` sits at address `p * buffer + o`, where `buffer` is
    /// one partition's elements (all its groups' pieces).
    #[test]
    fn a_partitioned_address_is_its_partition_buffer_then_its_offset(
        partitions_log2 in 1u32..=3,
        groups_log2 in 0u32..=2,
        dim in 0usize..=1,
        vec_log2 in 0u32..=3,
        per_phase_log2 in 0u32..=2,
        max_phase_log2 in 0u32..=3,
        rows_log2 in 5u32..=6,
        cols_log2 in 5u32..=6,
        row_major: bool,
    ) {
        use layout_algebra::triton::*;
        let order = if row_major { vec![1, 0] } else { vec![0, 1] };
        let encoding = PartitionedShared {
            num_partitions: 1 << partitions_log2,
            num_groups: 1 << groups_log2,
            partition_dim: dim,
            inner: Box::new(Encoding::SwizzledShared(SwizzledShared {
                vec: 1 << vec_log2,
                per_phase: 1 << per_phase_log2,
                max_phase: 1 << max_phase_log2,
                cga: CgaLayout::from_bases(2, vec![]).unwrap(),
                order,
            })),
        };
        let shape = [1u32 << rows_log2, 1 << cols_log2];
        let pieces = encoding.to_linear_layout(&shape).unwrap();
        let addresses = encoding.address_layout(&shape).unwrap();
        let buffer = pieces.in_dim_size("offset");
        proptest::prop_assert_eq!(
            addresses.in_dim_size("offset"),
            buffer * pieces.in_dim_size("partition")
        );
        for p in 0..pieces.in_dim_size("partition") {
            for o in 0..buffer {
                let element = pieces
                    .apply(&[("offset", o), ("block", 0), ("partition", p)])
                    .unwrap();
                let at = addresses
                    .apply(&[("offset", p * buffer + o), ("block", 0)])
                    .unwrap();
                proptest::prop_assert_eq!(element, at, "partition {} offset {}", p, o);
            }
        }
    }
}

/// f64's `mma.sync.m8n8k4` (`instrShape = [8, 8]`, `[1, 8, 8]` batched):
/// the accumulator and both operands, against the bases Triton 3.9's
/// `GluonOpBuilder.to_linear_layout` gives for
/// `NVMMADistributedLayout(version=[2, 0], warps_per_cta, instr_shape)` and
/// `DotOperandLayout(op_idx, parent, k_width=1)` over these shapes. An
/// operand tile is 8 rows by 4 lanes of K, not m16n8's 16 by 8.
#[test]
fn f64_mma_tiles_are_eight_by_eight() {
    let mma = |warps: serde_json::Value, instr: serde_json::Value| {
        serde_json::json!({"kind": "nvidia_mma", "versionMajor": 2, "versionMinor": 0,
                           "warpsPerCTA": warps, "instrShape": instr})
    };
    let operand = |op: u32, parent: &serde_json::Value| serde_json::json!({"kind": "dot_op", "opIdx": op, "kWidth": 1, "parent": parent});
    let flat = mma(serde_json::json!([2, 2]), serde_json::json!([8, 8]));
    let tall = mma(serde_json::json!([4, 2]), serde_json::json!([8, 8]));
    let batched = mma(serde_json::json!([2, 2, 1]), serde_json::json!([1, 8, 8]));
    let cases = [
        (
            flat.clone(),
            vec![64, 64],
            r#"{"register": [[0, 1], [0, 16], [0, 32], [16, 0], [32, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[0, 8], [8, 0]], "block": []}"#,
        ),
        (
            operand(0, &flat),
            vec![64, 16],
            r#"{"register": [[0, 4], [0, 8], [16, 0], [32, 0]], "lane": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0], [8, 0]], "block": []}"#,
        ),
        (
            operand(1, &flat),
            vec![16, 64],
            r#"{"register": [[4, 0], [8, 0], [0, 16], [0, 32]], "lane": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]], "warp": [[0, 8], [0, 0]], "block": []}"#,
        ),
        (
            tall.clone(),
            vec![32, 64],
            r#"{"register": [[0, 1], [0, 16], [0, 32]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[0, 8], [8, 0], [16, 0]], "block": []}"#,
        ),
        (
            operand(0, &tall),
            vec![64, 32],
            r#"{"register": [[0, 4], [0, 8], [0, 16], [32, 0]], "lane": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0], [8, 0], [16, 0]], "block": []}"#,
        ),
        (
            operand(1, &tall),
            vec![32, 16],
            r#"{"register": [[4, 0], [8, 0], [16, 0]], "lane": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]], "warp": [[0, 8], [0, 0], [0, 0]], "block": []}"#,
        ),
        (
            batched.clone(),
            vec![4, 16, 32],
            r#"{"register": [[0, 0, 1], [0, 0, 8], [0, 0, 16], [2, 0, 0]], "lane": [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], "warp": [[0, 8, 0], [1, 0, 0]], "block": []}"#,
        ),
        (
            operand(0, &batched),
            vec![4, 16, 8],
            r#"{"register": [[0, 0, 4], [2, 0, 0]], "lane": [[0, 0, 1], [0, 0, 2], [0, 1, 0], [0, 2, 0], [0, 4, 0]], "warp": [[0, 8, 0], [1, 0, 0]], "block": []}"#,
        ),
        (
            operand(1, &batched),
            vec![4, 8, 32],
            r#"{"register": [[0, 4, 0], [0, 0, 8], [0, 0, 16], [2, 0, 0]], "lane": [[0, 1, 0], [0, 2, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]], "warp": [[0, 0, 0], [1, 0, 0]], "block": []}"#,
        ),
    ];
    for (params, shape, expected) in cases {
        let layout = encoding(&params).to_linear_layout(&shape).unwrap();
        let expected: serde_json::Value = serde_json::from_str(expected).unwrap();
        assert_eq!(bases_object(&layout), expected, "{params} over {shape:?}");
    }
}

/// A dot operand of an NVIDIA mma split across two CTAs along N
/// (`CGALayout = [[0, 1]]`): the operand's K is never split, so A is whole
/// in each CTA (its block basis is zero) and B is split along N. The bases
/// are Triton 3.9's `GluonOpBuilder.to_linear_layout` of
/// `DotOperandLayout(op_idx, NVMMADistributedLayout([2, 0], [2, 1],
/// [16, 8], [[0, 1]]), 2)`. (AMD's dot operands keep their parent's
/// placement, `encodings/dot_mfma_*` in the unit-test vectors.)
#[test]
fn an_nvidia_dot_operand_is_never_split_along_k_across_ctas() {
    let parent = serde_json::json!({"kind": "nvidia_mma", "versionMajor": 2, "versionMinor": 0,
                                    "warpsPerCTA": [2, 1], "instrShape": [16, 8], "CGALayout": [[0, 1]]});
    let cases = [
        (
            0,
            vec![128, 32],
            r#"{"register": [[0, 1], [8, 0], [0, 8], [0, 16], [32, 0], [64, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[16, 0]], "block": [[0, 0]]}"#,
        ),
        (
            1,
            vec![32, 128],
            r#"{"register": [[1, 0], [8, 0], [16, 0], [0, 8], [0, 16], [0, 32]], "lane": [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], "warp": [[0, 0]], "block": [[0, 64]]}"#,
        ),
    ];
    for (op, shape, expected) in cases {
        let params =
            serde_json::json!({"kind": "dot_op", "opIdx": op, "kWidth": 2, "parent": parent});
        let layout = encoding(&params).to_linear_layout(&shape).unwrap();
        let expected: serde_json::Value = serde_json::from_str(expected).unwrap();
        assert_eq!(
            bases_object(&layout),
            expected,
            "operand {op} over {shape:?}"
        );
    }
}
