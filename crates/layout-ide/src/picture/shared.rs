//! A shared layout (`offset`, `block` -> tensor): where each element is
//! stored. A cell reads its offset (in elements, padding included) and its
//! bank, and takes its bank's colour, so a column of one colour is a
//! column that one bank serves.

use layout_algebra::LinearLayout;
use layout_algebra::bank::padded_offset;
use layout_db::TargetFacts;

use super::colour;
use super::grid::{self, Plane, Preimage, get, labels};
use super::{Cell, Panel, Picture, PictureError, Swatch};

/// What a shared picture needs of the value.
pub struct Stored<'a> {
    pub layout: &'a LinearLayout,
    pub element_bits: u32,
    /// Triton's `padded_shared` intervals (`[interval:+pad]`).
    pub padding: &'a [(u32, u32)],
}

/// The banks of a machine: `banks` banks of `bank_bytes` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Banks {
    pub banks: u64,
    pub bank_bytes: u64,
}

impl Banks {
    pub fn of(target: &TargetFacts) -> Banks {
        let t = target.bank_target();
        Banks {
            banks: t.banks as u64,
            bank_bytes: t.bank_bytes as u64,
        }
    }

    /// The word holding the first byte of element `offset`.
    pub fn word(&self, offset: u64, element_bits: u32) -> u64 {
        offset * element_bits as u64 / 8 / self.bank_bytes
    }

    pub fn bank(&self, offset: u64, element_bits: u32) -> u64 {
        self.word(offset, element_bits) % self.banks
    }
}

pub fn picture(
    name: &str,
    what: &str,
    stored: &Stored,
    target: &TargetFacts,
) -> Result<Picture, PictureError> {
    let banks = Banks::of(target);
    let plane = Plane::of_layout(stored.layout);
    let pre = Preimage::new(stored.layout)?;
    let cell = |r: usize, c: usize| element_cell(&plane, &pre, stored, banks, r, c);
    let (rows, cols) = plane.window();
    let mut cells = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            cells.push(cell(r, c));
        }
    }
    let mut panels = vec![Panel {
        caption: format!(
            "offset (elements) and bank of each element, coloured by bank ({} banks of {} bytes, {}-bit elements)",
            banks.banks, banks.bank_bytes, stored.element_bits
        ),
        row_axis: plane.row_axis.clone(),
        col_axis: plane.col_axis.clone(),
        row_labels: labels(rows),
        col_labels: labels(cols),
        cells,
        outlines: Vec::new(),
    }];
    if plane.is_zoomed() {
        panels.push(grid::overview(
            &plane,
            "with the offset and bank of its first element",
            cell,
        ));
    }
    let mut notes = vec![what.to_string()];
    if !stored.padding.is_empty() {
        let pads: Vec<String> = stored
            .padding
            .iter()
            .map(|(i, p)| format!("{p} after every {i}"))
            .collect();
        notes.push(format!(
            "padding: {} elements (the offsets include it)",
            pads.join(", ")
        ));
    }
    notes.extend(plane.note());
    notes.extend(plane.zoom_note());
    Ok(Picture {
        title: format!("{name}: where each element is stored"),
        notes,
        panels,
        legend: (0..banks.banks.min(64))
            .map(|b| Swatch {
                fill: colour::bank(b, banks.banks),
                text: format!("bank {b}"),
            })
            .collect(),
        arrangement: super::Arrangement::Stacked,
    })
}

fn element_cell(
    plane: &Plane,
    pre: &Preimage,
    stored: &Stored,
    banks: Banks,
    r: usize,
    c: usize,
) -> Cell {
    let at = ("coordinates", plane.coords_text(r, c));
    let Some(ins) = pre.of(&plane.coords(r, c)) else {
        return Cell {
            lines: vec!["-".into()],
            fill: colour::SHADED,
            shaded: true,
            details: vec![at, ("offset", "not stored".into())],
        };
    };
    let offset = padded_offset(stored.padding, get(&ins, "offset"));
    let block = get(&ins, "block");
    let bank = banks.bank(offset, stored.element_bits);
    let mut details = vec![
        at,
        ("offset", offset.to_string()),
        ("bank", bank.to_string()),
        ("word", banks.word(offset, stored.element_bits).to_string()),
    ];
    if block > 0 {
        details.push(("cta", block.to_string()));
    }
    Cell {
        lines: vec![
            if block > 0 {
                format!("C{block}.{offset}")
            } else {
                offset.to_string()
            },
            format!("b{bank}"),
        ],
        fill: colour::bank(bank, banks.banks),
        shaded: false,
        details,
    }
}
