//! Pictures against the values they draw: every owner, offset, bank and
//! word count is checked by applying the layout, not by snapshot.

use layout_algebra::LinearLayout;
use layout_db::{Database, SourceFile, Value};

use super::*;

fn open(text: &str) -> (Database, SourceFile) {
    let mut db = Database::default();
    let file = SourceFile::open(&mut db, "test.lay".into(), text.to_string());
    (db, file)
}

fn draw(text: &str, name: &str) -> (Picture, Value) {
    let (db, file) = open(text);
    let p = picture(&db, file, name).unwrap_or_else(|e| panic!("{e}"));
    let v = layout_db::named_values(&db, file)
        .into_iter()
        .find(|v| v.name == name)
        .and_then(|v| v.value)
        .expect("a value");
    (p, v)
}

fn layout_of(v: &Value) -> &LinearLayout {
    match v {
        Value::Tensor(t) => &t.layout,
        Value::Linear(l) => l,
        other => panic!("not a layout: {other}"),
    }
}

/// `T37:R2` -> (thread, register)
fn owner_label(s: &str) -> (u64, u64) {
    let (t, r) = s
        .trim_start_matches('T')
        .split_once(":R")
        .expect("T<t>:R<r>");
    (t.parse().unwrap(), r.parse().unwrap())
}

const BLOCKED: &str = r#"
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
layout blk = tensor<16x64xf16, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
"#;

#[test]
fn every_cell_of_a_distributed_layout_names_the_thread_and_register_that_hold_it() {
    let (p, v) = draw(BLOCKED, "blk");
    let l = layout_of(&v);
    let panel = &p.panels[0];
    assert_eq!((panel.rows(), panel.cols()), (16, 32));
    for r in 0..panel.rows() {
        for c in 0..panel.cols() {
            let cell = panel.cell(r, c);
            let (thread, register) = owner_label(&cell.lines[0]);
            let (lane, warp) = (thread % 32, thread / 32);
            let at = l
                .apply(&[
                    ("register", register),
                    ("lane", lane),
                    ("warp", warp),
                    ("block", 0),
                ])
                .unwrap();
            let at: Vec<u32> = at.into_iter().map(|(_, x)| x).collect();
            assert_eq!(at, vec![r as u32, c as u32], "cell ({r}, {c})");
            assert_eq!(cell.fill, colour::warp(warp), "cell ({r}, {c})");
            assert_eq!(
                cell.detail("coordinates"),
                Some(format!("({r}, {c})").as_str())
            );
        }
    }
    // The CTA tile: 1x4 per thread, 2x16 lanes, 4x1 warps = 8 x 64, cut at
    // the 32 columns drawn.
    assert!(
        p.notes.iter().any(|n| n.contains("8 x 64")),
        "{:?}",
        p.notes
    );
    assert_eq!(
        panel.outlines,
        vec![
            Outline {
                row: 0,
                col: 0,
                rows: 8,
                cols: 32,
                weight: Weight::Thin
            },
            Outline {
                row: 8,
                col: 0,
                rows: 8,
                cols: 32,
                weight: Weight::Thin
            },
        ]
    );
    // Zoomed: 64 columns do not fit, so an overview comes second.
    assert_eq!(p.panels.len(), 2);
    assert_eq!(p.legend.len(), 4);
}

#[test]
fn a_large_tensor_is_drawn_as_a_corner_and_an_overview() {
    let text = r#"
module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32}
layout big = tensor<256x512xf32, #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>
"#;
    let (p, v) = draw(text, "big");
    let l = layout_of(&v);
    assert_eq!((p.panels[0].rows(), p.panels[0].cols()), (32, 32));
    let overview = &p.panels[1];
    // 256 x 512 in blocks of 8 x 16: 32 x 32 cells.
    assert_eq!((overview.rows(), overview.cols()), (32, 32));
    for (i, j) in [(0, 0), (5, 7), (31, 31)] {
        let cell = overview.cell(i, j);
        let (r, c) = (i * 8, j * 16);
        // The warp named is the one holding the block's first element.
        let owner = cell.detail("owner").unwrap();
        let (thread, register) = owner_label(owner.split_whitespace().next().unwrap());
        let at = l
            .apply(&[
                ("register", register),
                ("lane", thread % 32),
                ("warp", thread / 32),
                ("block", 0),
            ])
            .unwrap();
        assert_eq!(
            at.iter().map(|(_, x)| *x as usize).collect::<Vec<_>>(),
            vec![r, c]
        );
        assert_eq!(cell.lines, vec![format!("W{}", thread / 32)]);
    }
    assert!(p.notes.iter().any(|n| n.contains("top-left 32 x 32")));
}

#[test]
fn a_shared_layout_shows_the_offset_and_bank_of_every_element() {
    let text = r#"
layout s = tensor<32x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
"#;
    let (p, v) = draw(text, "s");
    let l = layout_of(&v);
    let panel = &p.panels[0];
    assert_eq!((panel.rows(), panel.cols()), (32, 32));
    for r in 0..32 {
        for c in 0..32 {
            let cell = panel.cell(r, c);
            let offset: u64 = cell.lines[0].parse().unwrap();
            let at = l.apply(&[("offset", offset), ("block", 0)]).unwrap();
            assert_eq!(
                at.iter().map(|(_, x)| *x as usize).collect::<Vec<_>>(),
                vec![r, c]
            );
            // 16-bit elements, 4-byte banks: two elements per word.
            let bank = (offset / 2) % 32;
            assert_eq!(cell.lines[1], format!("b{bank}"));
            assert_eq!(cell.fill, colour::bank(bank, 32));
            assert_eq!(cell.detail("bank"), Some(bank.to_string().as_str()));
        }
    }
}

#[test]
fn padded_offsets_include_the_padding() {
    let text = r#"
layout p = tensor<64x64xf16, #ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>>
"#;
    let (p, _) = draw(text, "p");
    let panel = &p.panels[0];
    // Row r starts at 64 r + 4 r (4 elements after every row of 64).
    for r in 0..32 {
        assert_eq!(panel.cell(r, 0).lines[0], (68 * r).to_string());
        assert_eq!(panel.cell(r, 3).lines[0], (68 * r + 3).to_string());
    }
    assert!(p.notes.iter().any(|n| n.contains("padding")));
}

const CONFLICT: &str = r#"
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"}
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
%a = ttg.local_alloc %x : (tensor<32x32xf32, #col>) -> !ttg.memdesc<32x32xf32, #rows, #smem>
"#;

#[test]
fn an_access_heatmap_shows_each_wavefront_group_and_sums_to_its_wavefronts() {
    let (p, v) = draw(CONFLICT, "%a");
    let Value::Access(a) = &v else {
        panic!("not an access")
    };
    let heat = &p.panels[0];
    assert_eq!(heat.cols(), 32);
    // A column of 32 lanes stored into row-major rows of 32 words: each
    // store puts all 32 words in one bank.
    let mut total = 0;
    for r in 0..heat.rows() {
        let words: Vec<u64> = (0..32)
            .map(|b| heat.cell(r, b).detail("words").unwrap().parse().unwrap())
            .collect();
        let busiest = *words.iter().max().unwrap();
        assert_eq!(busiest, 32);
        assert_eq!(words.iter().filter(|&&w| w > 0).count(), 1);
        total += busiest;
        let hot = words.iter().position(|&w| w == 32).unwrap();
        assert_eq!(heat.cell(r, hot).fill, colour::heat(32, 32));
        assert_eq!(
            heat.cell(r, hot)
                .detail("lanes")
                .unwrap()
                .split(", ")
                .count(),
            32
        );
    }
    assert_eq!(total, a.wavefronts);
    assert_eq!(a.wavefronts, 256);

    // Elements: owner and bank of each; warp 0's in its bank's colour.
    let elements = &p.panels[1];
    let cell = elements.cell(3, 0);
    assert_eq!(cell.lines, vec!["T3:R0", "b0"]);
    assert_eq!(cell.fill, colour::bank(0, 32));
    let other = elements.cell(5, 1);
    assert_eq!(other.lines, vec!["T37:R0", "b1"]);
    assert!(other.shaded, "warp 1's elements are shaded");
    assert_eq!(other.detail("offset"), Some("161"));
}

#[test]
fn every_access_of_the_corpus_dumps_draws_with_the_wavefronts_it_counted() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/ttgir");
    let mut drawn = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ttgir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (db, file) = open(&text);
        for nv in layout_db::named_values(&db, file) {
            let Some(Value::Access(a)) = &nv.value else {
                continue;
            };
            let p = picture(&db, file, &nv.name)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), nv.name));
            let heat = &p.panels[0];
            let rows_total: u64 = heat
                .row_labels
                .iter()
                .map(|l| l.rsplit('x').next().unwrap().parse::<u64>().unwrap())
                .sum();
            if heat.rows() < 2 * MAX_SIDE {
                assert_eq!(rows_total, a.wavefronts, "{}: {}", path.display(), nv.name);
            }
            drawn += 1;
        }
    }
    assert!(drawn > 20, "only {drawn} accesses drawn");
}

#[test]
fn an_xla_picture_shades_the_padding_of_its_tiles() {
    let (p, v) = draw("layout x = xla f32[3,5]{1,0:T(2,2)}\n", "x");
    let Value::Xla(x) = &v else { panic!() };
    let panel = &p.panels[0];
    // 3 x 5 padded to whole 2 x 2 tiles: 4 x 6, 9 cells of padding.
    assert_eq!((panel.rows(), panel.cols()), (4, 6));
    let offsets = x.offsets();
    let mut padding = 0;
    for r in 0..4 {
        for c in 0..6 {
            let cell = panel.cell(r, c);
            if r < 3 && c < 5 {
                assert_eq!(cell.lines[0], offsets[r * 5 + c].to_string());
                assert!(!cell.shaded);
            } else {
                assert!(cell.shaded);
                assert_eq!(cell.fill, colour::SHADED);
                padding += 1;
            }
        }
    }
    assert_eq!(padding, 9);
    assert_eq!(panel.outlines.len(), 6);
    assert!(p.notes.iter().any(|n| n.contains("24 with padding")));
}

#[test]
fn a_cute_thread_value_layout_names_the_thread_and_value_on_each_offset() {
    // SM80's 16x8 accumulator: T0 holds (0,0), (0,1), (8,0), (8,1).
    let (p, v) = draw("layout c = cute ((4,8),(2,2)):((32,1),(16,8))\n", "c");
    let Value::Cute(l) = &v else { panic!() };
    let tv = &p.panels[1];
    assert_eq!((tv.rows(), tv.cols()), (16, 8));
    for r in 0..16 {
        for c in 0..8 {
            let cell = tv.cell(r, c);
            let t: i64 = cell.lines[0][1..].parse().unwrap();
            let val: i64 = cell.lines[1][1..].parse().unwrap();
            assert_eq!(l.call(t + 32 * val), (r + 16 * c) as i64);
        }
    }
    assert_eq!(tv.cell(0, 1).lines, vec!["T0", "V1"]);
    assert_eq!(tv.cell(8, 0).lines, vec!["T0", "V2"]);
    // The offset table is CuTe's print_layout.
    let table = &p.panels[0];
    assert_eq!(table.cell(1, 0).lines[0], l.call(1).to_string());
    assert_eq!(table.cell(0, 1).lines[0], l.call(32).to_string());
}

#[test]
fn a_value_without_a_picture_says_what_render_draws() {
    let (db, file) = open("layout n = 3\nlayout bad = tensor<8x8xf16, #nope>\n");
    let e = picture(&db, file, "n").unwrap_err();
    assert!(
        matches!(&e, PictureError::NotDrawable(m) if m.contains("an integer")),
        "{e}"
    );
    let e = picture(&db, file, "missing").unwrap_err();
    assert_eq!(
        e,
        PictureError::NoSuchName {
            name: "missing".into(),
            declared: vec!["n".into(), "bad".into()]
        }
    );
    assert_eq!(
        picture(&db, file, "bad").unwrap_err(),
        PictureError::HasErrors("bad".into())
    );
}

/// A tiled MMA drawn as `print_latex` draws it: every element of C, A and B
/// carries the lowest thread that holds it, checked against the TV layouts.
#[test]
fn a_tiled_mma_labels_every_element_with_its_thread_and_value() {
    let text = "let m = tiled_mma(mma_atom(\"SM80_16x8x16_F32F16F16F32_TN\"), cute (2,2,1), <32,(8,2,2):(1,16,8),16>)\n\
                layout c = layout_c_tv(m)\nlayout a = layout_a_tv(m)\n";
    let (p, _) = draw(text, "m");
    assert_eq!(p.panels.len(), 3);
    assert_eq!(p.arrangement, Arrangement::SideBySide);
    let (db, file) = open(text);
    let values = layout_db::named_values(&db, file);
    for (panel, name, rows) in [(&p.panels[0], "c", 32usize), (&p.panels[1], "a", 32)] {
        let tv = match values
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.value.as_ref())
        {
            Some(Value::Cute(l)) => l.clone(),
            other => panic!("{other:?}"),
        };
        let threads = tv.shape().mode(0).product();
        let mut lowest = std::collections::HashMap::new();
        for idx in 0..tv.size() {
            let e = lowest.entry(tv.call(idx)).or_insert((i64::MAX, 0));
            if idx % threads < e.0 {
                *e = (idx % threads, idx / threads);
            }
        }
        let cols = panel.cols();
        for r in 0..panel.rows() {
            for c in 0..cols {
                let (t, v) = lowest[&((r + rows * c) as i64)];
                assert_eq!(
                    panel.cells[r * cols + c].lines,
                    vec![format!("T{t}"), format!("V{v}")]
                );
            }
        }
    }
    // C(0, 2) belongs to thread 1, value 0, as in the atom's CLayout.
    assert_eq!(
        p.panels[0].cells[2].lines,
        vec!["T1".to_string(), "V0".to_string()]
    );
}
