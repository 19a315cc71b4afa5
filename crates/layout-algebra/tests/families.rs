//! CuTe laws and conversions between the families, point by point, on the
//! seed's examples and on random layouts.

use layout_algebra::cute::{IntTuple, Layout, SwizzledLayout};
use layout_algebra::interop::{
    CuteInDims, cute_to_linear, linear_to_cute, swizzled_to_linear, xla_to_linear,
};
use layout_algebra::xla::XlaShape;
use layout_algebra::{DimName, LinearLayout};
use proptest::prelude::*;

fn flat() -> CuteInDims {
    CuteInDims::Flat(DimName::from("i"))
}

#[test]
fn seed004_make_layout_and_tv_layout() {
    let l = Layout::new(
        IntTuple::parse("(2,4)").unwrap(),
        IntTuple::parse("(2,2)").unwrap(),
    )
    .unwrap();
    assert_eq!(l.to_string(), "(2,4):(2,2)");
    assert_eq!(l.table(), vec![0, 2, 2, 4, 4, 6, 6, 8]);
    // t layout (4,2):(8,4) and v layout 4:1 make the TV layout.
    let t = Layout::parse("(4,2):(8,4)").unwrap();
    let v = Layout::parse("4:1").unwrap();
    let tv = Layout::concat(vec![t, v]);
    assert_eq!(tv.to_string(), "((4,2),4):((8,4),1)");
    // (T1,V0) -> 8, (T4,V0) -> 4, (T0,V1) -> 1, as the seed walks it.
    for (thread, value, offset) in [
        (1, 0, 8),
        (2, 0, 16),
        (3, 0, 24),
        (4, 0, 4),
        (0, 1, 1),
        (0, 3, 3),
    ] {
        let c = IntTuple::Tuple(vec![IntTuple::Int(thread), IntTuple::Int(value)]);
        assert_eq!(tv.at(&c).unwrap(), offset);
    }
}

#[test]
fn seed004_coalesce_rules() {
    let c = |s: &str| Layout::parse(s).unwrap().coalesce().to_string();
    assert_eq!(c("(4,1):(2,7)"), "4:2"); // s0:d0 ++ _1:d1 => s0:d0
    assert_eq!(c("(1,4):(7,2)"), "4:2"); // _1:d0 ++ s1:d1 => s1:d1
    assert_eq!(c("(4,3):(2,8)"), "12:2"); // s0:d0 ++ s1:s0*d0 => s0*s1:d0
    assert_eq!(c("(4,3):(2,5)"), "(4,3):(2,5)"); // otherwise unchanged
}

#[test]
fn cute_and_swizzles_convert_to_linear_layouts_point_by_point() {
    let l = Layout::parse("(8,64):(64,1)").unwrap();
    let ll = cute_to_linear(&l, &flat()).unwrap();
    for i in 0..l.size() {
        assert_eq!(ll.apply_flat(i as u64) as i64, l.call(i));
    }
    for text in [
        "Sw<3,4,3> o (8,64):(64,1)",
        "Sw<2,3,3> o 0 o (8,32):(32,1)",
        "Sw<1,3,-4> o 0 o 256:1",
    ] {
        let s = SwizzledLayout::parse(text).unwrap();
        let ll = swizzled_to_linear(&s, &flat()).unwrap();
        for i in 0..s.layout.size() {
            assert_eq!(ll.apply_flat(i as u64) as i64, s.call(i), "{text} at {i}");
        }
    }
    let tv = Layout::parse("((4,2),4):((8,4),1)").unwrap();
    let ll = cute_to_linear(
        &tv,
        &CuteInDims::PerMode(vec!["lane".into(), "register".into()]),
    )
    .unwrap();
    assert_eq!(
        ll.in_dims(),
        vec![(DimName::from("lane"), 8), (DimName::from("register"), 4)]
    );
    assert_eq!(ll.apply(&[("lane", 4), ("register", 1)]).unwrap()[0].1, 5);
}

#[test]
fn xla_power_of_two_tilings_convert_to_linear_layouts() {
    for text in [
        "bf16[16,256]{1,0:T(8,128)(2,1)}",
        "f32[4,8]{1,0:T(2,4)(2,1)}",
        "s8[32,256]{1,0:T(8,128)(4,1)}",
        "f32[8,16]{0,1:T(4,4)}",
    ] {
        let s = XlaShape::parse(text).unwrap();
        let ll = xla_to_linear(&s).unwrap();
        let offsets = s.offsets();
        let cols = s.dims[1];
        for (flat, &o) in offsets.iter().enumerate() {
            let (r, c) = (flat as u64 / cols as u64, flat as u64 % cols as u64);
            assert_eq!(
                ll.apply(&[("dim0", r), ("dim1", c)]).unwrap()[0].1 as i64,
                o,
                "{text}"
            );
        }
    }
}

#[test]
fn impossible_conversions_say_why() {
    let e = xla_to_linear(&XlaShape::parse("f32[3,5]{1,0:T(2,2)}").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("dim 0 has size 3"), "{e}");
    let e = xla_to_linear(&XlaShape::parse("f32[4,8]{1,0:T(2,2)L(3)}").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a power of two"), "{e}");
    let e = cute_to_linear(&Layout::parse("(3,4):(1,3)").unwrap(), &flat())
        .unwrap_err()
        .to_string();
    assert!(e.contains("size 3"), "{e}");
    let e = cute_to_linear(&Layout::parse("(2,2):(1,1)").unwrap(), &flat())
        .unwrap_err()
        .to_string();
    assert!(e.contains("carries"), "{e}");
    let e = swizzled_to_linear(
        &SwizzledLayout::parse("Sw<1,2,3> o 4 o 64:1").unwrap(),
        &flat(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("affine"), "{e}");
    let xor =
        LinearLayout::from_bases(vec![("i", vec![vec![1], vec![3]])], vec!["offset"]).unwrap();
    let e = linear_to_cute(&xor).unwrap_err().to_string();
    assert!(e.contains("more than one bit"), "{e}");
}

/// A random power-of-two CuTe layout whose strides are distinct bits.
fn pow2_layout() -> impl Strategy<Value = Layout> {
    (prop::collection::vec(0u32..3, 1..4), any::<u64>()).prop_map(|(sizes, seed)| {
        let total: u32 = sizes.iter().sum();
        // A random permutation of the offset bits, handed out to the modes.
        let mut bits: Vec<u32> = (0..total).collect();
        let mut r = seed | 1;
        for i in (1..bits.len()).rev() {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            bits.swap(i, (r % (i as u64 + 1)) as usize);
        }
        let mut next = bits.into_iter();
        let modes: Vec<Layout> = sizes
            .iter()
            .map(|&k| {
                let leaves: Vec<Layout> = (0..k)
                    .map(|_| {
                        Layout::new(IntTuple::Int(2), IntTuple::Int(1 << next.next().unwrap()))
                            .unwrap()
                    })
                    .collect();
                if leaves.is_empty() {
                    Layout::parse("1:0").unwrap()
                } else {
                    Layout::concat(leaves)
                }
            })
            .collect();
        Layout::concat(modes)
    })
}

/// A small random CuTe layout (any sizes, non-negative strides).
fn small_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((1i64..5, 0i64..9), 1..4).prop_map(|modes| {
        Layout::concat(
            modes
                .into_iter()
                .map(|(s, d)| Layout::new(IntTuple::Int(s), IntTuple::Int(d)).unwrap())
                .collect(),
        )
    })
}

fn injective(l: &Layout) -> bool {
    let mut t = l.table();
    t.sort();
    t.windows(2).all(|w| w[0] != w[1])
}

proptest! {
    #[test]
    fn composition_is_function_composition_where_defined(a in small_layout(), b in small_layout()) {
        if let Ok(r) = a.compose(&b) {
            for i in 0..b.size() {
                prop_assert_eq!(r.call(i), a.call(b.call(i)));
            }
            prop_assert!(b.rank() == 1 || r.rank() == b.rank(), "{} keeps the modes of {}", r, b);
        }
    }

    #[test]
    fn complement_is_disjoint_and_ordered(a in small_layout(), extra in 1i64..4) {
        let cotarget = IntTuple::Int(a.cosize() * extra);
        if let Ok(c) = a.complement(&cotarget) {
            let image: std::collections::HashSet<i64> = a.table().into_iter().collect();
            let t = c.table();
            prop_assert!(t.windows(2).all(|w| w[0] < w[1]), "not ordered: {}", c);
            for &x in t.iter().skip(1) {
                prop_assert!(!image.contains(&x), "{} meets {} at {}", c, a, x);
            }
        }
    }

    #[test]
    fn left_inverse_undoes_an_injective_layout(a in small_layout()) {
        prop_assume!(injective(&a));
        if let Ok(inv) = a.left_inverse() {
            for i in 0..a.size() {
                prop_assert_eq!(inv.call(a.call(i)), i, "{} after {}", inv, a);
            }
        }
    }

    #[test]
    fn right_inverse_is_undone_by_the_layout(a in small_layout()) {
        let inv = a.right_inverse();
        for i in 0..inv.size() {
            prop_assert_eq!(a.call(inv.call(i)), i, "{} after {}", a, inv);
        }
    }

    #[test]
    fn pow2_cute_layouts_round_trip_through_linear_layouts(l in pow2_layout()) {
        let ll = cute_to_linear(&l, &flat()).unwrap();
        for i in 0..l.size() {
            prop_assert_eq!(ll.apply_flat(i as u64) as i64, l.call(i));
        }
        let back = linear_to_cute(&ll).unwrap();
        prop_assert_eq!(back.table(), l.table());
    }
}
