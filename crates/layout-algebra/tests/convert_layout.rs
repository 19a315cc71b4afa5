//! `convert_layout` analysis against the Triton 3.9 wheel
//! (tests/vectors/triton/convert_vectors.json, made by
//! gen_convert_vectors.py): the lowering kind seen in the compiled PTX, the
//! scratch bytes Triton allocates and the instructions it uses (ldmatrix,
//! stmatrix, and for conversions across the CTAs of a cluster the
//! distributed shared memory loads); the conflicts of the chosen swizzle by the
//! rank formula against the bank model's enumeration.

use crate::common;

use common::{layout_from_pairs, load};
use layout_algebra::LinearLayout;
use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, largest_vectorisation, wavefronts_by_enumeration,
};
use layout_algebra::machine::SharedInstructions;
use layout_algebra::triton::convert_layout::{
    ConversionKind, analyse_conversion, as_offset_layout, optimal_swizzling_ld_st,
};
use serde_json::{Value, json};

fn layout(v: &Value) -> LinearLayout {
    layout_from_pairs(&json!({"bases": v["bases"], "outDims": v["outs"]}))
}

fn conversions() -> Vec<Value> {
    load("triton/convert_vectors.json")["conversions"]
        .as_array()
        .unwrap()
        .clone()
}

/// The kind the compiled kernel shows: shared memory allocated, shuffles
/// emitted, or neither (a no-op or a register renaming: both emit nothing).
fn oracle_kind(v: &Value) -> &'static str {
    if v["shared_bytes"].as_u64().unwrap() > 0 {
        "shared"
    } else if v["ptx"]["shfl.sync"].as_u64().unwrap() > 0 {
        "shuffle"
    } else {
        "in-thread"
    }
}

#[test]
fn kinds_and_scratch_bytes_match_triton_wheel() {
    let list = conversions();
    assert!(list.len() >= 100, "only {} vectors", list.len());
    let mut bad = Vec::new();
    let mut seen = std::collections::BTreeMap::new();
    for v in &list {
        let name = v["name"].as_str().unwrap();
        let bits = v["bits"].as_u64().unwrap() as u32;
        let got = analyse_conversion(
            &layout(&v["src"]),
            &layout(&v["dst"]),
            bits,
            &BankTarget::nvidia(),
            SharedInstructions::SM90,
        );
        let got = match got {
            Ok(c) => c,
            Err(e) => {
                bad.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = match got.kind {
            ConversionKind::Noop | ConversionKind::Register => "in-thread",
            ConversionKind::Shuffle => "shuffle",
            ConversionKind::Shared => "shared",
        };
        *seen.entry(got.kind.name()).or_insert(0) += 1;
        let expected_kind = oracle_kind(v);
        let expected_bytes = v["shared_bytes"].as_u64().unwrap();
        let bytes = got.shared.as_ref().map_or(0, |s| s.scratch_bytes);
        // The instructions the PTX shows for the store and the load.
        if let Some(sh) = &got.shared {
            let count = |op: &str| v["ptx"][op].as_u64().unwrap();
            let matrix = |i: Instruction| matches!(i, Instruction::Matrix { .. });
            let store_ok = matrix(sh.store) == (count("stmatrix") > 0);
            let load_ok =
                matrix(sh.load) == (count("ldmatrix") > 0) && sh.remote_load == (count("mapa") > 0);
            if !store_ok || !load_ok {
                bad.push(format!(
                    "{name}: got {:?} / {:?} (remote: {}), PTX {}",
                    sh.store, sh.load, sh.remote_load, v["ptx"]
                ));
            }
        }
        if ours != expected_kind || bytes != expected_bytes {
            bad.push(format!(
                "{name}: got {} with {bytes} bytes, Triton {expected_kind} with {expected_bytes} bytes",
                got.kind.name()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        list.len(),
        bad.join("\n")
    );
    // The vectors exercise every kind.
    for kind in ["noop", "register", "shuffle", "shared"] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} case: {seen:?}"
        );
    }
}

#[test]
fn converting_a_layout_to_itself_is_a_noop() {
    for v in conversions() {
        let src = layout(&v["src"]);
        let c = analyse_conversion(
            &src,
            &src,
            16,
            &BankTarget::nvidia(),
            SharedInstructions::SM90,
        )
        .unwrap();
        assert_eq!(c.kind, ConversionKind::Noop, "{}", v["name"]);
    }
}

/// The conflicts of ld/st.shared stores and loads through the chosen swizzle
/// (the rank formula) equal what walking every request of warp 0 finds.
#[test]
fn swizzle_conflicts_match_enumeration() {
    let target = BankTarget::nvidia();
    let mut checked = 0;
    for v in conversions() {
        let bits = v["bits"].as_u64().unwrap() as u32;
        let (src, dst) = (layout(&v["src"]), layout(&v["dst"]));
        let c = analyse_conversion(&src, &dst, bits, &target, SharedInstructions::SM90).unwrap();
        let Some(shared) = c.shared else { continue };
        let buffer = as_offset_layout(&shared.layout).unwrap();
        for (side, conflicts, instruction, remote) in [
            (&src, shared.write_conflicts, shared.store, false),
            (&dst, shared.read_conflicts, shared.load, shared.remote_load),
        ] {
            // One CTA's requests: loads from the whole cluster are not.
            if !matches!(instruction, Instruction::LdSt { .. }) || remote {
                continue;
            }
            let side = side
                .retain_bases("register", |_, b| b.iter().any(|&x| x != 0))
                .unwrap();
            let (vec, _) = largest_vectorisation(&side, &buffer, bits).unwrap();
            let access = Access {
                distributed: &side,
                shared: &buffer,
                element_bits: bits,
                instruction: Instruction::LdSt {
                    bits: vec as u32 * bits,
                },
                direction: Direction::Store,
            };
            let w = wavefronts_by_enumeration(&access, &target).unwrap();
            assert_eq!(
                w.conflicts_per_wavefront(),
                conflicts as f64,
                "{}: {w:?}",
                v["name"]
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} accesses checked");
}

/// Properties of the swizzle that hold by construction: it is a bijection
/// onto the tensor, a vector is at most 128 bits, and its rounds are
/// registers of both sides.
#[test]
fn swizzle_is_a_bijection_built_from_common_registers() {
    for v in conversions() {
        let bits = v["bits"].as_u64().unwrap() as u32;
        let strip = |l: LinearLayout| {
            l.retain_bases("register", |_, b| b.iter().any(|&x| x != 0))
                .unwrap()
        };
        let (src, dst) = (strip(layout(&v["src"])), strip(layout(&v["dst"])));
        if src.in_dim_size("block") > 1 {
            continue;
        }
        let s = optimal_swizzling_ld_st(&src, &dst, bits, 32, &[]).unwrap();
        assert!(s.is_invertible(), "{}: {s:?}", v["name"]);
        let regs = |l: &LinearLayout| {
            l.flatten_outs()
                .unwrap()
                .packed_bases("register")
                .unwrap()
                .to_vec()
        };
        let flat = s.flatten_outs().unwrap();
        for w in flat.packed_bases("reps").unwrap() {
            assert!(
                regs(&src).contains(w) && regs(&dst).contains(w),
                "{}",
                v["name"]
            );
        }
        assert!(
            flat.in_dim_size("vector") * bits as u64 <= 128,
            "{}",
            v["name"]
        );
    }
}

/// A layout that sends each of `bits` tensor bits to one hardware bit:
/// `perm[k]` is the tensor bit of hardware bit k (register bits first, then
/// 5 lane bits, then warp bits).
fn permutation_layout(perm: &[u32], regs: usize, warps: usize, shape: [u32; 2]) -> LinearLayout {
    let basis = |k: usize| {
        let b = perm[k];
        let (r, c) = if b < shape[1].trailing_zeros() {
            (0, 1i64 << b)
        } else {
            (1i64 << (b - shape[1].trailing_zeros()), 0)
        };
        vec![c, r]
    };
    let dims = [
        ("register", 0..regs),
        ("lane", regs..regs + 5),
        ("warp", regs + 5..regs + 5 + warps),
        ("block", 0..0),
    ];
    LinearLayout::from_bases_with_sizes(
        dims.into_iter()
            .map(|(n, r)| (n, r.map(basis).collect()))
            .collect(),
        vec![
            ("dim0".into(), i64::from(shape[1])),
            ("dim1".into(), i64::from(shape[0])),
        ],
        true,
    )
    .unwrap()
}

/// Conversions between random bit permutations with ld/st.shared only: the
/// reported conflicts (the rank formula) against walking every request of
/// warp 0. Some sub-word accesses conflict even though Triton's per-phase
/// measure calls the swizzle conflict-free.
#[test]
fn random_permutation_conflicts_match_enumeration() {
    let target = BankTarget::nvidia();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut rand = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut checked, mut nonzero) = (0, 0);
    for case in 0..300 {
        let bits = [8u32, 16, 32][case % 3];
        let (regs, warps) = (2 + rand(4), rand(3));
        let total = regs + 5 + warps;
        let shape = [1u32 << (total / 2), 1u32 << (total - total / 2)];
        let mut perm_a: Vec<u32> = (0..total as u32).collect();
        let mut perm_b = perm_a.clone();
        for p in [&mut perm_a, &mut perm_b] {
            for i in (1..p.len()).rev() {
                p.swap(i, rand(i + 1));
            }
        }
        let src = permutation_layout(&perm_a, regs, warps, shape);
        let dst = permutation_layout(&perm_b, regs, warps, shape);
        let c = analyse_conversion(&src, &dst, bits, &target, SharedInstructions::LD_ST).unwrap();
        let Some(shared) = c.shared else { continue };
        let buffer = as_offset_layout(&shared.layout).unwrap();
        for (side, conflicts) in [
            (&src, shared.write_conflicts),
            (&dst, shared.read_conflicts),
        ] {
            let (vec, _) = largest_vectorisation(side, &buffer, bits).unwrap();
            let access = Access {
                distributed: side,
                shared: &buffer,
                element_bits: bits,
                instruction: Instruction::LdSt {
                    bits: vec as u32 * bits,
                },
                direction: Direction::Store,
            };
            let Ok(w) = wavefronts_by_enumeration(&access, &target) else {
                continue;
            };
            assert_eq!(
                w.conflicts_per_wavefront(),
                conflicts as f64,
                "case {case}: {w:?}"
            );
            checked += 1;
            nonzero += u64::from(conflicts > 0);
        }
    }
    assert!(
        checked >= 100 && nonzero >= 5,
        "{checked} checked, {nonzero} with conflicts"
    );
}

/// The scratch of a reduction's result, broadcast over lanes and warps
/// (`tt.argmax` of 16 rows: a `slice` of `blocked<[1, 4], [1, 64], [2, 4]>`
/// into `blocked<[1], [64], [8]>`, 32-bit). Its vector is one element, so
/// Triton moves the source's register bases to the low bank bits, letting
/// each thread store its 8 rows as two 128-bit vectors, only with at most 32
/// banks. The compiled gfx942 kernel stores rows {2,4,8} at 4, 8, 16 bytes
/// and row 1 at 32 bytes (`ds_write_b128` x 2); the gfx950 one (64 banks)
/// keeps row r at 4r bytes (`ds_write2_b32` x 4).
#[test]
fn narrow_vectors_lead_with_registers_only_with_at_most_32_banks() {
    let rows = |ws: &[i64]| ws.iter().map(|&w| vec![w]).collect::<Vec<_>>();
    let src = LinearLayout::from_bases_with_sizes(
        vec![
            ("register", rows(&[2, 4, 8])),
            ("lane", rows(&[0; 6])),
            ("warp", rows(&[0, 0, 1])),
            ("block", vec![]),
        ],
        vec![("dim0".into(), 16)],
        false,
    )
    .unwrap();
    let dst = LinearLayout::from_bases_with_sizes(
        vec![
            ("register", vec![]),
            ("lane", rows(&[1, 2, 4, 8, 0, 0])),
            ("warp", rows(&[0, 0, 0])),
            ("block", vec![]),
        ],
        vec![("dim0".into(), 16)],
        false,
    )
    .unwrap();
    let bank_bases = |banks: u32| {
        optimal_swizzling_ld_st(&src, &dst, 32, banks, &[])
            .unwrap()
            .flatten_outs()
            .unwrap()
            .packed_bases("bank")
            .unwrap()
            .to_vec()
    };
    assert_eq!(bank_bases(32), [2, 4, 8, 1]);
    assert_eq!(bank_bases(64), [1, 2, 4, 8]);
}
