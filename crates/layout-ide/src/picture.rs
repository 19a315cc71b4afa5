//! The picture of one value, as plain data: panels of coloured, labelled
//! cells with outlines, a title, notes and a legend. `layoutc render`
//! writes it as SVG, PNG or HTML; an editor can draw the same model.
//!
//! What each kind of value looks like:
//! - a distributed layout ([`distributed`]): the element grid, each cell
//!   labelled `T<thread>:R<register>` (thread = lane + warp * warp size) and
//!   coloured by warp; the CTA tile (one pass of every lane and warp) and,
//!   in a cluster, each CTA's part outlined;
//! - a shared layout ([`shared`]): every element's offset and bank;
//! - a shared-memory access ([`access`]): a heatmap of the distinct words
//!   each bank serves in each wavefront group, and the elements warp 0
//!   moves, with their banks;
//! - an XLA shape ([`xla`]): the physical tile grid with padding shaded;
//! - a CuTe layout ([`cute`]): the offset table and, read as a
//!   thread-value layout, which thread and value land on each offset;
//! - a `solve` block: its answer (a shared layout or an XLA tiling).
//!
//! Large tensors stay readable: a panel draws at most [`MAX_SIDE`] rows and
//! columns (the top-left corner), and an overview panel shows the whole
//! tensor in blocks.

mod access;
mod colour;
mod cute;
mod distributed;
mod grid;
mod shared;
mod xla;

pub use colour::Rgb;

use layout_db::value::SolveKind;
use layout_db::{Database, SourceFile, TargetFacts, Value};

/// The most rows or columns one panel draws.
pub const MAX_SIDE: usize = 32;

/// A whole picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// The value's name and what it is.
    pub title: String,
    /// Facts in one line each (sizes, totals, what a zoomed panel leaves out).
    pub notes: Vec<String>,
    pub panels: Vec<Panel>,
    pub legend: Vec<Swatch>,
    /// How the panels sit: one under the other, or in a row (a tiled MMA's
    /// A, B and C tiles, as `print_latex` draws them).
    pub arrangement: Arrangement,
}

/// How a picture's panels are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arrangement {
    #[default]
    Stacked,
    SideBySide,
}

/// One colour of the legend and what it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swatch {
    pub fill: Rgb,
    pub text: String,
}

/// One grid of cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    pub caption: String,
    /// What the rows and columns count (`dim0`, `bank`, ...).
    pub row_axis: String,
    pub col_axis: String,
    /// The label of each drawn row and column (a zoomed panel starts
    /// wherever its window does).
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// Row-major, `row_labels.len() * col_labels.len()` cells.
    pub cells: Vec<Cell>,
    pub outlines: Vec<Outline>,
}

impl Panel {
    pub fn rows(&self) -> usize {
        self.row_labels.len()
    }

    pub fn cols(&self) -> usize {
        self.col_labels.len()
    }

    pub fn cell(&self, row: usize, col: usize) -> &Cell {
        &self.cells[row * self.cols() + col]
    }
}

/// One cell: its text, its colour, and what a hover tells about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// One or two short lines (`T3:R1`; `136` and `b2`).
    pub lines: Vec<String>,
    pub fill: Rgb,
    /// Padding, or an element nothing holds: drawn shaded.
    pub shaded: bool,
    /// What a hover shows, in order: `coordinates`, `owner`, `bank`, ...
    pub details: Vec<(&'static str, String)>,
}

impl Cell {
    /// The value of one detail, if the cell has it.
    pub fn detail(&self, key: &str) -> Option<&str> {
        self.details
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A rectangle of cells drawn around with a line (in drawn-cell units; it
/// may be cut off by the panel's edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outline {
    pub row: usize,
    pub col: usize,
    pub rows: usize,
    pub cols: usize,
    pub weight: Weight,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// A tile inside the tensor (CTA tile, XLA tile).
    Thin,
    /// A CTA's part of the tensor in a cluster.
    Thick,
}

/// Why a value has no picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PictureError {
    /// The file declares no such name; the names it does declare.
    NoSuchName { name: String, declared: Vec<String> },
    /// The declaration has errors (`layoutc check` tells which).
    HasErrors(String),
    /// A value of a kind that has no picture, or too large to draw.
    NotDrawable(String),
}

impl std::fmt::Display for PictureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PictureError::NoSuchName { name, declared } => {
                write!(f, "the file declares no `{name}`")?;
                if declared.is_empty() {
                    write!(f, " (it declares nothing)")
                } else {
                    write!(f, " (it declares {})", declared.join(", "))
                }
            }
            PictureError::HasErrors(name) => {
                write!(f, "`{name}` has errors; `layoutc check` shows them")
            }
            PictureError::NotDrawable(why) => write!(f, "{why}"),
        }
    }
}

/// The picture of the declaration `name` of `file` (`#name` finds an alias
/// too, as `layoutc show` does). A declaration whose value is a count of a
/// shared-memory access (`let w = wavefronts(...)`) draws that access. A
/// line number names the item on that line, named or not: a pasted
/// `ttg.local_store`, a `check bank_conflicts(...) == 0`.
pub fn picture(db: &Database, file: SourceFile, name: &str) -> Result<Picture, PictureError> {
    if let Ok(line) = name.parse::<usize>() {
        return picture_of_line(db, file, line);
    }
    let values = layout_db::named_values(db, file);
    let alias = format!("#{name}");
    let Some(nv) = values.iter().find(|v| v.name == name || v.name == alias) else {
        return Err(PictureError::NoSuchName {
            name: name.to_string(),
            declared: values.iter().map(|v| v.name.clone()).collect(),
        });
    };
    let Some(value) = &nv.value else {
        return Err(PictureError::HasErrors(nv.name.clone()));
    };
    if matches!(value, Value::Int(_) | Value::Bool(_))
        && let Some(at) = layout_db::item_at(db, file, nv.item_span.start)
        && let Some(p) = access_picture(db, at.item, &nv.name)
    {
        return p;
    }
    let target = layout_db::file_target(db, file);
    of_value(&nv.name, value, target)
}

/// The picture of the item on the 1-based `line`: its access, or its value.
fn picture_of_line(db: &Database, file: SourceFile, line: usize) -> Result<Picture, PictureError> {
    let text = file.text(db);
    let not_found =
        || PictureError::NotDrawable(format!("line {line} holds no declaration, access or check"));
    let start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1).ok_or_else(not_found)?)
        .map(str::len)
        .sum();
    let Some(rest) = text.get(start..).filter(|r| !r.is_empty()) else {
        return Err(PictureError::NotDrawable(format!(
            "line {line} is past the end of the file"
        )));
    };
    let indent = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let at = layout_db::item_at(db, file, start + indent).ok_or_else(not_found)?;
    let name = format!("line {line}");
    if let Some(p) = access_picture(db, at.item, &name) {
        return p;
    }
    match &layout_db::evaluate_item(db, at.item).value {
        Some(v) => of_value(&name, v, layout_db::file_target(db, file)),
        None => Err(PictureError::HasErrors(name)),
    }
}

/// The bank heatmap of the access an item counts (a pasted access, or a
/// `wavefronts`/`bank_conflicts`/`vectorisation` call in it).
fn access_picture(
    db: &Database,
    item: layout_db::SourceItem,
    name: &str,
) -> Option<Result<Picture, PictureError>> {
    let c = layout_db::access_in_item(db, item)?;
    let summary = match &layout_db::evaluate_item(db, item).value {
        Some(v @ Value::Access(_)) => v.to_string(),
        _ => format!(
            "a {} of {}-bit elements: {} x {}, {} wavefronts, {} conflicts",
            match c.direction {
                layout_algebra::bank::Direction::Load => "load",
                layout_algebra::bank::Direction::Store => "store",
            },
            c.element_bits,
            c.instructions,
            c.instruction,
            c.wavefronts,
            c.conflicts
        ),
    };
    Some(access::picture(name, &c, summary))
}

/// The picture of a value, named `name`, on the machine `target` describes.
pub fn of_value(name: &str, value: &Value, target: &TargetFacts) -> Result<Picture, PictureError> {
    match value {
        Value::Tensor(t) if t.layout.has_in_dim("lane") => {
            distributed::picture(name, &tensor_text(t), &t.layout)
        }
        Value::Tensor(t) if t.layout.has_in_dim("offset") => {
            shared::picture(name, &tensor_text(t), &stored(t), target)
        }
        Value::Linear(l) if l.has_in_dim("lane") => {
            distributed::picture(name, "a linear layout", l)
        }
        Value::Linear(l) if l.has_in_dim("offset") => shared::picture(
            name,
            "a linear layout (32-bit elements assumed)",
            &shared::Stored {
                layout: l,
                element_bits: 32,
                padding: &[],
            },
            target,
        ),
        Value::Access(a) => {
            access::picture(name, &layout_db::CountedCall::from(&**a), value.to_string())
        }
        Value::Xla(x) => xla::picture(name, x),
        Value::Cute(c) => cute::picture(name, &cute::Tabled::plain(c)),
        Value::Swizzled(s) => cute::picture(name, &cute::Tabled::swizzled(s)),
        Value::CuteAtom(o) => cute::tiled_picture(name, o),
        Value::Conversion(c) => {
            let mut src = distributed::picture(name, &tensor_text(&c.src), &c.src.layout)?;
            let dst = distributed::picture(name, &tensor_text(&c.dst), &c.dst.layout)?;
            src.title = format!("{name}: {}", value);
            for p in &mut src.panels {
                p.caption = format!("from {}: {}", tensor_text(&c.src), p.caption);
            }
            src.panels.extend(dst.panels.into_iter().map(|mut p| {
                p.caption = format!("to {}: {}", tensor_text(&c.dst), p.caption);
                p
            }));
            Ok(src)
        }
        Value::Solve(s) => {
            let mut p = match &s.kind {
                SolveKind::Swizzle(w) => match &w.answer {
                    Some(t) => shared::picture(name, &tensor_text(t), &stored(t), target)?,
                    None => return Err(not_drawable(name, "a solve block without an answer")),
                },
                SolveKind::Tiling(t) => match &t.answer {
                    Some(x) => xla::picture(name, x)?,
                    None => return Err(not_drawable(name, "a solve block without an answer")),
                },
            };
            p.title = format!("{name}: the answer of a solve block, {}", s.status.name());
            p.notes.insert(
                0,
                crate::present::solution_text(s)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .into(),
            );
            Ok(p)
        }
        Value::Tensor(_) | Value::Linear(_) => Err(not_drawable(
            name,
            "a linear layout that is neither distributed (register, lane, ...) nor shared (offset, ...)",
        )),
        other => Err(not_drawable(name, other.type_name())),
    }
}

fn not_drawable(name: &str, what: &str) -> PictureError {
    PictureError::NotDrawable(format!(
        "`{name}` is {what}; render draws distributed and shared layouts, shared-memory accesses (pasted local_alloc/local_store/local_load), conversions, XLA shapes, CuTe layouts and solve answers"
    ))
}

/// A shared tensor type as stored: its layout, element width and padding.
fn stored(t: &layout_db::value::TensorLayout) -> shared::Stored<'_> {
    shared::Stored {
        layout: &t.layout,
        // Triton stores sub-byte and boolean elements as bytes.
        element_bits: t.element_bits.unwrap_or(8).max(8),
        padding: t.encoding.padding(),
    }
}

/// `tensor<64x64xf16, #ttg.blocked<...>>`
fn tensor_text(t: &layout_db::value::TensorLayout) -> String {
    let shape: Vec<String> = t.shape.iter().map(u32::to_string).collect();
    format!(
        "tensor<{}x{}, {}>",
        shape.join("x"),
        t.element_type,
        t.encoding
    )
}

#[cfg(test)]
mod tests;
