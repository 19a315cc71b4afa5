//! Tile-size search: the least padding by listing, by Z3, and by a brute
//! force here that scores each tile with XLA's own padding rule
//! (`XlaShape::padded_bytes` of the written layout) must all agree.

use std::time::Duration;

use layout_algebra::xla::XlaShape;
use layout_solve::tiling::solve_tiling;
use layout_solve::{Cancel, Status, TileMethod, TileSearch, TilingRequest};

fn request(element: &str, dims: &[i64], search: TileSearch) -> TilingRequest {
    TilingRequest {
        element_type: element.into(),
        dims: dims.to_vec(),
        minor_dim: None,
        max_padded_bytes: None,
        candidate_tiles: Vec::new(),
        tile_search: Some(search),
        timeout: Duration::from_secs(20),
    }
}

fn search(multiple: &[i64], min: Option<i64>, max: Option<i64>, method: TileMethod) -> TileSearch {
    TileSearch {
        multiple: multiple.to_vec(),
        min_elements: min,
        max_elements: max,
        method,
    }
}

/// The least padded bytes of a rank-2 array over every order and every
/// tile up to `limit` per dim, each written as XLA text and measured by
/// the XLA algebra.
fn brute_force_rank2(
    element: &str,
    dims: [i64; 2],
    multiple: [i64; 2],
    min: Option<i64>,
    max: Option<i64>,
    limit: i64,
) -> Option<i64> {
    let mut best: Option<i64> = None;
    for order in ["1,0", "0,1"] {
        let mut major = multiple[0];
        while major <= limit {
            let mut minor = multiple[1];
            while minor <= limit {
                let n = major * minor;
                if min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m) {
                    let text = format!(
                        "{element}[{},{}]{{{order}:T({major},{minor})}}",
                        dims[0], dims[1]
                    );
                    let bytes = XlaShape::parse(&text).unwrap().padded_bytes();
                    best = Some(best.map_or(bytes, |b| b.min(bytes)));
                }
                minor += multiple[1];
            }
            major += multiple[0];
        }
    }
    best
}

fn bytes(solution: &layout_solve::tiling::TilingSolution) -> i64 {
    solution.shape.as_ref().unwrap().padded_bytes()
}

#[test]
fn a_bf16_array_on_the_tpu_granule_pads_as_the_contract_example() {
    // bf16[1000,300] on (8,128) granules: with 1000 most minor, 300 rounds
    // to 304 and 1000 to 1024: 311,296 elements, 622,592 bytes (CONTRACT
    // §4's answer); the other order pads to 1000 x 384.
    let r = request(
        "bf16",
        &[1000, 300],
        search(&[8, 128], None, None, TileMethod::Auto),
    );
    let s = solve_tiling(&r, &Cancel::new()).unwrap();
    assert_eq!(s.status, Status::Optimal, "{}", s.why);
    assert_eq!(bytes(&s), 622_592);
    assert_eq!(s.shape.as_ref().unwrap().padded_elements(), 311_296);
    assert!(s.why.contains("was scored"), "{}", s.why);
    // A tile of at least 4096 elements loses nothing: T(16,256) also
    // pads 300 to 304 and 1000 to 1024.
    let r = request(
        "bf16",
        &[1000, 300],
        search(&[8, 128], Some(4096), None, TileMethod::Auto),
    );
    let s = solve_tiling(&r, &Cancel::new()).unwrap();
    assert_eq!(bytes(&s), 622_592, "{}", s.shape.unwrap());
}

#[test]
fn listing_z3_and_brute_force_agree_on_random_arrays() {
    let mut state = 0x7111u64;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for case in 0..24 {
        let dims = [1 + next(300) as i64, 1 + next(300) as i64];
        let multiple = [
            [1, 2, 4, 8][next(4) as usize],
            [1, 8, 16, 32][next(4) as usize],
        ];
        let least = multiple[0] * multiple[1];
        let min = (next(2) == 0).then(|| least * (1 + next(16) as i64));
        let max = (next(2) == 0).then(|| min.unwrap_or(least) * (1 + next(8) as i64));
        let element = ["f32", "bf16", "s8"][next(3) as usize];
        let listed = solve_tiling(
            &request(
                element,
                &dims,
                search(&multiple, min, max, TileMethod::Enumerate),
            ),
            &Cancel::new(),
        )
        .unwrap();
        let z3 = solve_tiling(
            &request(element, &dims, search(&multiple, min, max, TileMethod::Z3)),
            &Cancel::new(),
        )
        .unwrap();
        // Past both dims and the least tile, a larger size only pads more.
        let limit = 300.max(min.unwrap_or(0)) + 32;
        let expected = brute_force_rank2(element, dims, multiple, min, max, limit);
        let what =
            format!("case {case}: {element}{dims:?} multiple {multiple:?} min {min:?} max {max:?}");
        match expected {
            Some(b) => {
                assert_eq!(listed.status, Status::Optimal, "{what}: {}", listed.why);
                assert_eq!(z3.status, Status::Optimal, "{what}: {}", z3.why);
                assert_eq!(bytes(&listed), b, "{what}");
                assert_eq!(
                    bytes(&z3),
                    b,
                    "{what}: Z3 chose {}",
                    z3.shape.as_ref().unwrap()
                );
            }
            None => {
                assert_eq!(listed.status, Status::Infeasible, "{what}");
                assert_eq!(z3.status, Status::Infeasible, "{what}");
            }
        }
    }
}

#[test]
fn a_space_too_large_to_list_goes_to_z3_and_matches_the_listing() {
    // Unit granules between 2048 and 4096 elements: 2048 x 2048 sizes in
    // each of two placements, past the listing limit. 701 and 907 are
    // prime, so no such tile divides the array: Z3 must prove the best.
    let s = |method| search(&[1, 1], Some(2048), Some(4096), method);
    let auto = solve_tiling(
        &request("f32", &[701, 907], s(TileMethod::Auto)),
        &Cancel::new(),
    )
    .unwrap();
    assert_eq!(auto.status, Status::Optimal, "{}", auto.why);
    assert!(auto.why.contains("Z3 proved"), "{}", auto.why);
    let listed = solve_tiling(
        &request("f32", &[701, 907], s(TileMethod::Enumerate)),
        &Cancel::new(),
    )
    .unwrap();
    assert_eq!(bytes(&auto), bytes(&listed));
    assert!(bytes(&auto) > 701 * 907 * 4);
    // With 700 x 900 a tile of 2048..4096 elements divides both dims
    // (e.g. 70 x 45 = 3150): nothing is padded, which is the floor.
    let even = solve_tiling(
        &request("f32", &[700, 900], s(TileMethod::Auto)),
        &Cancel::new(),
    )
    .unwrap();
    assert_eq!(bytes(&even), 700 * 900 * 4);
    assert!(even.why.contains("meets the floor"), "{}", even.why);
}

#[test]
fn a_cancelled_search_stops_with_the_best_found() {
    let cancel = Cancel::new();
    cancel.cancel();
    let s = search(&[1, 1], Some(2048), Some(4096), TileMethod::Z3);
    let r = solve_tiling(&request("f32", &[701, 907], s), &cancel).unwrap();
    assert_eq!(r.status, Status::Timeout, "{}", r.why);
}

#[test]
fn bad_searches_are_refused() {
    let bad = |s: TileSearch, dims: &[i64]| solve_tiling(&request("f32", dims, s), &Cancel::new());
    assert!(
        bad(
            search(&[8, 128, 1], None, None, TileMethod::Auto),
            &[10, 10]
        )
        .is_err()
    );
    assert!(bad(search(&[0, 128], None, None, TileMethod::Auto), &[10, 10]).is_err());
    assert!(
        bad(
            search(&[8, 128], Some(100), Some(10), TileMethod::Auto),
            &[10, 10]
        )
        .is_err()
    );
    // No tile of 8 x 128 granules holds fewer than 1024 elements.
    let r = bad(
        search(&[8, 128], None, Some(1000), TileMethod::Auto),
        &[10, 10],
    )
    .unwrap();
    assert_eq!(r.status, Status::Infeasible);
    // An array over the 2^40-element limit is refused as it is, before
    // any search: the error must not depend on how far a search got.
    let e = bad(
        search(&[1, 128], Some(16384), Some(131072), TileMethod::Auto),
        &[4294967297, 2047],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("f32[4294967297,2047]{1,0}") && e.contains("too large"),
        "{e}"
    );
}

/// The formats XLA's TPU backend emits beyond seed 001's: 16-bit arrays
/// with two or four rows tile `(2,128)(2,1)` / `(4,128)(2,1)` (XLA's
/// `alias_info_test.cc` writes `bf16[2,8192]{1,0:T(2,128)(2,1)}`, its TPU
/// dump in `hlo_isolation_test_base_test.cc` `T(2,128)(2,1)` on a one-row
/// bf16 array, `host_offload_legalize_test.cc` expects `T(4,128)(2,1)` on
/// four rows), and pred tiles as the one-byte data it is
/// (`pred[14,40,100,128]{3,0,2,1:T(8,128)(4,1)}` in that dump). The answer
/// is XLA's layout, and pads less than the seed's format would.
#[test]
fn small_bf16_and_pred_arrays_take_the_formats_xla_emits() {
    let listed = |element: &str, dims: &[i64]| {
        let req = TilingRequest {
            element_type: element.into(),
            dims: dims.to_vec(),
            minor_dim: None,
            max_padded_bytes: None,
            candidate_tiles: Vec::new(),
            tile_search: None,
            timeout: Duration::from_secs(20),
        };
        let sol = solve_tiling(&req, &Cancel::new()).unwrap();
        assert_eq!(sol.status, Status::Optimal, "{}", sol.why);
        sol.shape.unwrap()
    };
    let bytes = |text: &str| XlaShape::parse(text).unwrap().padded_bytes();
    for (element, dims, xla, seed) in [
        (
            "bf16",
            vec![2, 8192],
            "bf16[2,8192]{1,0:T(2,128)(2,1)}",
            "bf16[2,8192]{1,0:T(8,128)(2,1)}",
        ),
        (
            "bf16",
            vec![4, 8192],
            "bf16[4,8192]{1,0:T(4,128)(2,1)}",
            "bf16[4,8192]{1,0:T(8,128)(2,1)}",
        ),
        (
            "pred",
            vec![14, 128],
            "pred[14,128]{1,0:T(8,128)(4,1)}",
            "pred[14,128]{1,0:T(32,128)(32,1)}",
        ),
    ] {
        let answer = listed(element, &dims);
        assert_eq!(answer.to_string(), xla);
        assert!(
            bytes(xla) < bytes(seed),
            "{xla}: {} bytes; the seed's {seed}: {}",
            bytes(xla),
            bytes(seed)
        );
    }
}
