//! The vectors of the real systems, one test per case (libtest-mimic),
//! named `KIND/CASE`, so a failure names its case and
//! `cargo test -p layout-algebra --test cases -- encodings/` runs one kind:
//! - from the Triton 3.9.0 wheel (tests/vectors/triton/gen_triton_vectors.py):
//!   `encodings/`, `invalid/` parameters, Triton's `bank_conflicts/`
//!   measure, `ll_ops/` (LinearLayout operations), and the values of
//!   Triton's own BankConflictTest, `bank_conflict_test/`;
//! - from CuTe C++ (tests/vectors/cute/cpp_vectors.tsv): `cute_cpp/`;
//! - from XLA's docs and tests and an independent numpy formulation:
//!   `xla/`.

mod common;
mod cute_cpp_vectors;
mod xla_cases;

use common::*;
use layout_algebra::bank::{BankTarget, bank_conflicts};
use layout_algebra::{DimName, LinearLayout};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

fn generated() -> Value {
    load("triton/generated.json")
}

/// Both sides are compared without zero register bases: the wheel keeps
/// them for MMA-like layouts and drops them for blocked ones; our canonical
/// form drops them everywhere.
fn encoding_matches_triton(v: &Value) -> Result<(), Failed> {
    let name = v["name"].as_str().unwrap();
    let shape = shape_of(&v["shape"]);
    let enc = encoding(&v["params"]);
    if known_divergences().iter().any(|k| k == name) {
        // Today's behaviour: a dense, invertible layout of the tensor.
        let l = enc.to_linear_layout(&shape).map_err(|e| e.to_string())?;
        return if l.is_invertible() {
            Ok(())
        } else {
            Err(format!("expected an invertible layout, got {l}").into())
        };
    }
    let l = enc
        .to_linear_layout(&shape)
        .map_err(|e| format!("error {e}"))?;
    let got = without_zero_registers(&bases_object(&l));
    let expected = without_zero_registers(&v["bases"]);
    if got == expected {
        Ok(())
    } else {
        Err(format!("{shape:?} {}: got {got}, expected {expected}", v["ttgir"]).into())
    }
}

/// Parameters Triton rejects are errors here too (never a panic).
fn invalid_parameters_are_rejected(v: &Value) -> Result<(), Failed> {
    let reason = v["reason"].as_str().unwrap_or("");
    let shape = shape_of(&v["shape"]);
    let result = std::panic::catch_unwind(|| {
        try_encoding(&v["params"]).and_then(|e| e.to_linear_layout(&shape))
    });
    match result {
        Err(_) => Err(format!("panicked (Triton: {reason})").into()),
        Ok(Ok(_)) => Err(format!("{shape:?}: accepted, Triton says {reason}").into()),
        Ok(Err(_)) => Ok(()),
    }
}

fn bank_conflicts_match_triton(v: &Value) -> Result<(), Failed> {
    let shape = shape_of(&v["shape"]);
    let bits = v["bitwidth"].as_u64().unwrap() as u32;
    let reg = encoding(&v["reg"]).to_linear_layout(&shape);
    let shared = encoding(&v["shared"]).to_linear_layout(&shape);
    match (reg, shared) {
        (Ok(reg), Ok(shared)) => {
            let got = bank_conflicts(&reg, &shared, bits, &BankTarget::nvidia());
            let expected = v["conflicts"].as_u64().unwrap();
            if got.as_ref().ok() == Some(&expected) {
                Ok(())
            } else {
                Err(format!("got {got:?}, expected {expected}").into())
            }
        }
        (r, s) => Err(format!("layouts failed: {:?} {:?}", r.err(), s.err()).into()),
    }
}

fn layout_json(l: &LinearLayout) -> Value {
    serde_json::json!({
        "bases": bases_json(l),
        "outDims": l.out_dims().into_iter().map(|(n, s)| (n.to_string(), s)).collect::<Vec<_>>(),
        "surjective": l.is_surjective(),
    })
}

fn run_op(op: &str, args: &[Value]) -> Result<Value, String> {
    let a = || layout_from_pairs(&args[0]);
    let b = || layout_from_pairs(&args[1]);
    let e = |e: layout_algebra::LayoutError| e.to_string();
    let s = |i: usize| args[i].as_str().unwrap().to_string();
    let n = |i: usize| args[i].as_u64().unwrap() as u32;
    Ok(match op {
        "mul" => layout_json(&a().product(&b()).map_err(e)?),
        "compose" => layout_json(&a().compose(&b()).map_err(e)?),
        "invertAndCompose" => layout_json(&a().invert_and_compose(&b()).map_err(e)?),
        "invert" => layout_json(&a().invert().map_err(e)?),
        "pseudoinvert" => layout_json(&a().pseudoinvert().map_err(e)?),
        "isInjective" => Value::from(a().is_injective()),
        "isSurjective" => Value::from(a().is_surjective()),
        "isInvertible" => Value::from(a().is_invertible()),
        "equal" => Value::from(a() == b()),
        "identity1D" => layout_json(&LinearLayout::identity_1d(n(0), s(1), s(2)).map_err(e)?),
        "zeros1D" if args.len() > 3 => {
            layout_json(&LinearLayout::zeros_1d_sized(n(0), s(1), s(2), n(3)).map_err(e)?)
        }
        "zeros1D" => layout_json(&LinearLayout::zeros_1d(n(0), s(1), s(2)).map_err(e)?),
        "strided1D" => layout_json(&LinearLayout::strided_1d(n(0), n(1), s(2), s(3)).map_err(e)?),
        "apply" => {
            let l = a();
            let ins: Vec<(String, u64)> = args[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap()))
                .collect();
            let ins_ref: Vec<(&str, u64)> = ins.iter().map(|(n, v)| (n.as_str(), *v)).collect();
            let out = l.apply(&ins_ref).map_err(e)?;
            serde_json::json!(
                out.into_iter()
                    .map(|(n, v)| (n.to_string(), v))
                    .collect::<Vec<_>>()
            )
        }
        "getMatrixView" => {
            // Rows: output bits (out-dims in order, low bit first); columns: input bits.
            let l = a();
            let rows = l.total_out_bits();
            let cols: Vec<u64> = l.columns().collect();
            serde_json::json!(
                (0..rows)
                    .map(|r| cols.iter().map(|c| (c >> r & 1) as u8).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            )
        }
        other => return Err(format!("unknown op {other}")),
    })
}

fn linear_layout_op_matches_triton(v: &Value) -> Result<(), Failed> {
    let op = v["op"].as_str().unwrap();
    let args = v["args"].as_array().unwrap();
    let expected = &v["expected"];
    match std::panic::catch_unwind(|| run_op(op, args)) {
        Err(_) => Err(format!("({op}): panicked").into()),
        Ok(Ok(got)) if &got == expected => Ok(()),
        Ok(Ok(got)) => Err(format!("({op}): got {got}, expected {expected}").into()),
        Ok(Err(_)) if expected.is_null() => Ok(()),
        Ok(Err(err)) => Err(format!("({op}): error {err}, expected {expected}").into()),
    }
}

/// The bank-conflict values of Triton's BankConflictTest
/// (tests/vectors/reference/triton/swizzle_vectors.json), from the layouts'
/// bases as Triton computed them.
fn bank_conflict_test_case(case: &Value) -> Result<(), Failed> {
    {
        let shape = shape_of(&case["shape"]);
        let outs: Vec<(DimName, i64)> = shape
            .iter()
            .enumerate()
            .map(|(d, &s)| (DimName::from(format!("dim{d}")), s as i64))
            .collect();
        let reg = layout_from_object(
            &case["reg_ll"],
            &["register", "lane", "warp", "block"],
            outs.clone(),
        );
        let shared = layout_from_object(&case["shared_ll"], &["offset", "block"], outs);
        let target = BankTarget {
            banks: case["numBanks"].as_u64().unwrap() as u32,
            ..BankTarget::nvidia()
        };
        let got = bank_conflicts(
            &reg,
            &shared,
            case["bitwidth"].as_u64().unwrap() as u32,
            &target,
        );
        let expected = case["conflicts"].as_u64().unwrap();
        if got.as_ref().ok() == Some(&expected) {
            Ok(())
        } else {
            Err(format!("got {got:?}, expected {expected}").into())
        }
    }
}

/// One trial per case of `list`, named `kind/NAME`.
fn trials(
    kind: &str,
    list: &[Value],
    skip: impl Fn(&Value) -> bool,
    check: fn(&Value) -> Result<(), Failed>,
) -> Vec<Trial> {
    list.iter()
        .filter(|v| !skip(v))
        .map(|v| {
            let name = format!("{kind}/{}", v["name"].as_str().unwrap());
            let case = v.clone();
            Trial::test(name, move || check(&case))
        })
        .collect()
}

fn main() {
    let args = Arguments::from_args();
    let g = generated();
    let list = |key: &str| g[key].as_array().unwrap().clone();
    let layouts = list("layouts");
    let mut all = vec![Trial::test("encodings/at_least_500", {
        let n = layouts.len();
        move || {
            if n >= 500 {
                Ok(())
            } else {
                Err(format!("only {n} generated layouts").into())
            }
        }
    })];
    all.extend(trials(
        "encodings",
        &layouts,
        |_| false,
        encoding_matches_triton,
    ));
    // Python-only assertions of the gluon front end are not layout rules.
    all.extend(trials(
        "invalid",
        &list("invalid"),
        |v| {
            v["reason"]
                .as_str()
                .unwrap_or("")
                .contains("(gluon python)")
        },
        invalid_parameters_are_rejected,
    ));
    all.extend(trials(
        "bank_conflicts",
        &list("bank_conflicts"),
        |_| false,
        bank_conflicts_match_triton,
    ));
    all.extend(trials(
        "ll_ops",
        &list("ll_ops"),
        |_| false,
        linear_layout_op_matches_triton,
    ));
    let reference = load("reference/triton/swizzle_vectors.json");
    all.extend(trials(
        "bank_conflict_test",
        reference["bank_conflicts_memdesc"].as_array().unwrap(),
        |_| false,
        bank_conflict_test_case,
    ));
    all.extend(cute_cpp_vectors::trials());
    all.extend(xla_cases::trials());
    libtest_mimic::run(&args, all).exit();
}
