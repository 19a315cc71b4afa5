//! A shared-memory access (a pasted `local_alloc` / `local_store` /
//! `local_load`): a heatmap with one row per wavefront group of warp 0 (the
//! lanes one instruction serves together) and one column per bank, each
//! cell the distinct words that bank serves, so a conflict is a hot cell;
//! and the tensor with the owner and bank of every element, warp 0's
//! elements in their bank's colour.

use std::collections::{BTreeSet, HashMap};

use layout_algebra::bank::{Access, Trace, padded_offset, trace};
use layout_db::CountedCall;

use super::colour;
use super::distributed::Owners;
use super::grid::{Plane, Preimage, get, labels};
use super::shared::Banks;
use super::{Cell, MAX_SIDE, Panel, Picture, PictureError, Swatch};

/// The most wavefront groups the heatmap draws.
const MAX_GROUPS: usize = 2 * MAX_SIDE;

/// The picture of an access as counted (a pasted access, or what a
/// `wavefronts(...)` call counts); `summary` opens the notes.
pub fn picture(name: &str, a: &CountedCall, summary: String) -> Result<Picture, PictureError> {
    let padding = &a.padding;
    let access = Access {
        distributed: &a.counted.distributed,
        shared: &a.shared,
        element_bits: a.element_bits,
        instruction: a.counted.instruction,
        direction: a.direction,
    };
    let t = trace(&access, &a.counted.target, padding)
        .map_err(|e| PictureError::NotDrawable(format!("`{name}`: {e}")))?;
    let banks = Banks {
        banks: t.banks as u64,
        bank_bytes: a.counted.target.bank_bytes as u64,
    };
    let max = t
        .phases
        .iter()
        .map(|p| p.wavefronts(t.banks))
        .max()
        .unwrap_or(0);
    let mut notes = vec![
        summary,
        format!(
            "warp 0 issues {} instruction(s) in {} wavefront group(s): {} wavefronts, {} without conflicts",
            a.instructions,
            t.phases.len(),
            t.wavefronts(),
            t.phases.len()
        ),
    ];
    if t.phases.len() > MAX_GROUPS {
        notes.push(format!(
            "the heatmap shows the first {MAX_GROUPS} of {} wavefront groups",
            t.phases.len()
        ));
    }
    let elements = elements_panel(a, &t, banks, &mut notes)?;
    Ok(Picture {
        title: format!("{name}: the banks of a shared-memory access"),
        notes,
        panels: vec![heatmap(&t, max), elements],
        legend: vec![
            Swatch {
                fill: colour::IDLE,
                text: "bank not asked".into(),
            },
            Swatch {
                fill: colour::heat(1, max),
                text: "1 word: no conflict".into(),
            },
            Swatch {
                fill: colour::heat(2, max.max(2)),
                text: "2 words: 2 wavefronts".into(),
            },
            Swatch {
                fill: colour::heat(max.max(2), max.max(2)),
                text: format!("{} words (the worst here)", max.max(2)),
            },
        ],
        arrangement: super::Arrangement::Stacked,
    })
}

/// One row per wavefront group, one column per bank.
fn heatmap(t: &Trace, max: u64) -> Panel {
    let groups = &t.phases[..t.phases.len().min(MAX_GROUPS)];
    let mut cells = Vec::with_capacity(groups.len() * t.banks as usize);
    for p in groups {
        let per_bank = p.words_per_bank(t.banks);
        let group = format!(
            "instruction {}, phase {} ({} wavefront(s))",
            p.instruction,
            p.phase,
            p.wavefronts(t.banks)
        );
        for (bank, &words) in per_bank.iter().enumerate() {
            let lanes: BTreeSet<u32> = p
                .requests
                .iter()
                .filter(|r| r.words.iter().any(|w| w % t.banks as u64 == bank as u64))
                .map(|r| r.lane)
                .collect();
            let lanes: Vec<String> = lanes.iter().map(u32::to_string).collect();
            cells.push(Cell {
                lines: vec![if words == 0 {
                    String::new()
                } else {
                    words.to_string()
                }],
                fill: colour::heat(words, max),
                shaded: false,
                details: vec![
                    ("wavefront group", group.clone()),
                    ("bank", bank.to_string()),
                    ("words", words.to_string()),
                    ("lanes", lanes.join(", ")),
                ],
            });
        }
    }
    Panel {
        caption: "distinct words each bank serves per wavefront group of warp 0 (a group takes as many wavefronts as its busiest bank)".into(),
        row_axis: "wavefront group".into(),
        col_axis: "bank".into(),
        row_labels: groups
            .iter()
            .map(|p| format!("i{}.p{} x{}", p.instruction, p.phase, p.wavefronts(t.banks)))
            .collect(),
        col_labels: labels(t.banks as usize),
        cells,
        outlines: Vec::new(),
    }
}

/// The tensor: every element's owner and bank; warp 0's in colour.
fn elements_panel(
    a: &CountedCall,
    t: &Trace,
    banks: Banks,
    notes: &mut Vec<String>,
) -> Result<Panel, PictureError> {
    let dist = &a.counted.distributed;
    let shared = &a.shared;
    let plane = Plane::of_layout(dist);
    let owners = Owners::new(dist)?;
    let stored = Preimage::new(shared)?;
    let padding = &a.padding;
    // The wavefront group that moves each (padded) offset first.
    let mut group_of: HashMap<u64, usize> = HashMap::new();
    for (i, p) in t.phases.iter().enumerate() {
        for r in &p.requests {
            for e in 0..r.elements {
                group_of.entry(r.offset + e).or_insert(i);
            }
        }
    }
    let (rows, cols) = plane.window();
    let mut cells = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let coords = plane.coords(r, c);
            let mut details = vec![("coordinates", plane.coords_text(r, c))];
            let owner = owners.of(&coords);
            let offset = stored
                .of(&coords)
                .map(|ins| padded_offset(padding, get(&ins, "offset")));
            let mut lines = Vec::new();
            if let Some(o) = owner {
                lines.push(o.label());
                details.push(("owner", o.spelled()));
            }
            let mut fill = colour::SHADED;
            if let Some(off) = offset {
                let bank = banks.bank(off, a.element_bits);
                lines.push(format!("b{bank}"));
                details.push(("bank", bank.to_string()));
                details.push(("offset", off.to_string()));
                let warp0 = owner.is_some_and(|o| o.warp == 0 && o.block == 0);
                if warp0 {
                    fill = colour::bank(bank, banks.banks);
                    if let Some(&g) = group_of.get(&off) {
                        let p = &t.phases[g];
                        details.push((
                            "wavefront group",
                            format!("instruction {}, phase {}", p.instruction, p.phase),
                        ));
                    }
                }
            }
            if lines.is_empty() {
                lines.push("-".into());
            }
            cells.push(Cell {
                shaded: fill == colour::SHADED,
                lines,
                fill,
                details,
            });
        }
    }
    notes.extend(plane.note());
    if plane.is_zoomed() {
        let (r, c) = plane.window();
        notes.push(format!(
            "{} x {} elements: the element panel shows the top-left {r} x {c}",
            plane.rows, plane.cols
        ));
    }
    Ok(Panel {
        caption: "owner and bank of each element; warp 0's elements in their bank's colour".into(),
        row_axis: plane.row_axis.clone(),
        col_axis: plane.col_axis.clone(),
        row_labels: labels(rows),
        col_labels: labels(cols),
        cells,
        outlines: Vec::new(),
    })
}
