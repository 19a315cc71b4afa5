//! A CuTe layout (seed 004): its offset table as `print_layout` draws it
//! (rows: mode 0, columns: the other modes, colexicographic), and, read as
//! a thread-value layout (mode 0 the thread, the rest the value), which
//! thread and value land on each offset, as `print_latex` of a TV layout.

use std::collections::HashMap;

use layout_algebra::cute::{Layout, SwizzledLayout};

use super::colour;
use super::grid::labels;
use super::{Cell, MAX_SIDE, Panel, Picture, PictureError};

/// Above this many elements the TV picture is left out.
const TV_LIMIT: i64 = 4096;

/// A CuTe layout, plain or swizzled, as a function of its index.
pub struct Tabled<'a> {
    text: String,
    size: i64,
    /// Size of mode 0 (the thread mode of a TV layout).
    rows: i64,
    call: Box<dyn Fn(i64) -> i64 + 'a>,
}

impl<'a> Tabled<'a> {
    pub fn plain(l: &'a Layout) -> Self {
        Tabled {
            text: l.to_string(),
            size: l.size(),
            rows: mode0(l),
            call: Box::new(|i| l.call(i)),
        }
    }

    pub fn swizzled(s: &'a SwizzledLayout) -> Self {
        Tabled {
            text: s.to_string(),
            size: s.layout.size(),
            rows: mode0(&s.layout),
            call: Box::new(|i| s.call(i)),
        }
    }
}

fn mode0(l: &Layout) -> i64 {
    if l.rank() == 0 {
        1
    } else {
        l.shape().mode(0).product().max(1)
    }
}

pub fn picture(name: &str, t: &Tabled) -> Result<Picture, PictureError> {
    let m = t.rows as usize;
    let n = (t.size / t.rows.max(1)).max(1) as usize;
    let (rows, cols) = (m.min(MAX_SIDE), n.min(MAX_SIDE));
    let mut cells = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let offset = (t.call)((i + m * j) as i64);
            cells.push(Cell {
                lines: vec![offset.to_string()],
                fill: colour::bank(offset.rem_euclid(32) as u64, 32),
                shaded: false,
                details: vec![
                    ("coordinates", format!("({i}, {j})")),
                    ("index", (i + m * j).to_string()),
                    ("offset", offset.to_string()),
                ],
            });
        }
    }
    let mut notes = vec![format!("cute {}: size {}", t.text, t.size)];
    if (rows, cols) != (m, n) {
        notes.push(format!(
            "{m} x {n} coordinates: the offset table shows the top-left {rows} x {cols}"
        ));
    }
    let mut panels = vec![Panel {
        caption: "offset of each coordinate (rows: mode 0, columns: the other modes), coloured by offset mod 32".into(),
        row_axis: "mode 0".into(),
        col_axis: "modes 1..".into(),
        row_labels: labels(rows),
        col_labels: labels(cols),
        cells,
        outlines: Vec::new(),
    }];
    match tv_panel(t, m) {
        Ok(p) => panels.push(p),
        Err(why) => notes.push(format!("no thread-value picture: {why}")),
    }
    Ok(Picture {
        title: format!("{name}: a CuTe layout"),
        notes,
        panels,
        legend: Vec::new(),
        arrangement: super::Arrangement::Stacked,
    })
}

/// Which (thread, value) lands on each offset, the offsets drawn
/// column-major in a square-ish grid (a power of two rows).
fn tv_panel(t: &Tabled, m: usize) -> Result<Panel, String> {
    if t.size > TV_LIMIT {
        return Err(format!("more than {TV_LIMIT} elements"));
    }
    let mut at: HashMap<i64, (usize, usize)> = HashMap::new();
    let mut cosize = 0;
    for idx in 0..t.size {
        let o = (t.call)(idx);
        if o < 0 {
            return Err("a negative offset".into());
        }
        cosize = cosize.max(o + 1);
        let tv = (idx as usize % m, idx as usize / m);
        if at.insert(o, tv).is_some() {
            return Err("two coordinates share an offset (not a thread-value layout)".into());
        }
    }
    let bits = (cosize as u64).next_power_of_two().trailing_zeros();
    let grid_rows = (1usize << bits.div_ceil(2)).max(1);
    let grid_cols = (cosize as usize).div_ceil(grid_rows);
    let (rows, cols) = (grid_rows.min(MAX_SIDE), grid_cols.min(MAX_SIDE));
    let mut cells = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let offset = (r + grid_rows * c) as i64;
            let owner = at.get(&offset).map(|&(t, v)| (t as i64, v as i64));
            cells.push(owner_cell(
                r,
                c,
                owner,
                vec![("offset", offset.to_string())],
                vec![],
            ));
        }
    }
    Ok(Panel {
        caption: format!(
            "read as a thread-value layout (mode 0: thread, the rest: value): who lands on each offset, offsets column-major in {grid_rows} rows, coloured by thread (mod 32)"
        ),
        row_axis: format!("offset mod {grid_rows}"),
        col_axis: format!("offset / {grid_rows}"),
        row_labels: labels(rows),
        col_labels: labels(cols),
        cells,
        outlines: Vec::new(),
    })
}

/// A tiled MMA (or an MMA atom) as `print_latex` draws it: the C tile (M x N),
/// A (M x K) and B (N x K), each element labelled with the thread and value
/// that hold it; a tiled copy: its source and destination tiles. Where
/// several threads hold an element (A is shared by the N threads), the
/// lowest-numbered one is drawn and the count is in the details.
pub fn tiled_picture(
    name: &str,
    object: &layout_db::value::CuteObject,
) -> Result<Picture, PictureError> {
    use layout_algebra::cute::tiled::{Operand, Side};
    use layout_db::value::CuteObject as O;
    let fail = |e: layout_algebra::LayoutError| PictureError::NotDrawable(format!("{name}: {e}"));
    let (what, panels): (String, Vec<(String, Layout, usize, usize)>) = match object {
        O::MmaAtom(a) => {
            let [m, n, k] = a.shape_mnk.map(|x| x as usize);
            (
                format!("MMA_Atom<{}>", a.name),
                vec![
                    ("C".into(), a.c.clone(), m, n),
                    ("A".into(), a.a.clone(), m, k),
                    ("B".into(), a.b.clone(), n, k),
                ],
            )
        }
        O::TiledMma(t) => {
            let [m, n, k] = [0, 1, 2].map(|i| t.tile_size(i) as usize);
            (
                format!("TiledMMA of {}", t.atom.name),
                vec![
                    ("C".into(), t.layout_tv(Operand::C).map_err(fail)?, m, n),
                    ("A".into(), t.layout_tv(Operand::A).map_err(fail)?, m, k),
                    ("B".into(), t.layout_tv(Operand::B).map_err(fail)?, n, k),
                ],
            )
        }
        O::TiledCopy(t) => {
            let (m, n) = match &t.tiler {
                layout_algebra::cute::IntTuple::Tuple(v) if v.len() >= 2 => (
                    v[0].product() as usize,
                    v[1..].iter().map(|x| x.product()).product::<i64>() as usize,
                ),
                other => (other.product() as usize, 1),
            };
            (
                format!("TiledCopy of {} ({})", t.atom.op, t.atom.value_type),
                vec![
                    (
                        "source".into(),
                        t.layout_side_tv(Side::Source).map_err(fail)?,
                        m,
                        n,
                    ),
                    (
                        "destination".into(),
                        t.layout_side_tv(Side::Destination).map_err(fail)?,
                        m,
                        n,
                    ),
                ],
            )
        }
        O::CopyAtom(a) => {
            return Err(PictureError::NotDrawable(format!(
                "{name} is a copy atom ({}): draw a tiled copy of it, e.g. tiled_copy(atom, cute (32,4):(4,1))",
                a.op
            )));
        }
    };
    let mut notes = vec![format!("{name}: {what}")];
    let mut drawn = Vec::new();
    for (label, tv, rows, cols) in panels {
        if rows * cols > TV_LIMIT as usize || tv.size() > 1 << 18 {
            notes.push(format!("{label}: {rows} x {cols} is too large to draw"));
            continue;
        }
        drawn.push(owner_panel(&label, &tv, rows, cols));
    }
    Ok(Picture {
        title: format!("{name}: {what}"),
        notes,
        panels: drawn,
        legend: Vec::new(),
        arrangement: super::Arrangement::SideBySide,
    })
}

/// Each element of a `rows x cols` tile (column-major index) labelled with
/// the lowest thread that holds it and that thread's value index.
fn owner_panel(label: &str, tv: &Layout, rows: usize, cols: usize) -> Panel {
    let owner = layout_algebra::cute::tiled::element_owners(tv);
    let (shown_rows, shown_cols) = (rows.min(MAX_SIDE), cols.min(MAX_SIDE));
    let mut cells = Vec::with_capacity(shown_rows * shown_cols);
    for r in 0..shown_rows {
        for c in 0..shown_cols {
            let index = (r + rows * c) as i64;
            let o = owner.get(&index);
            let held = o
                .map(|o| vec![("held by", format!("{} thread-value pair(s)", o.holders))])
                .unwrap_or_default();
            cells.push(owner_cell(
                r,
                c,
                o.map(|o| (o.thread, o.value)),
                vec![],
                held,
            ));
        }
    }
    Panel {
        caption: format!(
            "{label}: {rows} x {cols}, thread and value of each element (coloured by thread mod 32)"
        ),
        row_axis: "row".into(),
        col_axis: "column".into(),
        row_labels: labels(shown_rows),
        col_labels: labels(shown_cols),
        cells,
        outlines: Vec::new(),
    }
}

/// A cell labelled with the thread and value that land on it (`-`, shaded,
/// when none does), coloured by thread; `before` and `after` are details
/// around its owner.
fn owner_cell(
    r: usize,
    c: usize,
    owner: Option<(i64, i64)>,
    before: Vec<(&'static str, String)>,
    after: Vec<(&'static str, String)>,
) -> Cell {
    let mut details = vec![("coordinates", format!("({r}, {c})"))];
    details.extend(before);
    let cell = match owner {
        Some((t, v)) => {
            details.push(("owner", format!("thread {t}, value {v}")));
            Cell {
                lines: vec![format!("T{t}"), format!("V{v}")],
                fill: colour::bank(t.rem_euclid(32) as u64, 32),
                shaded: false,
                details: Vec::new(),
            }
        }
        None => {
            details.push(("owner", "no thread".into()));
            Cell {
                lines: vec!["-".into()],
                fill: colour::SHADED,
                shaded: true,
                details: Vec::new(),
            }
        }
    };
    details.extend(after);
    Cell { details, ..cell }
}
