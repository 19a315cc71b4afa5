//! `coalesced_blocked` against the layouts Triton 3.9's coalesce pass chose
//! in the TTGIR corpus (tests/corpus/ttgir, written by
//! tests/vectors/triton/gen_ttgir_corpus.py).
//!
//! Where a dump shows a load's pointer contiguity — the pipelined
//! `ttg.async_copy_global_to_local %ptrs ... {contiguity = N : i32} :
//! tensor<..x!tt.ptr<T>, #blocked>` keeps the layout coalesce gave the
//! `tt.load` — the pointer tensor's blocked encoding must be what the
//! heuristic computes from that contiguity along the minor dim (the
//! corpus's kernels index row-major: `offs_m[:, None] * stride + offs_k[None, :]`),
//! 16-byte divisibility (`tt.divisibility = 16` on every pointer and
//! stride) and the module's warps. Encodings other than `blocked` (AMD's
//! later passes turn some into `#ttg.linear`) are not the pass's and are
//! skipped. Every mismatch is reported, not just the first.

use layout_algebra::triton::coalesce::{AxisInfo, CoalesceRequest, coalesced_layout};
use layout_algebra::triton::{Blocked, CgaLayout, Encoding};
use layout_db::{Database, SourceFile, Value};

/// One load whose contiguity the dump shows.
struct Load {
    line: usize,
    shape: Vec<u32>,
    element_bits: u32,
    alias: String,
    contiguity: u32,
}

/// `... {contiguity = 8 : i32} : tensor<128x32x!tt.ptr<f16>, #blocked1> -> ...`
fn parse_load(line: &str) -> Option<(Vec<u32>, u32, String, u32)> {
    let (_, rest) = line.split_once("{contiguity = ")?;
    let (n, rest) = rest.split_once(" : i32} : tensor<")?;
    let (ty, rest) = rest.split_once(">, #")?;
    let alias = rest.split(['>', ' ']).next()?.to_string();
    let (dims, elt) = ty.split_once("x!tt.ptr<")?;
    let shape = dims
        .split('x')
        .map(|d| d.parse().ok())
        .collect::<Option<_>>()?;
    let bits = match elt {
        "f16" | "bf16" | "i16" => 16,
        "f32" | "i32" => 32,
        "i8" | "f8E4M3FN" | "f8E5M2" => 8,
        "f64" | "i64" => 64,
        _ => return None,
    };
    Some((shape, bits, alias, n.parse().ok()?))
}

fn text(b: &Blocked) -> String {
    format!(
        "sizePerThread {:?}, threadsPerWarp {:?}, warpsPerCTA {:?}, order {:?}",
        b.size_per_thread, b.threads_per_warp, b.warps_per_cta, b.order
    )
}

#[test]
fn coalesced_blocked_agrees_with_the_layouts_triton_chose_for_the_corpus_loads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/ttgir");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttgir"))
        .collect();
    paths.sort();
    let (mut compared, mut skipped, mut mismatches) = (0, 0, Vec::new());
    for path in paths {
        let source = std::fs::read_to_string(&path).unwrap();
        let loads: Vec<Load> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("ttg.async_copy_global_to_local"))
            .filter_map(|(i, l)| {
                let (shape, element_bits, alias, contiguity) = parse_load(l)?;
                Some(Load {
                    line: i + 1,
                    shape,
                    element_bits,
                    alias,
                    contiguity,
                })
            })
            .collect();
        if loads.is_empty() {
            continue;
        }
        let mut db = Database::default();
        let file = SourceFile::open(&mut db, path.display().to_string(), source.clone());
        let values = layout_db::named_values(&db, file);
        let target = layout_db::file_target(&db, file);
        for load in loads {
            let alias = format!("#{}", load.alias);
            let chosen = values
                .iter()
                .find(|v| v.name == alias)
                .and_then(|v| match &v.value {
                    Some(Value::Encoding(e)) => match &**e {
                        Encoding::Blocked(b) => Some(b.clone()),
                        _ => None,
                    },
                    _ => None,
                });
            let Some(chosen) = chosen else {
                skipped += 1;
                continue;
            };
            let rank = load.shape.len();
            let mut contiguity = vec![1; rank];
            contiguity[rank - 1] = load.contiguity;
            let req = CoalesceRequest {
                shape: load.shape.clone(),
                element_bits: load.element_bits,
                pointer: AxisInfo {
                    contiguity,
                    divisibility: vec![16; rank],
                },
                same_order: Vec::new(),
                num_warps: target.num_warps.unwrap_or(4),
                threads_per_warp: target.threads_per_warp(),
                cga: CgaLayout::single(rank),
            };
            compared += 1;
            match coalesced_layout(&req) {
                Ok(ours)
                    if ours.size_per_thread == chosen.size_per_thread
                        && ours.threads_per_warp == chosen.threads_per_warp
                        && ours.warps_per_cta == chosen.warps_per_cta
                        && ours.order == chosen.order => {}
                Ok(ours) => mismatches.push(format!(
                    "{}:{}: {alias}: Triton chose {}, coalesced_blocked gives {}",
                    path.display(),
                    load.line,
                    text(&chosen),
                    text(&ours)
                )),
                Err(e) => mismatches.push(format!("{}:{}: {e}", path.display(), load.line)),
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The corpus has 108 such loads, 21 of them on #ttg.linear pointers.
    assert!(
        compared >= 80,
        "only {compared} loads compared ({skipped} skipped)"
    );
}
