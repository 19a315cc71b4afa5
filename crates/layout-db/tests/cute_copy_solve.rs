//! `solve` over CuTe tiled copies (`family = cute`): the answer is re-scored
//! through the partition path (`TiledCopy::wavefronts`, not the solver's
//! precomputed table), every other member of the family must cost at least
//! as much, and the classic sm80 GEMM tile gets CUTLASS's own swizzle.

use layout_algebra::bank::BankTarget;
use layout_algebra::cute::copy_cost::shared_side;
use layout_algebra::cute::tiled::Side;
use layout_algebra::cute::{Layout, Swizzle, SwizzledLayout};
use layout_db::value::{CuteObject, SolveKind};
use layout_db::{Database, SourceFile, Value, check_file, named_values};

const MMA: &str = "let mma = tiled_mma(mma_atom(\"SM80_16x8x16_F32F16F16F32_TN\"), cute (2,2,1), <32,(8,2,2):(1,16,8),16>)\n";

struct Case {
    write: &'static str,
    read: &'static str,
    base: &'static str,
}

fn solve(
    case: &Case,
) -> (
    String,
    u64,
    u64,
    Vec<(bool, layout_algebra::cute::tiled::TiledCopy)>,
) {
    let text = format!(
        "{MMA}let w = {}\nlet r = {}\nsolve s {{\n  kind = swizzle\n  family = cute\n  write = w\n  read = r\n  base = cute {}\n  target = sm80\n}}\n",
        case.write, case.read, case.base
    );
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "copies.lay".into(), text);
    let report = check_file(&db, file);
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.severity != layout_db::Severity::Error),
        "{:?}",
        report.diagnostics
    );
    let values = named_values(&db, file);
    let copy = |name: &str| match values
        .iter()
        .find(|v| v.name == name)
        .and_then(|v| v.value.clone())
    {
        Some(Value::CuteAtom(o)) => match *o {
            CuteObject::TiledCopy(c) => c,
            other => panic!("{other}"),
        },
        other => panic!("{other:?}"),
    };
    let outcome = match values
        .iter()
        .find(|v| v.name == "s")
        .and_then(|v| v.value.clone())
    {
        Some(Value::Solve(s)) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(outcome.status.name(), "optimal");
    let SolveKind::Swizzle(w) = &outcome.kind else {
        panic!()
    };
    let cute = w
        .notations
        .iter()
        .find(|(k, _)| k == "cute")
        .unwrap()
        .1
        .clone();
    (
        cute,
        w.write_wavefronts,
        w.read_wavefronts,
        vec![(true, copy("w")), (false, copy("r"))],
    )
}

fn cost(
    copies: &[(bool, layout_algebra::cute::tiled::TiledCopy)],
    smem: &SwizzledLayout,
) -> Option<(u64, u64)> {
    let mut totals = (0, 0);
    for (write, c) in copies {
        let side = shared_side(c.atom.instruction).unwrap_or(if *write {
            Side::Destination
        } else {
            Side::Source
        });
        let n = c
            .wavefronts(smem, side, &BankTarget::nvidia())
            .ok()?
            .wavefronts;
        if *write {
            totals.0 += n;
        } else {
            totals.1 += n;
        }
    }
    Some(totals)
}

fn swizzled(text: &str) -> SwizzledLayout {
    SwizzledLayout::parse(text).unwrap_or_else(|_| SwizzledLayout {
        swizzle: Swizzle::new(0, 0, 0).unwrap(),
        offset: 0,
        layout: Layout::parse(text).unwrap(),
    })
}

#[test]
fn the_answer_is_the_cheapest_swizzle_and_costs_what_it_claims() {
    let cases = [
        // CUTLASS's sm80 GEMM: cp.async 128-bit into a K-major tile, ldmatrix.x4 out.
        Case {
            write: "tiled_copy(copy_atom(\"SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>\", \"half_t\"), cute (16,8):(8,1), cute (1,8))",
            read: "tiled_copy_a(copy_atom(\"SM75_U32x4_LDSM_N\", \"half_t\"), mma)",
            base: "(128,64):(64,1)",
        },
        // An M-major B tile read with ldmatrix.trans.
        Case {
            write: "tiled_copy(copy_atom(\"SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>\", \"half_t\"), cute (8,16), cute (8,1))",
            read: "tiled_copy_b(copy_atom(\"SM75_U16x8_LDSM_T\", \"half_t\"), mma)",
            base: "(64,64)",
        },
        // The epilogue: stmatrix of C, read back 128 bits per thread.
        Case {
            write: "tiled_copy_c(copy_atom(\"SM90_U32x4_STSM_N\", \"half_t\"), mma)",
            read: "tiled_copy(copy_atom(\"UniversalCopy<uint128_t>\", \"half_t\"), cute (8,16):(16,1), cute (1,8))",
            base: "(64,128):(128,1)",
        },
    ];
    for (i, case) in cases.iter().enumerate() {
        let (answer, write, read, copies) = solve(case);
        // Re-scored through the partition path.
        assert_eq!(
            cost(&copies, &swizzled(&answer)),
            Some((write, read)),
            "case {i}: {answer}"
        );
        // No CuTe swizzle over the base does better (each copy's offsets
        // computed once, then swizzled).
        let base = Layout::parse(case.base).unwrap();
        let tables: Vec<(bool, _)> = copies
            .iter()
            .map(|(write, c)| {
                let side = shared_side(c.atom.instruction).unwrap_or(if *write {
                    Side::Destination
                } else {
                    Side::Source
                });
                (*write, c.shared_offsets(&base, side).unwrap())
            })
            .collect();
        let bits = base.size().trailing_zeros();
        for b in 0..=4 {
            for m in 0..=bits {
                for s in b.max(1)..=bits {
                    let Ok(sw) = Swizzle::new(b, m, s as i32) else {
                        continue;
                    };
                    if m + s + b > bits {
                        continue;
                    }
                    let costs: Option<Vec<(bool, u64)>> = tables
                        .iter()
                        .map(|(w, t)| {
                            Some((
                                *w,
                                t.wavefronts(sw, 0, &BankTarget::nvidia()).ok()?.wavefronts,
                            ))
                        })
                        .collect();
                    if let Some(costs) = costs {
                        let total: u64 = costs.iter().map(|c| c.1).sum();
                        assert!(
                            total >= write + read,
                            "case {i}: {sw} costs {total} < {write} + {read}"
                        );
                    }
                }
            }
        }
        if i == 0 {
            // CUTLASS's own choice for this tile (sm80 GEMM, half_t, K-major).
            assert_eq!(answer, "Sw<3,3,3> o (128,64):(64,1)");
            assert_eq!((write, read), (32, 64));
        }
    }
}
