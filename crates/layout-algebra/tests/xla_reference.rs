//! XLA tiled layouts against tests/vectors/reference/xla/vectors_sample.json
//! (XLA's docs and tests) and the seed's worked examples.

use crate::common;

use common::*;
use layout_algebra::xla::{TileDim, XlaShape, parse_layout};
use serde_json::Value;

#[test]
fn xla_malformed_text_is_rejected() {
    let v = load("xla/generated.json");
    let list = v["malformed"].as_array().unwrap();
    let mut bad = Mismatches::default();
    for m in list {
        let text = m["text"].as_str().unwrap();
        let got = XlaShape::parse(text);
        bad.check(got.is_err(), || {
            format!(
                "{text} ({}) was accepted as {}",
                m["why"],
                got.as_ref().unwrap()
            )
        });
    }
    bad.finish(list.len());
}

#[test]
fn xla_layout_text_round_trips() {
    let v = load("reference/xla/vectors_sample.json");
    let list = v["syntax"].as_array().unwrap();
    let mut bad = Mismatches::default();
    for c in list {
        let text = c["text"].as_str().unwrap();
        let printed = if text.starts_with('{') {
            parse_layout(text).map(|l| l.to_string())
        } else {
            XlaShape::parse(text).map(|s| s.to_string())
        };
        bad.check(printed.as_deref() == Ok(text), || {
            format!("{text}: {printed:?}")
        });
        let parsed = &c["parsed"];
        if let Some(tiles) = parsed.get("tiles").and_then(Value::as_array) {
            let layout = if text.starts_with('{') {
                parse_layout(text).unwrap()
            } else {
                XlaShape::parse(text).unwrap().layout.unwrap()
            };
            let expected: Vec<Vec<TileDim>> = tiles
                .iter()
                .map(|t| {
                    t.as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_i64().map_or(TileDim::Combine, TileDim::Size))
                        .collect()
                })
                .collect();
            bad.check(layout.tiles == expected, || {
                format!("{text}: tiles {:?}", layout.tiles)
            });
            let m2m: Vec<usize> = parsed["minor_to_major"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect();
            bad.check(layout.minor_to_major == m2m, || {
                format!("{text}: minor_to_major {:?}", layout.minor_to_major)
            });
        }
    }
    bad.finish(list.len());
}

/// Seed 001: element (2,3) of F32[3,5]{1,0:T(2,2)} is at 17; the 4x8 array
/// tiled (2,4)(2,1) interleaves row pairs; F32[2,7,8,11,10] with
/// T(*,*,2,*,3) is F32[112,110] tiled (2,3).
#[test]
fn seed001_worked_examples() {
    let a = XlaShape::parse("f32[3,5]{1,0:T(2,2)}").unwrap();
    assert_eq!(a.offset(&[2, 3]).unwrap(), 17);
    assert_eq!(a.padded_elements(), 24);
    let b = XlaShape::parse("f32[4,8]{1,0:T(2,4)(2,1)}").unwrap();
    let rows: Vec<Vec<i64>> = b.offsets().chunks(8).map(|r| r.to_vec()).collect();
    assert_eq!(rows[0], vec![0, 2, 4, 6, 8, 10, 12, 14]);
    assert_eq!(rows[1], vec![1, 3, 5, 7, 9, 11, 13, 15]);
    assert_eq!(rows[2], vec![16, 18, 20, 22, 24, 26, 28, 30]);
    let star = XlaShape::parse("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}").unwrap();
    let plain = XlaShape::parse("f32[112,110]{1,0:T(2,3)}").unwrap();
    assert_eq!(star.tiled_shape(), plain.tiled_shape());
    assert_eq!(star.padded_elements(), plain.padded_elements());
    for (e, merged) in [
        ([1, 6, 7, 10, 9], [(6 * 8 + 7) + 56, 10 * 10 + 9]),
        ([0, 0, 0, 0, 0], [0, 0]),
        ([1, 2, 3, 4, 5], [8 * 9 + 3, 45]),
    ] {
        assert_eq!(
            star.offset(&e).unwrap(),
            plain.offset(&merged).unwrap(),
            "{e:?}"
        );
    }
}

#[test]
fn malformed_xla_text_is_rejected_with_a_position() {
    for (text, needle) in [
        ("f32[3,5]{1,0:T(2,)}", "byte 17"),
        ("f32[3,5]{1,1}", "not a permutation"),
        ("f32[3,5]{2,0}", "not a permutation"),
        ("f32[3,5]{1,0:T(0,2)}", "must be positive"),
        ("f32[3,5{1,0}", "byte 7"),
        ("f32[3,5]{1,0:T(2,2)L(0)}", "L(0)"),
        ("f33[3,5]{1,0}", "element type"),
        ("f32[3,5]{1,0:T(2,*)}", "most-minor"),
        ("f32[3,5]{1,0}x", "the end"),
    ] {
        let e = XlaShape::parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
}

#[test]
fn tpu_default_formats_follow_the_seed() {
    let cases = [
        ("f32", vec![256, 512], "f32[256,512]{1,0:T(8,128)}"),
        ("f32", vec![2, 300], "f32[2,300]{1,0:T(2,128)}"),
        ("f32", vec![3, 300], "f32[3,300]{1,0:T(4,128)}"),
        ("bf16", vec![256, 128], "bf16[256,128]{1,0:T(8,128)(2,1)}"),
        ("s8", vec![64, 256], "s8[64,256]{1,0:T(8,128)(4,1)}"),
        ("pred", vec![64, 256], "pred[64,256]{1,0:T(32,128)(32,1)}"),
    ];
    for (ty, dims, text) in cases {
        assert_eq!(XlaShape::tpu(ty, dims).unwrap().to_string(), text);
    }
}

/// Found by the fuzzer: sizes that would overflow 64-bit offsets are
/// rejected when the text is read, never computed with.
#[test]
fn shapes_too_large_for_64_bit_offsets_are_rejected() {
    for text in [
        "f32[100000000000,100000000000]{1,0}",
        "f32[2,2]{1,0:T(4611686018427387904,4611686018427387904)}",
        "f32[65536,65536,65536]{2,1,0:T(8,128)}",
        // Without a layout too: the default row-major layout is as large.
        "f32[4294967297,2047]",
    ] {
        let e = XlaShape::parse(text).unwrap_err().to_string();
        assert!(e.contains("too large"), "{text}: {e}");
    }
    // The largest TPU arrays of practice are fine.
    assert!(XlaShape::parse("bf16[65536,65536]{1,0:T(8,128)(2,1)}").is_ok());
    assert!(XlaShape::parse("f32[1048576,1048575]").is_ok());
}
