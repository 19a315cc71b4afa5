//! What every grid picture needs: the plane of the tensor it draws, the
//! window of it that fits, who holds each element, and the overview of a
//! tensor too large for one panel.

use std::collections::HashMap;

use layout_algebra::{DimName, LinearLayout};

use super::{Cell, MAX_SIDE, Panel, PictureError};

/// The part of a tensor a picture draws: its last two dims as rows and
/// columns (a 1-D tensor is one row); leading dims are held at 0.
#[derive(Clone, Debug)]
pub struct Plane {
    pub rows: usize,
    pub cols: usize,
    pub row_axis: String,
    pub col_axis: String,
    rank: usize,
}

impl Plane {
    /// The plane of a tensor with these dims (names and sizes, major first).
    pub fn of(dims: &[(String, u64)]) -> Plane {
        match dims {
            [] => Plane {
                rows: 1,
                cols: 1,
                row_axis: String::new(),
                col_axis: String::new(),
                rank: 0,
            },
            [(name, size)] => Plane {
                rows: 1,
                cols: *size as usize,
                row_axis: String::new(),
                col_axis: name.clone(),
                rank: 1,
            },
            [.., (r, rs), (c, cs)] => Plane {
                rows: *rs as usize,
                cols: *cs as usize,
                row_axis: r.clone(),
                col_axis: c.clone(),
                rank: dims.len(),
            },
        }
    }

    /// Of a linear layout's out-dims.
    pub fn of_layout(l: &LinearLayout) -> Plane {
        let dims: Vec<(String, u64)> = l
            .out_dims()
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect();
        Plane::of(&dims)
    }

    /// A note when leading dims are not drawn.
    pub fn note(&self) -> Option<String> {
        (self.rank > 2).then(|| {
            format!(
                "the picture shows {} x {} with the {} leading dim(s) at 0",
                self.row_axis,
                self.col_axis,
                self.rank - 2
            )
        })
    }

    /// The full coordinates of cell (`row`, `col`).
    pub fn coords(&self, row: usize, col: usize) -> Vec<u64> {
        let mut c = vec![0u64; self.rank];
        match self.rank {
            0 => {}
            1 => c[0] = col as u64,
            n => {
                c[n - 2] = row as u64;
                c[n - 1] = col as u64;
            }
        }
        c
    }

    /// `(3, 5)` (leading zeros included).
    pub fn coords_text(&self, row: usize, col: usize) -> String {
        let c: Vec<String> = self.coords(row, col).iter().map(u64::to_string).collect();
        format!("({})", c.join(", "))
    }

    /// The drawn window: the top-left corner, at most [`MAX_SIDE`] a side.
    pub fn window(&self) -> (usize, usize) {
        (self.rows.min(MAX_SIDE), self.cols.min(MAX_SIDE))
    }

    pub fn is_zoomed(&self) -> bool {
        self.window() != (self.rows, self.cols)
    }

    /// Says what a zoomed panel shows.
    pub fn zoom_note(&self) -> Option<String> {
        let (r, c) = self.window();
        self.is_zoomed().then(|| {
            format!(
                "{} x {} elements: the detailed panel shows the top-left {r} x {c}, the overview all of it in blocks",
                self.rows, self.cols
            )
        })
    }
}

/// Row and column labels `0..n`.
pub fn labels(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

/// One input of a layout that reaches each output: the smallest (Triton's
/// `pseudoinvert`), or for a layout that is not surjective the first found
/// by walking its inputs.
pub struct Preimage<'a> {
    layout: &'a LinearLayout,
    outs: Vec<DimName>,
    how: How,
}

enum How {
    Inverse(LinearLayout),
    Table(HashMap<u64, u64>),
}

/// Walking more inputs than this would take too long for a picture.
const MAX_WALK_BITS: u32 = 22;

impl<'a> Preimage<'a> {
    pub fn new(layout: &'a LinearLayout) -> Result<Self, PictureError> {
        let outs = layout.out_dim_names().cloned().collect();
        if layout.is_surjective()
            && let Ok(inverse) = layout.pseudoinvert()
        {
            return Ok(Preimage {
                layout,
                outs,
                how: How::Inverse(inverse),
            });
        }
        if layout.total_in_bits() > MAX_WALK_BITS {
            return Err(PictureError::NotDrawable(format!(
                "the layout has 2^{} inputs and does not reach every element: too many to walk for a picture",
                layout.total_in_bits()
            )));
        }
        let mut table = HashMap::new();
        for input in 0..layout.total_in_size() {
            table.entry(layout.apply_flat(input)).or_insert(input);
        }
        Ok(Preimage {
            layout,
            outs,
            how: How::Table(table),
        })
    }

    /// The in-dim values of an input that reaches `coords`, by name, or
    /// `None` when no input does.
    pub fn of(&self, coords: &[u64]) -> Option<Vec<(DimName, u64)>> {
        let named: Vec<(&str, u64)> = self
            .outs
            .iter()
            .map(DimName::as_str)
            .zip(coords.iter().copied())
            .collect();
        let ins: Vec<(DimName, u64)> = match &self.how {
            How::Inverse(inv) => inv
                .apply(&named)
                .ok()?
                .into_iter()
                .map(|(n, v)| (n, v as u64))
                .collect(),
            How::Table(table) => {
                let mut word = 0u64;
                let mut at = 0;
                for ((_, size), &c) in self.layout.out_dims().iter().zip(coords) {
                    word |= c << at;
                    at += size.trailing_zeros();
                }
                let mut flat = *table.get(&word)?;
                self.layout
                    .in_dims()
                    .into_iter()
                    .map(|(n, size)| {
                        let v = flat & (size - 1);
                        flat >>= size.trailing_zeros();
                        (n, v)
                    })
                    .collect()
            }
        };
        // Check the answer: an inverse of a layout that is not onto could
        // name an input that lands elsewhere.
        let args: Vec<(&str, u64)> = ins.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let back = self.layout.apply(&args).ok()?;
        let same = back.iter().zip(coords).all(|((_, b), &c)| *b as u64 == c);
        same.then_some(ins)
    }
}

/// The value of one in-dim of a preimage (0 when the layout lacks it).
pub fn get(ins: &[(DimName, u64)], name: &str) -> u64 {
    ins.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v)
}

/// An overview of a `rows` x `cols` plane in at most [`MAX_SIDE`] blocks a
/// side: the block size (rows, cols) and the number of blocks.
pub fn overview_blocks(rows: usize, cols: usize) -> ((usize, usize), (usize, usize)) {
    let block = |n: usize| n.div_ceil(MAX_SIDE).max(1);
    let (br, bc) = (block(rows), block(cols));
    ((br, bc), (rows.div_ceil(br), cols.div_ceil(bc)))
}

/// The whole plane in blocks of at most [`MAX_SIDE`] a side; `first`
/// draws a block from the element at its top-left corner.
pub fn overview(plane: &Plane, what: &str, first: impl Fn(usize, usize) -> Cell) -> Panel {
    let ((br, bc), (nr, nc)) = overview_blocks(plane.rows, plane.cols);
    let mut cells = Vec::with_capacity(nr * nc);
    for i in 0..nr {
        for j in 0..nc {
            let (r, c) = (i * br, j * bc);
            let mut cell = first(r, c);
            let span = format!(
                "rows {r}-{}, columns {c}-{}",
                (r + br).min(plane.rows) - 1,
                (c + bc).min(plane.cols) - 1
            );
            cell.details.insert(0, ("elements", span));
            cells.push(cell);
        }
    }
    Panel {
        caption: format!("overview: each cell is a {br} x {bc} block, {what}"),
        row_axis: format!("{} (step {br})", plane.row_axis),
        col_axis: format!("{} (step {bc})", plane.col_axis),
        row_labels: (0..nr).map(|i| (i * br).to_string()).collect(),
        col_labels: (0..nc).map(|j| (j * bc).to_string()).collect(),
        cells,
        outlines: Vec::new(),
    }
}
