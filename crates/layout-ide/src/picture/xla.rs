//! An XLA shape with a tiled layout (seed 001): its two most minor
//! physical dims as rows and columns, padded up to whole tiles of the
//! first tile level. A cell reads the element's physical offset (every tile
//! level applied); padding is shaded; the tiles are outlined.

use layout_algebra::xla::{TileDim, XlaShape};

use super::colour;
use super::distributed::tiles;
use super::{Cell, MAX_SIDE, Panel, Picture, PictureError, Rgb, Swatch, Weight};

/// Alternate tiles take these two colours.
const TILE_COLOURS: [Rgb; 2] = [Rgb(0xc6, 0xdb, 0xef), Rgb(0x9e, 0xca, 0xe1)];

/// The physical grid of the two most minor dims.
struct Grid {
    rank: usize,
    /// Logical dims drawn as rows and columns.
    row_dim: Option<usize>,
    col_dim: usize,
    rows: usize,
    cols: usize,
    /// The first tile level's extent over (rows, cols).
    tile: (usize, usize),
}

impl Grid {
    fn of(x: &XlaShape) -> Option<Grid> {
        let rank = x.dims.len();
        if rank == 0 {
            return None;
        }
        let minor_to_major: Vec<usize> = x
            .layout
            .as_ref()
            .map_or_else(|| (0..rank).rev().collect(), |l| l.minor_to_major.clone());
        let col_dim = minor_to_major[0];
        let row_dim = minor_to_major.get(1).copied();
        let size = |t: &TileDim| match t {
            TileDim::Size(s) => (*s).max(1) as usize,
            TileDim::Combine => 1,
        };
        let tile = match x.layout.as_ref().and_then(|l| l.tiles.first()) {
            Some(t) => match t.as_slice() {
                [] => (1, 1),
                [c] => (1, size(c)),
                [.., r, c] => (size(r), size(c)),
            },
            None => (1, 1),
        };
        Some(Grid {
            rank,
            row_dim,
            col_dim,
            rows: row_dim.map_or(1, |d| x.dims[d] as usize),
            cols: x.dims[col_dim] as usize,
            tile: if row_dim.is_some() { tile } else { (1, tile.1) },
        })
    }

    fn padded(&self) -> (usize, usize) {
        (
            self.rows.div_ceil(self.tile.0) * self.tile.0,
            self.cols.div_ceil(self.tile.1) * self.tile.1,
        )
    }

    /// The logical index of physical cell (`r`, `c`), leading dims at 0.
    fn index(&self, r: usize, c: usize) -> Vec<i64> {
        let mut index = vec![0i64; self.rank];
        if let Some(d) = self.row_dim {
            index[d] = r as i64;
        }
        index[self.col_dim] = c as i64;
        index
    }

    fn cell(&self, x: &XlaShape, r: usize, c: usize) -> Cell {
        let tile_id = (r / self.tile.0, c / self.tile.1);
        let tile_text = format!("({}, {})", tile_id.0, tile_id.1);
        if r >= self.rows || c >= self.cols {
            return Cell {
                lines: vec!["pad".into()],
                fill: colour::SHADED,
                shaded: true,
                details: vec![
                    ("position", format!("({r}, {c}) of the padded tile grid")),
                    ("tile", tile_text),
                    ("padding", "yes".into()),
                ],
            };
        }
        let index = self.index(r, c);
        let offset = x.offset(&index).map_or("?".into(), |o| o.to_string());
        let coords: Vec<String> = index.iter().map(i64::to_string).collect();
        Cell {
            lines: vec![offset.clone()],
            fill: TILE_COLOURS[(tile_id.0 + tile_id.1) % 2],
            shaded: false,
            details: vec![
                ("coordinates", format!("({})", coords.join(", "))),
                ("offset", offset),
                ("tile", tile_text),
            ],
        }
    }

    /// A panel of the padded grid from (`r0`, `c0`), at most [`MAX_SIDE`] a side.
    fn window(&self, x: &XlaShape, (r0, c0): (usize, usize), caption: String) -> Panel {
        let (pr, pc) = self.padded();
        let (rows, cols) = ((pr - r0).min(MAX_SIDE), (pc - c0).min(MAX_SIDE));
        let mut cells = Vec::with_capacity(rows * cols);
        for r in r0..r0 + rows {
            for c in c0..c0 + cols {
                cells.push(self.cell(x, r, c));
            }
        }
        // Tile boundaries inside the window, from the first one in it.
        let first = |start: usize, t: usize| (t - start % t) % t;
        let (fr, fc) = (first(r0, self.tile.0), first(c0, self.tile.1));
        let mut outlines = tiles(self.tile, (rows - fr, cols - fc), Weight::Thin);
        for o in &mut outlines {
            o.row += fr;
            o.col += fc;
        }
        Panel {
            caption,
            row_axis: self.row_dim.map_or(String::new(), |d| format!("dim {d}")),
            col_axis: format!("dim {}", self.col_dim),
            row_labels: (r0..r0 + rows).map(|r| r.to_string()).collect(),
            col_labels: (c0..c0 + cols).map(|c| c.to_string()).collect(),
            cells,
            outlines,
        }
    }

    /// One cell per block of tiles: how much of it holds elements.
    fn overview(&self) -> Panel {
        let (pr, pc) = self.padded();
        let (ntr, ntc) = (pr / self.tile.0, pc / self.tile.1);
        let (br, bc) = (ntr.div_ceil(MAX_SIDE), ntc.div_ceil(MAX_SIDE));
        let (nr, nc) = (ntr.div_ceil(br), ntc.div_ceil(bc));
        let mut cells = Vec::with_capacity(nr * nc);
        for i in 0..nr {
            for j in 0..nc {
                let (r0, r1) = (i * br * self.tile.0, ((i + 1) * br * self.tile.0).min(pr));
                let (c0, c1) = (j * bc * self.tile.1, ((j + 1) * bc * self.tile.1).min(pc));
                let used =
                    (self.rows.min(r1).saturating_sub(r0)) * (self.cols.min(c1).saturating_sub(c0));
                let all = (r1 - r0) * (c1 - c0);
                let percent = used * 100 / all.max(1);
                cells.push(Cell {
                    lines: vec![format!("{percent}%")],
                    fill: if used == all {
                        TILE_COLOURS[0]
                    } else if used == 0 {
                        colour::SHADED
                    } else {
                        colour::heat(2, 2)
                    },
                    shaded: used == 0,
                    details: vec![
                        (
                            "tiles",
                            format!(
                                "rows {}-{}, columns {}-{} of the tile grid",
                                i * br,
                                ((i + 1) * br).min(ntr) - 1,
                                j * bc,
                                ((j + 1) * bc).min(ntc) - 1
                            ),
                        ),
                        ("elements", format!("{used} of {all}")),
                    ],
                });
            }
        }
        Panel {
            caption: format!(
                "every tile{}: the share that holds elements (orange: partly padding)",
                if br * bc > 1 {
                    format!(" (each cell {br} x {bc} tiles)")
                } else {
                    String::new()
                }
            ),
            row_axis: "tile row".into(),
            col_axis: "tile column".into(),
            row_labels: (0..nr).map(|i| (i * br).to_string()).collect(),
            col_labels: (0..nc).map(|j| (j * bc).to_string()).collect(),
            cells,
            outlines: Vec::new(),
        }
    }
}

pub fn picture(name: &str, x: &XlaShape) -> Result<Picture, PictureError> {
    let Some(g) = Grid::of(x) else {
        return Err(PictureError::NotDrawable(format!(
            "`{name}` is a scalar: it has no grid to draw"
        )));
    };
    let (pr, pc) = g.padded();
    let logical = x.logical_elements();
    let mut notes = vec![
        format!("{x}"),
        format!(
            "{logical} elements; {} with padding ({} bytes), {} of them padding",
            x.padded_elements(),
            x.padded_bytes(),
            x.padded_elements() - logical
        ),
        format!(
            "rows: dim {}, columns: dim {} (the most minor), padded to whole {} x {} tiles: {pr} x {pc}",
            g.row_dim.map_or("-".into(), |d| d.to_string()),
            g.col_dim,
            g.tile.0,
            g.tile.1
        ),
    ];
    if g.rank > 2 {
        notes.push(format!(
            "the picture shows the two most minor dims with the {} others at 0",
            g.rank - 2
        ));
    }
    let zoomed = pr > MAX_SIDE || pc > MAX_SIDE;
    let mut panels = vec![g.window(
        x,
        (0, 0),
        if zoomed {
            "the top-left corner: physical offset of each element; padding shaded".into()
        } else {
            "physical offset of each element; padding shaded; tiles outlined".into()
        },
    )];
    if zoomed {
        let corner = (pr.saturating_sub(MAX_SIDE), pc.saturating_sub(MAX_SIDE));
        panels.push(g.window(
            x,
            corner,
            "the bottom-right corner, where the padding is".into(),
        ));
        panels.push(g.overview());
        notes.push(format!(
            "{pr} x {pc} cells: the picture shows two corners and every tile in summary"
        ));
    }
    Ok(Picture {
        title: format!("{name}: an XLA tiled layout"),
        notes,
        panels,
        legend: vec![
            Swatch {
                fill: TILE_COLOURS[0],
                text: "element (alternate tiles in two blues)".into(),
            },
            Swatch {
                fill: colour::SHADED,
                text: "padding".into(),
            },
        ],
        arrangement: super::Arrangement::Stacked,
    })
}
