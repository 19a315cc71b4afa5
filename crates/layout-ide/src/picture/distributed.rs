//! A distributed layout (`register`, `lane`, `warp`, `block` -> tensor):
//! who holds each element. A cell reads `T<thread>:R<register>` with
//! thread = lane + warp * (lanes per warp), as the seeds number threads,
//! prefixed by `C<cta>.` in a cluster; its colour is its warp's.

use layout_algebra::LinearLayout;

use super::colour;
use super::grid::{self, Plane, Preimage, get, labels};
use super::{Cell, Outline, Panel, Picture, PictureError, Swatch, Weight};

/// Who holds one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub register: u64,
    pub lane: u64,
    pub warp: u64,
    pub block: u64,
    pub lanes_per_warp: u64,
}

impl Owner {
    pub fn thread(&self) -> u64 {
        self.lane + self.warp * self.lanes_per_warp
    }

    /// `T37:R2`, or `C1.T37:R2` in CTA 1 of a cluster.
    pub fn label(&self) -> String {
        let t = format!("T{}:R{}", self.thread(), self.register);
        if self.block > 0 {
            format!("C{}.{t}", self.block)
        } else {
            t
        }
    }

    /// The label with its parts spelled out, for a hover.
    pub fn spelled(&self) -> String {
        let cta = if self.block > 0 {
            format!(", CTA {}", self.block)
        } else {
            String::new()
        };
        format!(
            "{} (lane {}, warp {}, register {}{cta})",
            self.label(),
            self.lane,
            self.warp,
            self.register
        )
    }
}

/// Finds the owner of each element of a distributed layout.
pub struct Owners<'a> {
    pre: Preimage<'a>,
    lanes_per_warp: u64,
}

impl<'a> Owners<'a> {
    pub fn new(l: &'a LinearLayout) -> Result<Self, PictureError> {
        Ok(Owners {
            pre: Preimage::new(l)?,
            lanes_per_warp: if l.has_in_dim("lane") {
                l.in_dim_size("lane")
            } else {
                1
            },
        })
    }

    /// The owner of the element at `coords` (the lowest, when several hold
    /// it), or `None` when no thread does.
    pub fn of(&self, coords: &[u64]) -> Option<Owner> {
        let ins = self.pre.of(coords)?;
        Some(Owner {
            register: get(&ins, "register"),
            lane: get(&ins, "lane"),
            warp: get(&ins, "warp"),
            block: get(&ins, "block"),
            lanes_per_warp: self.lanes_per_warp,
        })
    }
}

pub fn picture(name: &str, what: &str, l: &LinearLayout) -> Result<Picture, PictureError> {
    let plane = Plane::of_layout(l);
    let owners = Owners::new(l)?;
    let (rows, cols) = plane.window();
    let mut cells = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            cells.push(element_cell(&plane, &owners, r, c));
        }
    }
    let tile = cta_tile(l, &plane);
    let mut outlines = tiles(tile, (rows, cols), Weight::Thin);
    let blocks = if l.has_in_dim("block") {
        l.in_dim_size("block")
    } else {
        1
    };
    let cta_part = cta_part(l, &plane);
    if blocks > 1 {
        outlines.extend(tiles(cta_part, (rows, cols), Weight::Thick));
    }
    let mut panels = vec![Panel {
        caption: format!(
            "owner of each element (T<thread>:R<register>), coloured by warp; outlined: the CTA tile{}",
            if blocks > 1 {
                " and, thick, each CTA's part"
            } else {
                ""
            }
        ),
        row_axis: plane.row_axis.clone(),
        col_axis: plane.col_axis.clone(),
        row_labels: labels(rows),
        col_labels: labels(cols),
        cells,
        outlines,
    }];
    if plane.is_zoomed() {
        panels.push(overview(&plane, &owners));
    }
    let warps = if l.has_in_dim("warp") {
        l.in_dim_size("warp")
    } else {
        1
    };
    let lanes = owners.lanes_per_warp;
    let mut notes = vec![
        what.to_string(),
        format!(
            "{} registers x {lanes} lanes x {warps} warps x {blocks} CTA(s); thread = lane + warp x {lanes}",
            if l.has_in_dim("register") {
                l.in_dim_size("register")
            } else {
                1
            },
        ),
        format!(
            "CTA tile (one pass of every lane and warp): {} x {}",
            tile.0, tile.1
        ),
    ];
    if !l.is_injective() {
        notes.push(
            "some elements are held by several threads or registers; a cell names the lowest"
                .into(),
        );
    }
    notes.extend(plane.note());
    notes.extend(plane.zoom_note());
    Ok(Picture {
        title: format!("{name}: who holds each element"),
        notes,
        panels,
        legend: (0..warps.min(32))
            .map(|w| Swatch {
                fill: colour::warp(w),
                text: format!("warp {w} (threads {}-{})", w * lanes, w * lanes + lanes - 1),
            })
            .collect(),
        arrangement: super::Arrangement::Stacked,
    })
}

fn element_cell(plane: &Plane, owners: &Owners, r: usize, c: usize) -> Cell {
    let coords = plane.coords(r, c);
    let at = ("coordinates", plane.coords_text(r, c));
    match owners.of(&coords) {
        Some(o) => Cell {
            lines: vec![o.label()],
            fill: colour::warp(o.warp),
            shaded: false,
            details: vec![at, ("owner", o.spelled()), ("warp", o.warp.to_string())],
        },
        None => Cell {
            lines: vec!["-".into()],
            fill: colour::SHADED,
            shaded: true,
            details: vec![at, ("owner", "no thread holds it".into())],
        },
    }
}

/// The whole plane in blocks, each coloured by the warp that holds its
/// first element.
fn overview(plane: &Plane, owners: &Owners) -> Panel {
    grid::overview(
        plane,
        "coloured by the warp that holds its first element",
        |r, c| {
            let mut cell = element_cell(plane, owners, r, c);
            if let Some(w) = cell.detail("warp").map(str::to_string) {
                cell.lines = vec![format!("W{w}")];
            }
            cell
        },
    )
}

/// The power of two above every value in `v`: the extent of a box that
/// holds coordinates up to their OR.
fn extent(or: u64) -> usize {
    (or + 1).next_power_of_two() as usize
}

/// The plane coordinates (row, col) of a basis.
fn in_plane(plane_rank: usize, basis: &[u32]) -> (u64, u64) {
    match plane_rank {
        0 => (0, 0),
        1 => (0, basis[0] as u64),
        n => (basis[n - 2] as u64, basis[n - 1] as u64),
    }
}

/// Triton's CTA tile (`shapePerCTATile`): the box one pass of every lane
/// and warp covers, with the registers inside it (those below the first
/// lane or warp step of their dim, or inside the box), clipped to the
/// tensor.
fn cta_tile(l: &LinearLayout, plane: &Plane) -> (usize, usize) {
    let rank = l.out_dims().len();
    let bases = l.bases();
    let of = |dim: &str| -> Vec<(u64, u64)> {
        bases
            .iter()
            .filter(|(n, _)| n.as_str() == dim)
            .flat_map(|(_, b)| b.iter().map(|v| in_plane(rank, v)))
            .collect()
    };
    let threads: Vec<(u64, u64)> = of("lane").into_iter().chain(of("warp")).collect();
    let (or_r, or_c) = threads
        .iter()
        .fold((0, 0), |(a, b), &(r, c)| (a | r, b | c));
    let min_nonzero = |pick: fn(&(u64, u64)) -> u64| {
        threads
            .iter()
            .map(pick)
            .filter(|&v| v != 0)
            .min()
            .unwrap_or(u64::MAX)
    };
    let (min_r, min_c) = (min_nonzero(|t| t.0), min_nonzero(|t| t.1));
    let (mut tr, mut tc) = (extent(or_r), extent(or_c));
    for (r, c) in of("register") {
        let inside_r = r == 0 || (r as usize) < tr || r < min_r;
        let inside_c = c == 0 || (c as usize) < tc || c < min_c;
        if inside_r && inside_c {
            tr = tr.max(extent(r));
            tc = tc.max(extent(c));
        }
    }
    (tr.min(plane.rows).max(1), tc.min(plane.cols).max(1))
}

/// The box one CTA's registers, lanes and warps cover: in a cluster, each
/// CTA's part of the tensor.
fn cta_part(l: &LinearLayout, plane: &Plane) -> (usize, usize) {
    let rank = l.out_dims().len();
    let (or_r, or_c) = l
        .bases()
        .iter()
        .filter(|(n, _)| n.as_str() != "block")
        .flat_map(|(_, b)| b.iter().map(|v| in_plane(rank, v)))
        .fold((0, 0), |(a, b), (r, c)| (a | r, b | c));
    (
        extent(or_r).min(plane.rows).max(1),
        extent(or_c).min(plane.cols).max(1),
    )
}

/// Boxes of `size` tiling the window from the top-left, cut at its edge.
pub fn tiles(size: (usize, usize), window: (usize, usize), weight: Weight) -> Vec<Outline> {
    let (tr, tc) = size;
    let (rows, cols) = window;
    let mut out = Vec::new();
    for row in (0..rows).step_by(tr.max(1)) {
        for col in (0..cols).step_by(tc.max(1)) {
            out.push(Outline {
                row,
                col,
                rows: tr.min(rows - row),
                cols: tc.min(cols - col),
                weight,
            });
        }
    }
    out
}
