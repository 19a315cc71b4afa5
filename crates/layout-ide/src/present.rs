//! The presentation of values, shared by `layoutc show` and hovers: the
//! in/out dims and bases of a linear layout, who owns each element (a grid
//! truncated to a few rows and columns), CuTe tables and XLA offsets.

use layout_algebra::LinearLayout;
use layout_algebra::interop::{CuteInDims, cute_to_linear, swizzled_to_linear, xla_to_linear};
use layout_db::Value;
use layout_db::value::{SolveKind, SolveOutcome};

/// Above this many elements, tables and offsets are left out (CONTRACT §3).
pub const TABLE_LIMIT: i64 = 4096;

/// How much of a grid to draw: the first and last rows and columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub rows: usize,
    pub cols: usize,
    /// The ownership grid before the bases: in a hover the grid is what
    /// one came for, and what comes last is below the fold.
    pub grid_first: bool,
}

impl Limits {
    /// `layoutc show`: a terminal's worth.
    pub const SHOW: Limits = Limits {
        rows: 32,
        cols: 16,
        grid_first: false,
    };
    /// A hover: small enough to read without scrolling.
    pub const HOVER: Limits = Limits {
        rows: 16,
        cols: 8,
        grid_first: true,
    };
}

/// The exact linear form of a CuTe or XLA value, when it has one.
pub fn linear_of(v: &Value) -> Option<LinearLayout> {
    match v {
        Value::Linear(l) => Some((**l).clone()),
        // A padded layout's offsets are not linear in the element.
        Value::Tensor(t) if !t.encoding.padding().is_empty() => None,
        Value::Tensor(t) => Some(t.layout.clone()),
        Value::Cute(c) => cute_to_linear(c, &CuteInDims::Flat("index".into())).ok(),
        Value::Swizzled(s) => swizzled_to_linear(s, &CuteInDims::Flat("index".into())).ok(),
        Value::Xla(x) => xla_to_linear(x).ok(),
        _ => None,
    }
}

pub fn value_text(v: &Value, limits: Limits) -> String {
    let mut out = String::new();
    match v {
        Value::Tensor(t) => {
            out += &format!(
                "  tensor<{}x{}, {}>\n",
                t.shape
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                t.element_type,
                t.encoding
            );
            let padding = t.encoding.padding();
            if !padding.is_empty() {
                out += &format!(
                    "  padding: {} (the offsets below include it)\n",
                    padding
                        .iter()
                        .map(|(i, p)| format!("{i}:+{p}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            out += &linear_text(&t.layout, padding, limits);
        }
        Value::Linear(l) => out += &linear_text(l, &[], limits),
        Value::Cute(c) => {
            out += &format!("  {c}  (size {}, cosize {})\n", c.size(), c.cosize());
            out += &cute_grid(
                limits,
                c.rank(),
                &|i, j| {
                    c.at(&layout_algebra::cute::IntTuple::Tuple(vec![
                        layout_algebra::cute::IntTuple::Int(i),
                        layout_algebra::cute::IntTuple::Int(j),
                    ]))
                    .ok()
                },
                c.shape(),
                c.size(),
                &|i| c.call(i),
            );
        }
        Value::Swizzled(s) => {
            out += &format!("  {s}\n");
            let l = &s.layout;
            out += &cute_grid(
                limits,
                l.rank(),
                &|i, j| {
                    l.at(&layout_algebra::cute::IntTuple::Tuple(vec![
                        layout_algebra::cute::IntTuple::Int(i),
                        layout_algebra::cute::IntTuple::Int(j),
                    ]))
                    .ok()
                    .map(|o| s.swizzle.apply(s.offset + o))
                },
                l.shape(),
                l.size(),
                &|i| s.call(i),
            );
        }
        Value::Xla(x) => {
            out += &format!(
                "  {x}: {} elements, {} with padding ({} bytes)\n",
                x.logical_elements(),
                x.padded_elements(),
                x.padded_bytes()
            );
            if x.dims.len() == 2 && x.logical_elements() <= TABLE_LIMIT {
                let offsets = x.offsets();
                let cols = x.dims[1] as usize;
                out += "  physical offset of each element (row-major):\n";
                out += &grid(limits, x.dims[0] as usize, cols, &|i, j| {
                    Some(offsets[i * cols + j].to_string())
                });
            } else if x.logical_elements() <= 64 {
                out += &format!("  offsets: {:?}\n", x.offsets());
            }
        }
        Value::Conversion(c) => {
            out += &format!("  {c}\n", c = v);
            if let Some(l) = &c.swizzle {
                out += "  scratch buffer (-> tensor):\n";
                out += &linear_text(l, &[], limits);
            }
        }
        Value::Solve(s) => {
            out += &format!("  {}", solution_text(s));
            if let SolveKind::Swizzle(w) = &s.kind
                && let Some(answer) = &w.answer
            {
                out += "  the shared layout (offset -> tensor):\n";
                out += &linear_text(&answer.layout, &[], limits);
            }
        }
        Value::CuteAtom(o) => {
            out += &cute_object_text(o);
            out += &cute_object_grid(o, limits);
        }
        other => out += &format!("  {other}\n"),
    }
    out
}

/// The C tile of an MMA (the source tile of a copy) as `print_latex` labels
/// it: the lowest thread holding each element and its value, `T5:V2`.
fn cute_object_grid(o: &layout_db::value::CuteObject, limits: Limits) -> String {
    use layout_algebra::cute::IntTuple;
    use layout_algebra::cute::tiled::{Operand, Side};
    use layout_db::value::CuteObject as O;
    let (what, tv, rows, cols) = match o {
        O::MmaAtom(a) => ("C", Ok(a.c.clone()), a.shape_mnk[0], a.shape_mnk[1]),
        O::TiledMma(t) => ("C", t.layout_tv(Operand::C), t.tile_size(0), t.tile_size(1)),
        O::TiledCopy(t) => {
            let (m, n) = match &t.tiler {
                IntTuple::Tuple(v) if v.len() >= 2 => (
                    v[0].product(),
                    v[1..].iter().map(IntTuple::product).product(),
                ),
                other => (other.product(), 1),
            };
            ("source", t.layout_side_tv(Side::Source), m, n)
        }
        O::CopyAtom(_) => return String::new(),
    };
    // Every (thread, value) pair is walked: not for huge tiled objects.
    let Some(tv) = tv.ok().filter(|tv| tv.size() <= 1 << 18) else {
        return String::new();
    };
    let owner = layout_algebra::cute::tiled::element_owners(&tv);
    let mut out = format!("  {what} tile {rows}x{cols}: thread and value of each element\n");
    out += &grid(limits, rows as usize, cols as usize, &|i, j| {
        owner
            .get(&((i + rows as usize * j) as i64))
            .map(|o| format!("T{}:V{}", o.thread, o.value))
    });
    out
}

/// An atom, tiled MMA or tiled copy: what it is and its parts, each as
/// `cute::print` prints it.
fn cute_object_text(o: &layout_db::value::CuteObject) -> String {
    use layout_algebra::cute::tiled::{Operand, Side};
    use layout_db::value::CuteObject as O;
    let shown = |r: layout_algebra::Result<layout_algebra::cute::Layout>| match r {
        Ok(l) => l.to_string(),
        Err(e) => format!("error: {e}"),
    };
    let mut out = format!("  {o}\n");
    let parts: Vec<(&str, String)> = match o {
        O::MmaAtom(a) => vec![
            ("ThrID", a.thr_id.to_string()),
            ("LayoutA_TV", a.a.to_string()),
            ("LayoutB_TV", a.b.to_string()),
            ("LayoutC_TV", a.c.to_string()),
        ],
        O::CopyAtom(a) => vec![
            ("ThrID", a.thr_id.to_string()),
            ("ValLayoutSrc", a.val_src.to_string()),
            ("ValLayoutDst", a.val_dst.to_string()),
            ("ValLayoutRef", a.val_ref.to_string()),
        ],
        O::TiledMma(t) => vec![
            ("ThrLayoutVMNK", t.thr_layout_vmnk.to_string()),
            ("LayoutA_TV", shown(t.layout_tv(Operand::A))),
            ("LayoutB_TV", shown(t.layout_tv(Operand::B))),
            ("LayoutC_TV", shown(t.layout_tv(Operand::C))),
        ],
        O::TiledCopy(t) => vec![
            ("Tiler_MN", t.tiler.to_string()),
            ("TiledLayout_TV", t.layout_tv.to_string()),
            ("LayoutS_TV", shown(t.layout_side_tv(Side::Source))),
            ("LayoutD_TV", shown(t.layout_side_tv(Side::Destination))),
        ],
    };
    for (k, v) in parts {
        out += &format!("  {k}: {v}\n");
    }
    out
}

/// The answer in words a kernel engineer follows.
pub fn solution_text(s: &SolveOutcome) -> String {
    let mut out = String::new();
    match &s.kind {
        SolveKind::Swizzle(w) => {
            out += &format!(
                "swizzle in the {} family on {}, {}\n",
                w.family.name(),
                w.machine,
                s.status.name()
            );
            if w.answer.is_some() {
                let own = w.notations.iter().find(|(k, _)| k == w.family.name());
                let mut rest: Vec<&(String, String)> = w.notations.iter().collect();
                if let Some(first) = own {
                    out += &format!("  answer: {}\n", first.1);
                    rest.retain(|n| n.0 != first.0);
                }
                for (k, v) in rest {
                    out += &format!("  as {k}: {v}\n");
                }
                for a in &w.accesses {
                    out += &format!(
                        "  {}: {} x {}, {} wavefronts ({} without conflicts), {} conflicts\n",
                        a.label, a.instructions, a.opcode, a.wavefronts, a.ideal, a.conflicts
                    );
                }
                out += &format!(
                    "  total: {} write + {} read wavefronts per warp, {} bytes of shared memory\n",
                    w.write_wavefronts, w.read_wavefronts, w.scratch_bytes
                );
            }
            if let Some((write, read)) = w.lower_bound {
                out += &format!("  lower bound: {write} write + {read} read wavefronts\n");
            }
            if let Some((write, read)) = w.baseline {
                out += &format!("  Triton's own swizzle: {write} write + {read} read wavefronts\n");
                // Triton uses ldmatrix/stmatrix where it can; an answer held
                // to plain vectors can cost more than Triton's own layout.
                if w.answer.is_some()
                    && write + read < w.write_wavefronts + w.read_wavefronts
                    && w.instructions == layout_solve::InstructionPolicy::Vector
                {
                    out += "  note: Triton's own layout costs less with the instructions Triton emits for it (ldmatrix/stmatrix); `instructions = best` lets the answer use them too\n";
                }
            }
        }
        SolveKind::Tiling(t) => {
            out += &format!("XLA tiling, {}\n", s.status.name());
            if let Some(x) = &t.answer {
                out += &format!(
                    "  answer: {x}\n  padding: {} elements, {} bytes in all\n",
                    x.padded_elements(),
                    x.padded_bytes()
                );
            }
        }
    }
    // The time is the caller's to add: it changes from run to run.
    out += &format!("  why: {}\n", s.why);
    out
}

/// In/out dims, the bases table and, for 1- and 2-D tensors, who owns each
/// element (distributed) or where it is stored (shared).
/// The offset of every element (row-major) of a padded shared layout, one
/// CTA's (block 0).
pub fn padded_offsets(l: &LinearLayout, shape: &[u32], padding: &[(u32, u32)]) -> Vec<u64> {
    let n: u64 = shape.iter().map(|&d| d as u64).product();
    let mut offsets = vec![0u64; n as usize];
    for o in 0..l.in_dim_size("offset") {
        let inputs: Vec<(&str, u64)> = l
            .in_dim_names()
            .map(|d| (d.as_str(), if d.as_str() == "offset" { o } else { 0 }))
            .collect();
        let Ok(coords) = l.apply(&inputs) else {
            continue;
        };
        let index = coords
            .iter()
            .zip(shape)
            .fold(0u64, |acc, ((_, c), &d)| acc * d as u64 + *c as u64);
        if let Some(slot) = offsets.get_mut(index as usize) {
            *slot = layout_algebra::bank::padded_offset(padding, o);
        }
    }
    offsets
}

pub fn linear_text(l: &LinearLayout, padding: &[(u32, u32)], limits: Limits) -> String {
    let mut out = String::from("  in-dims:  ");
    out += &l
        .in_dims()
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    out += "\n  out-dims: ";
    out += &l
        .out_dims()
        .iter()
        .map(|(n, s)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    out += "\n";
    let mut bases = String::from("  bases:\n");
    for (name, dim) in l.bases() {
        for (i, b) in dim.iter().enumerate() {
            bases += &format!(
                "    {:>8} {:>6} -> ({})\n",
                if i == 0 { name.as_str() } else { "" },
                1u64 << i,
                b.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            );
        }
    }
    let grid = owner_grid(l, padding, limits).unwrap_or_default();
    if limits.grid_first {
        out + &grid + &bases
    } else {
        out + &bases + &grid
    }
}

/// Who owns each element (a distributed layout), each element's offset
/// (a shared one), or the input of each output: for layouts of one or two
/// out-dims small enough to draw.
fn owner_grid(l: &LinearLayout, padding: &[(u32, u32)], limits: Limits) -> Option<String> {
    let outs = l.out_dims();
    if l.total_in_bits() > 20 || outs.is_empty() || outs.len() > 2 {
        return None;
    }
    let (rows, cols) = match outs.as_slice() {
        [(_, c)] => (1usize, *c as usize),
        [(_, r), (_, c)] => (*r as usize, *c as usize),
        _ => return None,
    };
    let ins = l.in_dims();
    let distributed = l.has_in_dim("lane");
    let shared = l.has_in_dim("offset");
    if !distributed && !shared && ins.len() != 1 {
        return None;
    }
    let mut cells: Vec<Option<String>> = vec![None; rows * cols];
    let lane_size = if distributed {
        l.in_dim_size("lane")
    } else {
        1
    };
    for input in 0..l.total_in_size() {
        let coords = unpack_input(&ins, input);
        let o = l.apply_flat(input);
        let outv = l.unpack(o);
        let (r, c) = if outv.len() == 1 {
            (0, outv[0] as usize)
        } else {
            (outv[0] as usize, outv[1] as usize)
        };
        let cell = &mut cells[r * cols + c];
        if cell.is_some() {
            continue; // broadcast: the first owner is shown
        }
        let get = |n: &str| coords.iter().find(|(d, _)| d == n).map_or(0, |(_, v)| *v);
        *cell = Some(if distributed {
            let thread = get("lane") + get("warp") * lane_size;
            let block = get("block");
            if block > 0 {
                format!("B{block}T{thread}:{}", get("register"))
            } else {
                format!("T{thread}:{}", get("register"))
            }
        } else if shared {
            let block = get("block");
            let offset = layout_algebra::bank::padded_offset(padding, get("offset"));
            if block > 0 {
                format!("{block}:{offset}")
            } else {
                offset.to_string()
            }
        } else {
            coords[0].1.to_string()
        });
    }
    let title = if distributed {
        "  owner of each element (thread:register):\n"
    } else if shared {
        "  shared-memory offset of each element:\n"
    } else {
        "  input of each output:\n"
    };
    Some(title.to_string() + &grid(limits, rows, cols, &|i, j| cells[i * cols + j].clone()))
}

/// CuTe's print_layout style for rank-2 layouts, a list otherwise.
fn cute_grid(
    limits: Limits,
    rank: usize,
    at: &dyn Fn(i64, i64) -> Option<i64>,
    shape: &layout_algebra::cute::IntTuple,
    size: i64,
    call: &dyn Fn(i64) -> i64,
) -> String {
    if rank == 2 && size <= TABLE_LIMIT {
        let rows = shape.mode(0).product() as usize;
        let cols = shape.mode(1).product() as usize;
        return grid(limits, rows, cols, &|i, j| {
            at(i as i64, j as i64).map(|v| v.to_string())
        });
    }
    if size <= 64 {
        return format!("  table: {:?}\n", (0..size).map(call).collect::<Vec<_>>());
    }
    String::new()
}

/// A table of at most `limits` rows and columns; the rest is elided.
fn grid(
    limits: Limits,
    rows: usize,
    cols: usize,
    cell: &dyn Fn(usize, usize) -> Option<String>,
) -> String {
    let show_rows: Vec<usize> = elide(rows, limits.rows);
    let show_cols: Vec<usize> = elide(cols, limits.cols);
    let text = |i: usize, j: usize| cell(i, j).unwrap_or_else(|| "-".into());
    let width = show_rows
        .iter()
        .flat_map(|&i| show_cols.iter().map(move |&j| (i, j)))
        .filter(|&(i, j)| i != usize::MAX && j != usize::MAX)
        .map(|(i, j)| text(i, j).len())
        .max()
        .unwrap_or(1)
        .max(3);
    let row_label = rows.to_string().len().max(1);
    let mut out = format!("  {:>row_label$} |", "");
    for &j in &show_cols {
        if j == usize::MAX {
            out += &format!(" {:>width$}", "..");
        } else {
            out += &format!(" {j:>width$}");
        }
    }
    out += "\n";
    for &i in &show_rows {
        if i == usize::MAX {
            out += &format!("  {:>row_label$} |\n", "..");
            continue;
        }
        out += &format!("  {i:>row_label$} |");
        for &j in &show_cols {
            if j == usize::MAX {
                out += &format!(" {:>width$}", "..");
            } else {
                out += &format!(" {:>width$}", text(i, j));
            }
        }
        out += "\n";
    }
    out
}

/// The first and last indices of a long range, with a marker between.
fn elide(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let half = max / 2;
    (0..half)
        .chain(std::iter::once(usize::MAX))
        .chain(n - half..n)
        .collect()
}

/// A flat input (in-dims concatenated, first in-dim in the low bits) as
/// per-dim coordinates.
fn unpack_input(ins: &[(layout_algebra::DimName, u64)], mut input: u64) -> Vec<(String, u64)> {
    ins.iter()
        .map(|(n, size)| {
            let bits = size.trailing_zeros();
            let v = input & ((1u64 << bits) - 1);
            input >>= bits;
            (n.to_string(), v)
        })
        .collect()
}

/// Facts about a linear layout in one line each: sizes, injectivity,
/// surjectivity.
pub fn linear_facts(l: &LinearLayout) -> String {
    let dims = |ds: Vec<(layout_algebra::DimName, u64)>| {
        ds.iter()
            .map(|(n, s)| format!("{n} {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let yes = |b: bool| if b { "yes" } else { "no" };
    format!(
        "{} -> {}\n\ninjective: {}, surjective: {}",
        dims(l.in_dims()),
        dims(l.out_dims()),
        yes(l.is_injective()),
        yes(l.is_surjective())
    )
}

/// A distributed layout (`register`, `lane`, `warp`, `block` ->
/// `dim0..`) as Triton's `#ttg.linear` attribute, which states it exactly
/// for the same tensor shape.
pub fn ttg_linear_text(l: &LinearLayout) -> Option<String> {
    const INS: [&str; 4] = ["register", "lane", "warp", "block"];
    if !l.in_dim_names().all(|d| INS.contains(&d.as_str())) {
        return None;
    }
    let outs_in_order = l
        .out_dim_names()
        .enumerate()
        .all(|(i, d)| d.as_str() == format!("dim{i}"));
    if !outs_in_order || !l.has_in_dim("lane") {
        return None;
    }
    let bases = l.bases();
    let entries: Vec<String> = INS
        .iter()
        .map(|dim| {
            let list = bases
                .iter()
                .find(|(n, _)| n.as_str() == *dim)
                .map(|(_, b)| {
                    b.iter()
                        .map(|v| {
                            format!(
                                "[{}]",
                                v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            format!("{dim} = [{list}]")
        })
        .collect();
    Some(format!("#ttg.linear<{{{}}}>", entries.join(", ")))
}

/// The same value in the other notations that state it exactly.
pub fn other_notations(v: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    match v {
        Value::Tensor(t) if t.encoding.padding().is_empty() => {
            if let Some(text) = ttg_linear_text(&t.layout) {
                out.push(("Triton linear", text));
            }
        }
        Value::Linear(l) => {
            if let Some(text) = ttg_linear_text(l) {
                out.push(("Triton linear", text));
            }
            if let Ok(c) = layout_algebra::interop::linear_to_cute(l) {
                out.push(("CuTe", format!("cute {c}")));
            }
        }
        Value::Cute(_) | Value::Swizzled(_) | Value::Xla(_) => {
            if let Some(l) = linear_of(v) {
                out.push(("linear", layout_db::value::linear_literal(&l)));
            }
        }
        _ => {}
    }
    out
}
