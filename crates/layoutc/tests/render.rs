//! `layoutc render`: the SVG parsed and checked cell by cell against the
//! layout `layoutc show --format json` prints (owners computed here from
//! its bases), the PNG's pixels against the SVG's cells, and every way the
//! command refuses (exit 2) or meets errors (exit 1).

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn layoutc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_layoutc"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("runs layoutc")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn render(file: &str, name: &str, out: &str) {
    let o = layoutc(&["render", file, name, "-o", out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// One drawn cell: its place, fill, text lines and details.
#[derive(Debug)]
struct SvgCell {
    row: usize,
    col: usize,
    x: f64,
    y: f64,
    fill: String,
    lines: Vec<String>,
    details: HashMap<String, String>,
}

/// The cells of each panel, in document order.
fn panels(svg: &str) -> Vec<Vec<SvgCell>> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses");
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("panel"))
        .map(|panel| {
            panel
                .descendants()
                .filter(|n| {
                    n.has_tag_name("g")
                        && n.attribute("class").is_some_and(|c| c.starts_with("cell"))
                        && n.attribute("data-row").is_some()
                })
                .map(|g| {
                    let rect = g.children().find(|c| c.has_tag_name("rect")).unwrap();
                    let lines = g
                        .descendants()
                        .filter(|t| t.has_tag_name("tspan"))
                        .map(|t| t.text().unwrap_or("").to_string())
                        .collect();
                    let details = g
                        .attributes()
                        .filter(|a| a.name().starts_with("data-"))
                        .map(|a| (a.name()[5..].to_string(), a.value().to_string()))
                        .collect();
                    SvgCell {
                        row: g.attribute("data-row").unwrap().parse().unwrap(),
                        col: g.attribute("data-col").unwrap().parse().unwrap(),
                        x: rect.attribute("x").unwrap().parse().unwrap(),
                        y: rect.attribute("y").unwrap().parse().unwrap(),
                        fill: rect.attribute("fill").unwrap().to_string(),
                        lines,
                        details,
                    }
                })
                .collect()
        })
        .collect()
}

const BLOCKED: &str = r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
layout blk = tensor<16x32xf16, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
"#;

/// The warp colours, as the legend promises them.
const WARP_COLOURS: [&str; 4] = ["#8dd3c7", "#ffffb3", "#bebada", "#fb8072"];

/// element -> (thread, register), from the bases of CONTRACT §3's JSON.
fn owners_from_show(file: &str, name: &str) -> HashMap<(u64, u64), (u64, u64)> {
    let o = layoutc(&["show", file, name, "--format", "json"]);
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ins = json["values"][0]["linear"]["ins"]
        .as_array()
        .unwrap()
        .clone();
    let bases = |dim: &str| -> Vec<(u64, u64)> {
        ins.iter()
            .find(|d| d["name"] == dim)
            .map(|d| {
                d["bases"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let apply = |bs: &[(u64, u64)], x: u64| {
        bs.iter()
            .enumerate()
            .filter(|(i, _)| x >> i & 1 == 1)
            .fold((0, 0), |(r, c), (_, b)| (r ^ b.0, c ^ b.1))
    };
    let (reg, lane, warp) = (bases("register"), bases("lane"), bases("warp"));
    let mut owners = HashMap::new();
    for w in 0..1u64 << warp.len() {
        for l in 0..1u64 << lane.len() {
            for r in 0..1u64 << reg.len() {
                let (a, b, c) = (apply(&reg, r), apply(&lane, l), apply(&warp, w));
                let at = (a.0 ^ b.0 ^ c.0, a.1 ^ b.1 ^ c.1);
                owners.entry(at).or_insert((l + 32 * w, r));
            }
        }
    }
    owners
}

#[test]
fn svg_cells_name_the_owner_of_each_element_in_its_warps_colour() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(dir.path(), "blk.lay", BLOCKED);
    let out = dir.path().join("blk.svg").display().to_string();
    render(&lay, "blk", &out);
    let svg = std::fs::read_to_string(&out).unwrap();
    let owners = owners_from_show(&lay, "blk");
    let cells = &panels(&svg)[0];
    assert_eq!(cells.len(), 16 * 32);
    for cell in cells {
        let (thread, register) = owners[&(cell.row as u64, cell.col as u64)];
        assert_eq!(
            cell.lines,
            vec![format!("T{thread}:R{register}")],
            "{cell:?}"
        );
        assert_eq!(cell.fill, WARP_COLOURS[(thread / 32) as usize], "{cell:?}");
        assert_eq!(
            cell.details["coordinates"],
            format!("({}, {})", cell.row, cell.col)
        );
        assert!(
            cell.details["owner"]
                .starts_with(&format!("T{thread}:R{register} (lane {}", thread % 32))
        );
    }
    // The CTA tile (1x4 x 4x8 x 4x1 = 16 x 32) is outlined.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let outlines: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("outline thin"))
        .collect();
    assert_eq!(outlines.len(), 1);
    // No temporary file is left beside the output.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn svg_shows_a_bank_conflict_as_one_hot_bank_per_wavefront_group() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(
        dir.path(),
        "conflict.lay",
        r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"}
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
%a = ttg.local_alloc %x : (tensor<32x32xf32, #col>) -> !ttg.memdesc<32x32xf32, #rows, #smem>
"#,
    );
    let out = dir.path().join("a.svg").display().to_string();
    render(&lay, "%a", &out);
    let svg = std::fs::read_to_string(&out).unwrap();
    let panels = panels(&svg);
    // 8 stores (one per register), each a wavefront group of 32 banks.
    let heat = &panels[0];
    assert_eq!(heat.len(), 8 * 32);
    for cell in heat {
        // Register k of lane l is element (l, 4k) at offset 32 l + 4 k:
        // every lane of store k asks bank 4k.
        let expected = if cell.col == 4 * cell.row { 32 } else { 0 };
        assert_eq!(cell.details["words"], expected.to_string(), "{cell:?}");
        let fill = if expected == 32 { "#d7191c" } else { "#f7f7f7" };
        assert_eq!(cell.fill, fill, "{cell:?}");
    }
    // The elements: owner and bank (element (r, c) is at offset 32 r + c).
    let elements = &panels[1];
    for cell in elements {
        let bank = cell.col % 32;
        assert_eq!(cell.details["bank"], bank.to_string());
        assert_eq!(
            cell.details["offset"],
            (32 * cell.row + cell.col).to_string()
        );
        let warp = cell.col % 4;
        let thread = cell.row + 32 * warp;
        assert_eq!(cell.lines[0], format!("T{thread}:R{}", cell.col / 4));
    }
}

#[test]
fn png_pixels_are_the_cells_colours() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(dir.path(), "blk.lay", BLOCKED);
    let svg_out = dir.path().join("blk.svg").display().to_string();
    let png_out = dir.path().join("blk.png").display().to_string();
    render(&lay, "blk", &svg_out);
    render(&lay, "blk", &png_out);
    let svg = std::fs::read_to_string(&svg_out).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let width: u32 = doc
        .root_element()
        .attribute("width")
        .unwrap()
        .parse()
        .unwrap();
    let height: u32 = doc
        .root_element()
        .attribute("height")
        .unwrap()
        .parse()
        .unwrap();

    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_out).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (width, height));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let pixel = |x: f64, y: f64| {
        let i = ((y as usize) * info.width as usize + x as usize) * 4;
        (buf[i], buf[i + 1], buf[i + 2])
    };
    let hex = |s: &str| {
        let v = u32::from_str_radix(&s[1..], 16).unwrap();
        ((v >> 16) as u8, (v >> 8) as u8, v as u8)
    };
    let cells = &panels(&svg)[0];
    let mut checked = 0;
    for cell in cells {
        // Inside the cell, clear of its border and its centred text.
        assert_eq!(
            pixel(cell.x + 2.5, cell.y + 2.5),
            hex(&cell.fill),
            "{cell:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 16 * 32);
    // Text is drawn: some pixels of the first cell are dark.
    let first = &cells[0];
    let dark = (0..40)
        .flat_map(|dx| (0..18).map(move |dy| (dx, dy)))
        .filter(|&(dx, dy)| {
            let (r, g, b) = pixel(first.x + dx as f64, first.y + dy as f64);
            (r as u32 + g as u32 + b as u32) < 200
        })
        .count();
    assert!(dark > 5, "no text drawn in the first cell");
}

#[test]
fn html_embeds_the_svg_and_the_hover_script() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(dir.path(), "blk.lay", BLOCKED);
    let out = dir.path().join("blk.html").display().to_string();
    render(&lay, "blk", &out);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"));
    assert!(html.contains("addEventListener('mouseenter'"));
    assert!(html.contains("<title>blk: who holds each element</title>"));
}

#[test]
fn every_kind_of_example_value_renders() {
    let dir = tempfile::tempdir().unwrap();
    for (file, name, title) in [
        (
            "examples/triton_matmul.lay",
            "acc",
            "who holds each element",
        ),
        (
            "examples/triton_matmul.lay",
            "a_shared",
            "where each element is stored",
        ),
        (
            "examples/seed001_xla_tiling.lay",
            "merged",
            "an XLA tiled layout",
        ),
        ("examples/cute_gemm_tile.lay", "smem", "a CuTe layout"),
        (
            "examples/solve_matmul_operands.lay",
            "a_smem",
            "the answer of a solve block",
        ),
        (
            "examples/solve_tpu.lay",
            "activations",
            "the answer of a solve block",
        ),
        (
            "examples/triton_convert_layout.lay",
            "epilogue",
            "convert shared",
        ),
        (
            "tests/corpus/ttgir/flash_attention_fwd_sm80.ttgir",
            "%q_103",
            "the banks of a shared-memory access",
        ),
    ] {
        let out = dir.path().join("x.svg").display().to_string();
        let o = layoutc(&["render", file, name, "-o", &out]);
        assert_eq!(o.status.code(), Some(0), "{file} {name}: {}", stderr(&o));
        let svg = std::fs::read_to_string(&out).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let t = doc
            .descendants()
            .find(|n| n.has_tag_name("title"))
            .and_then(|n| n.text())
            .unwrap()
            .to_string();
        assert!(t.contains(title), "{file} {name}: {t}");
    }
}

/// The `int` values `layoutc show --format json` prints, by name.
fn ints_from_show(file: &str) -> HashMap<String, i64> {
    let o = layoutc(&["show", file, "--format", "json"]);
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    json["values"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| Some((v["name"].as_str()?.to_string(), v["int"].as_i64()?)))
        .collect()
}

/// The heatmap's busiest bank of each wavefront group, summed: the
/// wavefronts the picture shows.
fn heat_wavefronts(heat: &[SvgCell]) -> u64 {
    let mut busiest: HashMap<usize, u64> = HashMap::new();
    for c in heat {
        let words: u64 = c.details["words"].parse().unwrap();
        let b = busiest.entry(c.row).or_default();
        *b = (*b).max(words);
    }
    busiest.values().sum()
}

#[test]
fn an_access_named_by_its_count_or_its_line_draws_its_bank_heatmap() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(
        dir.path(),
        "counts.lay",
        r#"module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"}
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
layout d = tensor<32x32xf32, #col>
layout s = !ttg.memdesc<32x32xf32, #rows, #smem>
let w = wavefronts(d, s, 32, "store")
check bank_conflicts(d, s) == 31
ttg.local_store %x, %buf : tensor<32x32xf32, #col> -> !ttg.memdesc<32x32xf32, #rows, #smem, mutable>
"#,
    );
    // The count the enumeration oracle gives: 8 stores, all 32 lanes of
    // store k in bank 4k: 8 x 32 wavefronts.
    assert_eq!(ints_from_show(&lay)["w"], 256);
    // By name (a `let` of a count), by the line of a `check`, by the line
    // of an unnamed pasted store: the same access, the same heatmap.
    for name in ["w", "8", "9"] {
        let out = dir.path().join(format!("{name}.svg")).display().to_string();
        render(&lay, name, &out);
        let svg = std::fs::read_to_string(&out).unwrap();
        assert!(
            svg.contains("the banks of a shared-memory access"),
            "{name}"
        );
        let panels = panels(&svg);
        let heat = &panels[0];
        assert_eq!(heat.len(), 8 * 32, "{name}");
        for cell in heat {
            let expected = if cell.col == 4 * cell.row { 32 } else { 0 };
            assert_eq!(
                cell.details["words"],
                expected.to_string(),
                "{name}: {cell:?}"
            );
            let fill = if expected == 32 { "#d7191c" } else { "#f7f7f7" };
            assert_eq!(cell.fill, fill, "{name}: {cell:?}");
            // The label: the words of a hot cell, nothing in an idle one.
            let label: &[&str] = if expected == 32 { &["32"] } else { &[] };
            assert_eq!(cell.lines, label, "{name}: {cell:?}");
        }
        assert_eq!(heat_wavefronts(heat), 256, "{name}");
        assert!(svg.contains("256 wavefronts"), "{name}");
    }
    // A line with no access and no value: refused.
    let o = layoutc(&[
        "render",
        &lay,
        "3",
        "-o",
        &dir.path().join("x.svg").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_transposing_read_on_gfx950_draws_two_words_in_half_the_banks() {
    let dir = tempfile::tempdir().unwrap();
    // A 16-bit B operand (K = dim0 x N = dim1), N contiguous in shared
    // memory: each lane of ds_read_b64_tr_b16 reads 4 consecutive N
    // elements, and lanes 0-31 (one phase) reach words 0-15, 32-47, 64-79
    // and 96-111: 2 words in banks 0-15 and 32-47; lanes 32-63 are 16 words
    // further (banks 16-31 and 48-63).
    let lay = write(
        dir.path(),
        "tr.lay",
        r#"target = gfx950
layout b = linear { register: [[1, 0], [2, 0], [4, 0], [8, 0]], lane: [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]] } -> [dim0: 16, dim1: 64]
layout s = linear { offset: [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0]] } -> [dim0: 16, dim1: 64]
let tr = wavefronts(b, s, 16, "load", "ds_read_b64_tr_b16")
"#,
    );
    assert_eq!(ints_from_show(&lay)["tr"], 16);
    let out = dir.path().join("tr.svg").display().to_string();
    render(&lay, "tr", &out);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("4 x ds_read_b64_tr_b16"), "{svg}");
    let heat = &panels(&svg)[0];
    // 4 instructions x 2 phases, 64 banks.
    assert_eq!(heat.len(), 8 * 64);
    for cell in heat {
        let phase = cell.row % 2;
        let hot = (cell.col / 16) % 2 == phase;
        let expected = if hot { 2 } else { 0 };
        assert_eq!(cell.details["words"], expected.to_string(), "{cell:?}");
    }
    assert_eq!(heat_wavefronts(heat), 16);
}

#[test]
fn render_refuses_what_it_cannot_draw_with_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let lay = write(
        dir.path(),
        "f.lay",
        "layout n = 3\nlayout bad = tensor<8x8xf16, #nope>\nlayout ok = xla f32[4,4]\n",
    );
    let out = |n: &str| dir.path().join(n).display().to_string();
    let cases: [(&[&str], i32, &str); 7] = [
        (
            &["render", &lay, "ok", "-o", &out("x.txt")],
            2,
            "name it .svg, .png or .html",
        ),
        (&["render", &lay, "ok", "-o", &out("x")], 2, "name it .svg"),
        (
            &["render", &lay, "missing", "-o", &out("x.svg")],
            2,
            "declares no `missing` (it declares n, bad, ok)",
        ),
        (
            &["render", &lay, "n", "-o", &out("x.svg")],
            2,
            "`n` is an integer",
        ),
        (&["render", &lay, "ok"], 2, "--output"),
        (&["render", &lay], 2, "<NAME>"),
        (
            &["render", &lay, "ok", "-o", &out("no/such/dir/x.svg")],
            2,
            "cannot write",
        ),
    ];
    for (args, code, message) in cases {
        let o = layoutc(args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    // A declaration with errors: exit 1 with its diagnostics, no picture.
    let o = layoutc(&["render", &lay, "bad", "-o", &out("bad.svg")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("#nope"), "{}", stderr(&o));
    assert!(!Path::new(&out("bad.svg")).exists());
    // A good value in a file with errors elsewhere: drawn, exit 1.
    let o = layoutc(&["render", &lay, "ok", "-o", &out("ok.svg")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(Path::new(&out("ok.svg")).exists());
}
