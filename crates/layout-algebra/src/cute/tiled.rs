//! `TiledMMA` and `TiledCopy` (CuTe's `mma_atom.hpp` and `copy_atom.hpp`):
//! an atom repeated over threads and values, and the thread-value layouts
//! that say which thread holds which element of a tile. Every layout here is
//! computed with the algebra's own operations, in the order the C++ headers
//! compute them, so the printed results are C++'s.

use super::atom::{CopyAtom, MmaAtom};
use super::{Int, IntTuple, Layout, Tiler, Tuple};
use crate::error::{LayoutError, Result};

/// `make_tiled_mma(atom, atom_layout, permutation)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledMma {
    pub atom: MmaAtom,
    /// The atom layout as given (rank 3, `(M,N,K)` atoms -> thread group).
    pub atom_layout: Layout,
    /// One permutation tile per mode of `(M,N,K)`; `_` where none is given.
    pub permutation: [Tiler; 3],
    /// `tiled_product(ThrID, atom_layout)`: `(V,M,N,K) -> thread index`.
    pub thr_layout_vmnk: Layout,
}

/// Which operand of an MMA a layout belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    A,
    B,
    C,
}

impl TiledMma {
    pub fn new(atom: MmaAtom, atom_layout: Layout, permutation: Option<Tiler>) -> Result<TiledMma> {
        let atom_layout = match atom_layout.rank() {
            1 | 2 => {
                // make_tiled_mma appends `1:0` modes up to rank 3.
                let mut modes = if atom_layout.rank() == 1 && !matches!(atom_layout.shape, Tuple(_))
                {
                    vec![atom_layout.clone()]
                } else {
                    atom_layout.modes()
                };
                modes.resize(3, Layout::leaf(1, 0));
                Layout::concat(modes)
            }
            3 => atom_layout,
            r => {
                return Err(LayoutError::invalid(
                    "tiled_mma",
                    format!(
                        "the atom layout {atom_layout} has rank {r}; a TiledMMA takes rank 3 (M,N,K)"
                    ),
                ));
            }
        };
        let permutation = match permutation {
            None | Some(Tiler::Underscore) => {
                [Tiler::Underscore, Tiler::Underscore, Tiler::Underscore]
            }
            Some(Tiler::Modes(modes)) if modes.len() <= 3 => {
                let mut m = modes;
                m.resize(3, Tiler::Underscore);
                [m[0].clone(), m[1].clone(), m[2].clone()]
            }
            Some(other) => {
                return Err(LayoutError::invalid(
                    "tiled_mma",
                    format!(
                        "the permutation {other} is not a tile of at most 3 modes, such as \
                         <32,(8,2,2):(1,16,8),16>"
                    ),
                ));
            }
        };
        let thr_layout_vmnk = atom
            .thr_id
            .tiled_product(&Tiler::Layout(atom_layout.clone()))?;
        let tiled = TiledMma {
            atom,
            atom_layout,
            permutation,
            thr_layout_vmnk,
        };
        // C++ checks these when the TV layouts are formed; refuse early.
        for op in [Operand::A, Operand::B, Operand::C] {
            tiled.layout_tv(op)?;
        }
        Ok(tiled)
    }

    /// Number of threads.
    pub fn size(&self) -> i64 {
        self.thr_layout_vmnk.size()
    }

    /// `permutation_mnk<i>`: the given tile, or `atom size * atom repeats`.
    fn permutation_tile(&self, i: usize) -> Tiler {
        match &self.permutation[i] {
            Tiler::Underscore => {
                Tiler::Int(self.atom.shape_mnk[i] * self.thr_layout_vmnk.mode(i + 1).size())
            }
            t => t.clone(),
        }
    }

    /// `tile_size_mnk<i>`.
    pub fn tile_size(&self, i: usize) -> i64 {
        match self.permutation_tile(i) {
            Tiler::Int(n) => n,
            Tiler::Layout(l) => l.size(),
            Tiler::Modes(m) => m
                .iter()
                .map(|t| match t {
                    Tiler::Int(n) => *n,
                    Tiler::Layout(l) => l.size(),
                    _ => 1,
                })
                .product(),
            Tiler::Underscore => 1,
        }
    }

    /// `(tile_size<0>, tile_size<1>, tile_size<2>)`.
    pub fn tile_shape(&self) -> IntTuple {
        Tuple((0..3).map(|i| Int(self.tile_size(i))).collect())
    }

    /// `thrfrg_A/B/C`: a `(rows, cols)` layout of one operand's tile as
    /// `((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1)))`.
    pub(super) fn thrfrg(&self, op: Operand, tensor: &Layout) -> Result<Layout> {
        let (i, j) = operand_modes(op);
        let atom_tv = match op {
            Operand::A => &self.atom.a,
            Operand::B => &self.atom.b,
            Operand::C => &self.atom.c,
        };
        let t_tile = Tiler::Modes(vec![self.permutation_tile(i), self.permutation_tile(j)]);
        let t_tensor = tensor.logical_divide(&t_tile)?;
        let atom_tile = Tiler::Modes(vec![
            layout_of_size(self.atom.shape_mnk[i])?,
            layout_of_size(self.atom.shape_mnk[j])?,
        ]);
        let a_tensor = t_tensor.zipped_divide(&atom_tile)?;
        let tv_tensor = a_tensor.compose_tiler(&Tiler::Modes(vec![
            Tiler::Layout(atom_tv.clone()),
            Tiler::Underscore,
        ]))?;
        let thr_tile = Tiler::Modes(vec![
            Tiler::Underscore,
            Tiler::Modes(vec![
                layout_of_size(self.thr_layout_vmnk.mode(i + 1).size())?,
                layout_of_size(self.thr_layout_vmnk.mode(j + 1).size())?,
            ]),
        ]);
        tv_tensor.zipped_divide(&thr_tile)
    }

    /// `thr_idx -> (ThrV,ThrM,ThrN,ThrK)` as C++ forms it.
    fn thridx_to_thrid(&self) -> Result<Layout> {
        let vmnk = &self.thr_layout_vmnk;
        let with_complement = Layout::concat(vec![vmnk.clone(), vmnk.complement_default()?]);
        let first = Layout::new(
            Tuple(vec![Int(vmnk.size()), Int(1)]),
            Tuple(vec![Int(1), Int(0)]),
        )?;
        first.compose(&with_complement.right_inverse())
    }

    /// `get_layoutA_TV` / `B` / `C`: `(thread, value) -> (row, col)` of
    /// the operand's tile, as a column-major index.
    pub fn layout_tv(&self, op: Operand) -> Result<Layout> {
        let (i, j) = operand_modes(op);
        let reference =
            Layout::column_major(Tuple(vec![Int(self.tile_size(i)), Int(self.tile_size(j))]))?;
        let frg = self.thrfrg(op, &reference)?;
        let vmnk = &self.thr_layout_vmnk;
        let (m, n) = (vmnk.mode(1).size(), vmnk.mode(2).size());
        let frg = match op {
            Operand::C => frg,
            // (ThrV,(ThrM,ThrK)) -> (ThrV,((ThrM,ThrN),ThrK)): the N threads
            // (for A) or M threads (for B) see the same data.
            Operand::A | Operand::B => {
                let stride = if op == Operand::A { [1, 0] } else { [0, 1] };
                let spread = Layout::new(
                    Tuple(vec![Int(m), Int(n)]),
                    Tuple(vec![Int(stride[0]), Int(stride[1])]),
                )?;
                let tile = Tiler::Modes(vec![
                    Tiler::Underscore,
                    Tiler::Modes(vec![Tiler::Layout(spread), Tiler::Underscore]),
                ]);
                frg.compose_tiler(&Tiler::Modes(vec![tile, Tiler::Underscore]))?
            }
        };
        frg.compose_tiler(&Tiler::Modes(vec![
            Tiler::Layout(self.thridx_to_thrid()?),
            Tiler::Underscore,
        ]))
    }
}

/// Who holds an element of a tile under a thread-value layout: the
/// lowest-numbered thread (with its value index), and how many
/// thread-value pairs hold it (A's elements are shared by the N threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementOwner {
    pub thread: i64,
    pub value: i64,
    pub holders: usize,
}

/// Every element a `(thread, value) -> element` layout reaches, with its owner.
pub fn element_owners(tv: &Layout) -> std::collections::HashMap<i64, ElementOwner> {
    let threads = tv.mode(0).size().max(1);
    let mut owners = std::collections::HashMap::new();
    for idx in 0..tv.size() {
        let (thread, value) = (idx % threads, idx / threads);
        let e = owners.entry(tv.call(idx)).or_insert(ElementOwner {
            thread,
            value,
            holders: 0,
        });
        if thread < e.thread {
            (e.thread, e.value) = (thread, value);
        }
        e.holders += 1;
    }
    owners
}

/// The `(rows, cols)` modes of `(M,N,K)` an operand's tile spans.
pub(super) fn operand_modes(op: Operand) -> (usize, usize) {
    match op {
        Operand::A => (0, 2),
        Operand::B => (1, 2),
        Operand::C => (0, 1),
    }
}

/// `make_layout(n)`.
fn layout_of_size(n: i64) -> Result<Tiler> {
    Ok(Tiler::Layout(Layout::column_major(Int(n))?))
}

/// `make_tiled_copy(atom, thr, val)`, `make_tiled_copy_A/B/C(atom, mma)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledCopy {
    pub atom: CopyAtom,
    /// `(thread, value) -> coordinate` in the tile, column-major.
    pub layout_tv: Layout,
    /// The tile's shape (`Tiler_MN`).
    pub tiler: IntTuple,
}

/// Which side of a copy a layout describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Source,
    Destination,
}

impl TiledCopy {
    /// `make_tiled_copy(atom, thr_layout, val_layout)`: the values of a
    /// thread raked over the threads.
    pub fn from_thr_val(atom: CopyAtom, thr: &Layout, val: &Layout) -> Result<TiledCopy> {
        let layout_mn = thr.raked_product(val)?;
        let tv_shape = Layout::column_major(Tuple(vec![Int(thr.size()), Int(val.size())]))?;
        let layout_tv = layout_mn.right_inverse().compose(&tv_shape)?;
        let tiler = Tuple(layout_mn.modes().iter().map(|m| Int(m.size())).collect());
        TiledCopy::new(atom, layout_tv, tiler)
    }

    /// `make_tiled_copy_A/B/C(atom, mma)`: the copy that moves the MMA's
    /// operand tile with the MMA's own thread-value layout.
    pub fn for_mma(atom: CopyAtom, mma: &TiledMma, op: Operand) -> Result<TiledCopy> {
        let (i, j) = operand_modes(op);
        let tiler = Tuple(vec![Int(mma.tile_size(i)), Int(mma.tile_size(j))]);
        TiledCopy::new(atom, mma.layout_tv(op)?, tiler)
    }

    fn new(atom: CopyAtom, layout_tv: Layout, tiler: IntTuple) -> Result<TiledCopy> {
        let (threads, values) = (layout_tv.mode(0).size(), layout_tv.mode(1).size());
        let (atom_threads, atom_values) =
            (atom.val_ref.mode(0).size(), atom.val_ref.mode(1).size());
        if threads % atom_threads != 0 {
            return Err(LayoutError::invalid(
                "tiled_copy",
                format!(
                    "{threads} threads are too few for {} ({atom_threads} threads per atom; \
                     CuTe: \"TiledCopy uses too few thrs for selected CopyAtom\")",
                    atom.op
                ),
            ));
        }
        if values % atom_values != 0 {
            return Err(LayoutError::invalid(
                "tiled_copy",
                format!(
                    "{values} values per thread are too few for {} ({atom_values} per atom; \
                     CuTe: \"TiledCopy uses too few vals for selected CopyAtom\")",
                    atom.op
                ),
            ));
        }
        let tiled = TiledCopy {
            atom,
            layout_tv,
            tiler,
        };
        tiled.layout_side_tv(Side::Source)?;
        tiled.layout_side_tv(Side::Destination)?;
        Ok(tiled)
    }

    /// Threads of the tiled copy.
    pub fn size(&self) -> i64 {
        self.layout_tv.mode(0).size()
    }

    /// `tile2thrfrg(tensor, ref2trg)` for a `((M,N,...), rest)` tensor:
    /// `(thread, value, rest)`.
    pub(super) fn tile2thrfrg(&self, tensor: &Layout, side: Side) -> Result<Layout> {
        let atom = &self.atom;
        let atom_threads = atom.val_ref.mode(0).size();
        let atom_values = atom.val_ref.mode(1).size();
        let target = match side {
            Side::Source => &atom.val_src,
            Side::Destination => &atom.val_dst,
        };
        let ref2trg = atom.val_ref.right_inverse().compose(target)?;
        let atom_layout_tv = self.layout_tv.zipped_divide(&Tiler::Modes(vec![
            Tiler::Int(atom_threads),
            Tiler::Int(atom_values),
        ]))?;
        let trg_layout_tv = atom_layout_tv.compose_tiler(&Tiler::Modes(vec![
            Tiler::Layout(ref2trg),
            Tiler::Underscore,
        ]))?;
        // zip: ((atom_thr,atom_val),(rest_thr,rest_val)) -> ((atom_thr,rest_thr),(atom_val,rest_val))
        let (atom_part, rest_part) = (trg_layout_tv.mode(0), trg_layout_tv.mode(1));
        let zipped = Layout::concat(vec![
            Layout::concat(vec![atom_part.mode(0), rest_part.mode(0)]),
            Layout::concat(vec![atom_part.mode(1), rest_part.mode(1)]),
        ]);
        let thrval2mn = zipped.coalesce_by(&Tuple(vec![Int(1), Tuple(vec![Int(1), Int(1)])]))?;
        let tv = tensor.compose_tiler(&Tiler::Modes(vec![
            Tiler::Layout(thrval2mn),
            Tiler::Underscore,
        ]))?;
        let head = tv.mode(0);
        Ok(Layout::concat(vec![head.mode(0), head.mode(1), tv.mode(1)]))
    }

    /// `get_layoutS_TV` / `get_layoutD_TV`: `(thread, value) -> coordinate`
    /// of the tile on the copy's source or destination side.
    pub fn layout_side_tv(&self, side: Side) -> Result<Layout> {
        let reference = Layout::column_major(Tuple(vec![self.tiler.clone(), Int(1)]))?;
        let t = self.tile2thrfrg(&reference, side)?;
        Ok(Layout::concat(vec![t.mode(0), t.mode(1)]))
    }
}
