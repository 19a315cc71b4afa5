//! A [`Picture`] as an SVG document (the `svg` crate's elements): the
//! title, notes and legend on top, then each panel as a captioned grid.
//!
//! Every cell is a `<g class="cell">` holding its `<rect>` (the fill) and
//! `<text>`, with `data-row`/`data-col` (its place in the panel), one
//! `data-*` attribute per detail and `data-keys` listing them in order (the
//! HTML view shows them on hover; a `<title>` shows them in any viewer).

use layout_ide::picture::{Arrangement, Cell, Panel, Picture, Weight};
use svg::Document;
use svg::node::element::{Group, Rectangle, Style, TSpan, Text, Title};

/// Sizes in pixels. Text is monospace, about 0.6 em wide per character.
const FONT: f64 = 11.0;
const CHAR: f64 = FONT * 0.62;
const LINE: f64 = 14.0;
const MARGIN: f64 = 20.0;
const GAP: f64 = 28.0;

const STYLE: &str = "
text { font-family: 'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace; font-size: 11px; fill: #1a1a1a; }
text.title { font-size: 16px; font-weight: bold; }
text.caption { font-size: 12px; font-weight: bold; }
text.axis, text.label { fill: #555555; }
g.cell rect { stroke: #ffffff; stroke-width: 1; }
g.cell:hover rect { stroke: #000000; stroke-width: 2; }
rect.outline { fill: none; stroke: #303030; pointer-events: none; }
";

/// Key of a detail as an attribute: `wavefront group` -> `data-wavefront-group`.
pub fn data_key(key: &str) -> String {
    format!("data-{}", key.replace(' ', "-"))
}

/// The SVG text of a picture.
pub fn document(p: &Picture) -> String {
    let mut body = Group::new();
    let mut y = MARGIN;
    let mut width: f64 = 600.0;

    y += 16.0;
    body = body.add(text(MARGIN, y, &p.title).set("class", "title"));
    y += 6.0;
    for note in &p.notes {
        y += LINE + 2.0;
        body = body.add(text(MARGIN, y, note).set("class", "note"));
        width = width.max(2.0 * MARGIN + note.chars().count() as f64 * CHAR);
    }

    // The legend: swatches in rows.
    if !p.legend.is_empty() {
        y += 10.0;
        let mut legend = Group::new().set("class", "legend");
        let item_width = p
            .legend
            .iter()
            .map(|s| s.text.chars().count() as f64 * CHAR + 26.0)
            .fold(0.0, f64::max);
        let per_row = ((width - 2.0 * MARGIN) / item_width).floor().max(1.0) as usize;
        for (i, s) in p.legend.iter().enumerate() {
            let (row, col) = (i / per_row, i % per_row);
            let x = MARGIN + col as f64 * item_width;
            let sy = y + row as f64 * (LINE + 4.0);
            legend = legend
                .add(
                    Rectangle::new()
                        .set("x", x)
                        .set("y", sy)
                        .set("width", 14)
                        .set("height", 12)
                        .set("fill", s.fill.hex())
                        .set("stroke", "#808080"),
                )
                .add(text(x + 19.0, sy + 10.0, &s.text));
        }
        body = body.add(legend);
        y += p.legend.len().div_ceil(per_row) as f64 * (LINE + 4.0);
    }

    match p.arrangement {
        Arrangement::Stacked => {
            for (i, panel) in p.panels.iter().enumerate() {
                y += GAP;
                let (group, w, h) = panel_group(panel, i, MARGIN, y);
                body = body.add(group);
                width = width.max(w + 2.0 * MARGIN);
                y += h;
            }
        }
        Arrangement::SideBySide => {
            y += GAP;
            let (mut x, mut tallest) = (MARGIN, 0.0f64);
            for (i, panel) in p.panels.iter().enumerate() {
                let (group, w, h) = panel_group(panel, i, x, y);
                body = body.add(group);
                x += w + GAP;
                tallest = tallest.max(h);
            }
            width = width.max(x - GAP + MARGIN);
            y += tallest;
        }
    }
    let height = y + MARGIN;
    Document::new()
        .set("width", width.ceil())
        .set("height", height.ceil())
        .set("viewBox", (0, 0, width.ceil(), height.ceil()))
        .add(Title::new(p.title.clone()))
        .add(Style::new(STYLE))
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "#ffffff"),
        )
        .add(body)
        .to_string()
}

fn text(x: f64, y: f64, content: &str) -> Text {
    Text::new(content).set("x", x).set("y", y)
}

/// Cell size for a panel: wide enough for its longest line and label.
fn cell_size(panel: &Panel) -> (f64, f64) {
    let longest = panel
        .cells
        .iter()
        .flat_map(|c| c.lines.iter())
        .chain(panel.col_labels.iter())
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1);
    let lines = panel
        .cells
        .iter()
        .map(|c| c.lines.len())
        .max()
        .unwrap_or(1)
        .max(1);
    (
        (longest as f64 * CHAR + 8.0).max(22.0),
        lines as f64 * LINE + 6.0,
    )
}

/// A panel at (`x`, `y`): its group, width and height.
fn panel_group(panel: &Panel, index: usize, x: f64, y: f64) -> (Group, f64, f64) {
    let (cw, ch) = cell_size(panel);
    let label_width = panel
        .row_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1) as f64
        * CHAR
        + 10.0;
    let mut g = Group::new()
        .set("class", "panel")
        .set("data-panel", index)
        .set("data-rows", panel.rows())
        .set("data-cols", panel.cols());
    g = g.add(text(x, y, &panel.caption).set("class", "caption"));
    let axes = format!(
        "rows: {}   columns: {}",
        if panel.row_axis.is_empty() {
            "-"
        } else {
            &panel.row_axis
        },
        panel.col_axis
    );
    g = g.add(text(x, y + LINE + 2.0, &axes).set("class", "axis"));
    let top = y + 2.0 * LINE + 8.0;
    let left = x + label_width;
    // Column labels above, row labels to the left.
    for (j, l) in panel.col_labels.iter().enumerate() {
        g = g.add(
            text(left + j as f64 * cw + cw / 2.0, top + LINE - 4.0, l)
                .set("class", "label")
                .set("text-anchor", "middle"),
        );
    }
    let grid_top = top + LINE + 2.0;
    for (i, l) in panel.row_labels.iter().enumerate() {
        g = g.add(
            text(left - 6.0, grid_top + i as f64 * ch + ch / 2.0 + 4.0, l)
                .set("class", "label")
                .set("text-anchor", "end"),
        );
    }
    let mut cells = Group::new().set("class", "cells");
    for r in 0..panel.rows() {
        for c in 0..panel.cols() {
            let cx = left + c as f64 * cw;
            let cy = grid_top + r as f64 * ch;
            cells = cells.add(cell_group(panel.cell(r, c), r, c, (cx, cy), (cw, ch)));
        }
    }
    g = g.add(cells);
    for o in &panel.outlines {
        g = g.add(
            Rectangle::new()
                .set(
                    "class",
                    match o.weight {
                        Weight::Thin => "outline thin",
                        Weight::Thick => "outline thick",
                    },
                )
                .set("x", left + o.col as f64 * cw)
                .set("y", grid_top + o.row as f64 * ch)
                .set("width", o.cols as f64 * cw)
                .set("height", o.rows as f64 * ch)
                .set(
                    "stroke-width",
                    match o.weight {
                        Weight::Thin => 1.5,
                        Weight::Thick => 3.5,
                    },
                ),
        );
    }
    let width = (label_width + panel.cols() as f64 * cw)
        .max(panel.caption.chars().count() as f64 * CHAR * 1.1);
    let height = grid_top - y + panel.rows() as f64 * ch;
    (g, width, height)
}

fn cell_group(
    cell: &Cell,
    row: usize,
    col: usize,
    (x, y): (f64, f64),
    (w, h): (f64, f64),
) -> Group {
    let mut g = Group::new()
        .set("class", if cell.shaded { "cell shaded" } else { "cell" })
        .set("data-row", row)
        .set("data-col", col);
    let keys: Vec<&str> = cell.details.iter().map(|(k, _)| *k).collect();
    g = g.set("data-keys", keys.join("|"));
    for (k, v) in &cell.details {
        g = g.set(data_key(k), v.as_str());
    }
    let title: Vec<String> = cell
        .details
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    g = g.add(Title::new(title.join("\n")));
    g = g.add(
        Rectangle::new()
            .set("x", x)
            .set("y", y)
            .set("width", w)
            .set("height", h)
            .set("fill", cell.fill.hex()),
    );
    if !cell.lines.iter().all(String::is_empty) {
        let mut t = Text::new("")
            .set("x", x + w / 2.0)
            .set("y", y + 3.0)
            .set("text-anchor", "middle");
        for (i, line) in cell.lines.iter().enumerate() {
            t = t.add(
                TSpan::new(line.as_str())
                    .set("x", x + w / 2.0)
                    .set("y", y + 3.0 + LINE * (i as f64 + 1.0) - 3.0),
            );
        }
        g = g.add(t);
    }
    g
}
