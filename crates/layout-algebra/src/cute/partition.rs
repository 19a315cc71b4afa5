//! One thread's partition of a tensor, as a value: what C++'s
//! `thr_copy.partition_S(t)` and `thr_mma.partition_A(t)` return for the
//! tensor of element indices `make_tensor(counting_iterator<int>(0), L)`.
//! C++ prints it `counting_iter(k) o L'`: the thread's first element `k`
//! and the layout of its values from there.
//!
//! Slicing out one thread is C++'s `slice_and_offset`. For a plain layout
//! the offset of the coordinate moves into the iterator. For a swizzled
//! layout `Sw o k o L` the offset splits: the bits the swizzle neither reads
//! nor writes move into the iterator; the others stay with the swizzle,
//! unless the slice toggles no pair of bits the swizzle ties together, in
//! which case C++ replaces the swizzle by a plain layout whose strides say
//! how each bit moves under the swizzle at that offset.

use std::fmt;

use super::slice::SliceCoord;
use super::tiled::{Operand, Side, TiledCopy, TiledMma};
use super::{Int, IntTuple, Layout, Swizzle, SwizzledLayout, Tuple, idx2crd};
use crate::error::{LayoutError, Result};

/// The layout of a tensor: plain or swizzled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TensorLayout {
    Plain(Layout),
    Swizzled(SwizzledLayout),
}

impl TensorLayout {
    /// The offset of an index.
    pub fn call(&self, idx: i64) -> i64 {
        match self {
            TensorLayout::Plain(l) => l.call(idx),
            TensorLayout::Swizzled(s) => s.call(idx),
        }
    }

    /// The layout of the indices, without the swizzle.
    pub fn inner(&self) -> &Layout {
        match self {
            TensorLayout::Plain(l) => l,
            TensorLayout::Swizzled(s) => &s.layout,
        }
    }

    fn map_inner(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<TensorLayout> {
        Ok(match self {
            TensorLayout::Plain(l) => TensorLayout::Plain(f(l)?),
            TensorLayout::Swizzled(s) => TensorLayout::Swizzled(s.map_inner(f)?),
        })
    }
}

impl fmt::Display for TensorLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorLayout::Plain(l) => write!(f, "{l}"),
            TensorLayout::Swizzled(s) => write!(f, "{s}"),
        }
    }
}

/// An offset C++ knows partly at run time (its `MixedBits`): the bits of
/// `fixed` are known at compile time, the bits under `mask` come from the
/// thread index. C++ prints it `M_fixed|(dynamic&mask)=value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MixedOffset {
    pub fixed: i64,
    pub dynamic: i64,
    pub mask: i64,
}

impl MixedOffset {
    pub fn known(value: i64) -> MixedOffset {
        MixedOffset {
            fixed: value,
            dynamic: 0,
            mask: 0,
        }
    }

    /// `make_mixed_bits(s, d, f)`: the known bits win over the mask.
    fn make(fixed: i64, dynamic: i64, mask: i64) -> MixedOffset {
        let mask = mask & !fixed;
        MixedOffset {
            fixed: if mask == 0 {
                fixed | (dynamic & mask)
            } else {
                fixed
            },
            dynamic: dynamic & mask,
            mask,
        }
    }

    pub fn value(&self) -> i64 {
        self.fixed | self.dynamic
    }

    /// Whether bit `bit` (a mask) is only known at run time.
    fn is_dynamic(&self, bit: i64) -> bool {
        self.mask & bit != 0
    }

    /// C++'s `^` of two `MixedBits` (a known integer has no mask).
    fn xor(self, o: MixedOffset) -> MixedOffset {
        let (s0, f0, s1, f1) = (self.fixed, self.mask, o.fixed, o.mask);
        MixedOffset::make(
            (!s0 & s1 & !f0) | (s0 & !s1 & !f1),
            (s0 | self.dynamic) ^ (s1 | o.dynamic),
            f0 | f1,
        )
    }
}

impl fmt::Display for MixedOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mask == 0 {
            write!(f, "{}", self.fixed)
        } else {
            write!(
                f,
                "M_{}|({}&{})={}",
                self.fixed,
                self.dynamic,
                self.mask,
                self.value()
            )
        }
    }
}

/// The layout of one thread's part of a tensor: plain, or swizzled with an
/// offset that depends on the thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PartitionLayout {
    Plain(Layout),
    Swizzled {
        swizzle: Swizzle,
        offset: MixedOffset,
        layout: Layout,
    },
}

impl PartitionLayout {
    pub fn call(&self, idx: i64) -> i64 {
        match self {
            PartitionLayout::Plain(l) => l.call(idx),
            PartitionLayout::Swizzled {
                swizzle,
                offset,
                layout,
            } => swizzle.apply(offset.value() + layout.call(idx)),
        }
    }

    pub fn inner(&self) -> &Layout {
        match self {
            PartitionLayout::Plain(l) => l,
            PartitionLayout::Swizzled { layout, .. } => layout,
        }
    }
}

impl fmt::Display for PartitionLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionLayout::Plain(l) => write!(f, "{l}"),
            PartitionLayout::Swizzled {
                swizzle,
                offset,
                layout,
            } => write!(f, "{swizzle} o {offset} o {layout}"),
        }
    }
}

/// A tensor of element indices: element `i` is `start + layout(i)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CountingTensor {
    pub start: i64,
    pub layout: PartitionLayout,
}

impl CountingTensor {
    /// The index of the tensor's element `i`.
    pub fn call(&self, idx: i64) -> i64 {
        self.start + self.layout.call(idx)
    }

    pub fn size(&self) -> i64 {
        self.layout.inner().size()
    }
}

impl fmt::Display for CountingTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "counting_iter({}) o {}", self.start, self.layout)
    }
}

/// `slice_and_offset(c, L)` where the integers of `c` come from the thread
/// index (known at run time only): the sliced layout and the offset that
/// moves into the tensor's iterator.
fn slice_at_thread(tensor: &TensorLayout, c: &SliceCoord) -> Result<(PartitionLayout, i64)> {
    match tensor {
        TensorLayout::Plain(l) => Ok((PartitionLayout::Plain(l.slice(c)?), l.at(&c.zeroed())?)),
        TensorLayout::Swizzled(s) => s.slice_at_thread(c),
    }
}

impl SwizzledLayout {
    /// `slice_and_offset` of `Sw o k o L` at a coordinate known at run time.
    fn slice_at_thread(&self, c: &SliceCoord) -> Result<(PartitionLayout, i64)> {
        let sliced = self.layout.slice(c)?;
        if all_underscore(c) {
            let kept = PartitionLayout::Swizzled {
                swizzle: self.swizzle,
                offset: MixedOffset::known(self.offset),
                layout: sliced,
            };
            return Ok((kept, 0));
        }
        let sw = self.swizzle;
        let (anti_zy, only_zy) = projections(sw)?;
        let diced = self.layout.dice(c)?;
        let diced_coord = dice_coord(c);
        // The swizzled bits of the offset (combined bit by bit, as C++'s
        // `to_mixed_bits` does) stay with the swizzle; the rest is added.
        let only_zy_diced = only_zy.compose(&diced)?;
        let offset_only_zy =
            MixedOffset::known(self.offset).xor(mixed_bits(&only_zy_diced, &diced_coord)?);
        let offset_anti_zy = anti_zy.compose(&diced)?.at(&diced_coord)?;
        // The swizzled bits the rest of the slice reaches.
        let only_zy_sliced = only_zy.compose(&sliced)?;
        let active = only_zy_sliced.call(only_zy_sliced.size() - 1);
        if active & !sw.apply(active) != 0 {
            // It toggles a bit the swizzle reads and the bit it writes: the
            // swizzle stays.
            let kept = PartitionLayout::Swizzled {
                swizzle: sw,
                offset: offset_only_zy,
                layout: sliced,
            };
            return Ok((kept, offset_anti_zy));
        }
        let decayed = decay(sw, offset_only_zy, &sliced)?;
        Ok((
            PartitionLayout::Plain(decayed),
            sw.apply(offset_only_zy.value()) + offset_anti_zy,
        ))
    }
}

fn all_underscore(c: &SliceCoord) -> bool {
    match c {
        SliceCoord::Underscore => true,
        SliceCoord::Int(_) => false,
        SliceCoord::Tuple(v) => v.iter().all(all_underscore),
    }
}

/// `dice(c, c)`: the integers of `c`, one per mode `dice` keeps.
fn dice_coord(c: &SliceCoord) -> IntTuple {
    fn walk(c: &SliceCoord, out: &mut Vec<IntTuple>) {
        match c {
            SliceCoord::Int(n) => out.push(Int(*n)),
            SliceCoord::Underscore => {}
            SliceCoord::Tuple(v) => v.iter().for_each(|x| walk(x, out)),
        }
    }
    if let SliceCoord::Int(n) = c {
        return Int(*n);
    }
    let mut out = Vec::new();
    walk(c, &mut out);
    Tuple(out)
}

/// The swizzle's bits as a layout over `(2^M, 2^B, 2^(|S|-B), 2^B, 1)`
/// (the bits below, the low run, the bits between, the high run, the rest),
/// and its two projections: every bit but the swizzle's two runs
/// (`anti_zy`, the bits above included), and the two runs only (`only_zy`).
fn projections(sw: Swizzle) -> Result<(Layout, Layout)> {
    let (b, m, s) = (
        sw.bits as i64,
        sw.base as i64,
        sw.shift.unsigned_abs() as i64,
    );
    let shape = Tuple(vec![
        Int(1 << m),
        Int(1 << b),
        Int(1 << (s - b)),
        Int(1 << b),
        Int(1),
    ]);
    let full = Layout::column_major(shape.clone())?;
    let d: Vec<i64> = full.stride().flatten();
    let size = full.size();
    let anti = Layout::new(
        shape.clone(),
        Tuple(vec![Int(d[0]), Int(0), Int(d[2]), Int(0), Int(size)]),
    )?;
    let only = Layout::new(
        shape,
        Tuple(vec![Int(0), Int(d[1]), Int(0), Int(d[3]), Int(0)]),
    )?;
    Ok((anti, only))
}

/// C++'s `to_mixed_bits(layout, coord)` for a coordinate known at run time:
/// the leaf terms combined by XOR, each one's bits under its mask
/// `(shape-1)*stride`.
fn mixed_bits(layout: &Layout, coord: &IntTuple) -> Result<MixedOffset> {
    fn walk(coord: &IntTuple, shape: &IntTuple, stride: &IntTuple) -> Result<MixedOffset> {
        match (coord, shape, stride) {
            (Int(c), Int(s), Int(d)) => Ok(MixedOffset::make(0, c * d, (s - 1) * d)),
            (Int(c), Tuple(_), Tuple(_)) => walk(&idx2crd(*c, shape), shape, stride),
            (Tuple(cs), Tuple(ss), Tuple(ds)) if cs.len() == ss.len() => {
                // `(a ^ ...)`: a right fold.
                let terms = cs
                    .iter()
                    .zip(ss)
                    .zip(ds)
                    .map(|((c, s), d)| walk(c, s, d))
                    .collect::<Result<Vec<_>>>()?;
                let mut acc = MixedOffset::known(0);
                for (i, t) in terms.into_iter().rev().enumerate() {
                    acc = if i == 0 { t } else { t.xor(acc) };
                }
                Ok(acc)
            }
            _ => Err(LayoutError::invalid(
                "slice",
                format!("the coordinate {coord} does not fit the shape {shape}"),
            )),
        }
    }
    walk(coord, layout.shape(), layout.stride())
}

/// `composition(swizzle_strides, sliced)` as C++ computes it: the strides of
/// the swizzle's bits that depend on a bit of the offset known only at run
/// time are dynamic, and C++ merges no mode next to a dynamic stride.
fn decay(sw: Swizzle, offset: MixedOffset, sliced: &Layout) -> Result<Layout> {
    let (strides, dynamic) = swizzle_strides_layout(sw, offset)?;
    // C++'s `coalesce_x`, from the back: shape-1 modes are skipped, but the
    // last one, which is widened to 2 so that the layout goes on past its
    // domain; a mode merges into the next when both strides are known and
    // `s * d` is the next stride.
    let leaves = strides.leaves();
    let (&(ls, ld), init) = leaves.split_last().expect("five modes");
    let mut flat: Vec<(i64, i64, bool)> = vec![(if ls == 1 { 2 } else { ls }, ld, false)];
    for (i, &(s, d)) in init.iter().enumerate().rev() {
        if s == 1 {
            continue;
        }
        let front = flat.last_mut().expect("the last mode is in");
        if !dynamic[i] && !front.2 && s * d == front.1 {
            front.0 *= s;
            front.1 = d;
        } else {
            flat.push((s, d, dynamic[i]));
        }
    }
    let flat: Vec<(i64, i64)> = flat.into_iter().rev().map(|(s, d, _)| (s, d)).collect();
    strides.compose_flat(&flat, sliced)
}

/// The plain layout that replaces `Sw` at the offset `o` when a slice
/// toggles no tied pair of bits: each bit of a run moves by
/// `Sw(o + bit) - Sw(o)`, which depends on the bit of `o` it is tied to.
/// Also which of its leaves have a stride known only at run time.
fn swizzle_strides_layout(sw: Swizzle, offset: MixedOffset) -> Result<(Layout, Vec<bool>)> {
    let (b, m, s) = (
        sw.bits as i64,
        sw.base as i64,
        sw.shift.unsigned_abs() as i64,
    );
    let o = offset.value();
    let z = sw.target_mask() & -sw.target_mask();
    let y = sw.mask() & -sw.mask();
    // Toggling written bit i flips it one way or the other, as its read
    // bit is set in the offset; toggling read bit i also toggles written
    // bit i, up or down as that bit is set in the offset.
    let written = |i: i64| {
        let stride = if o & (y << i) == 0 { z << i } else { -(z << i) };
        (stride, offset.is_dynamic(y << i))
    };
    let read = |i: i64| {
        let stride = if o & (z << i) == 0 {
            (y + z) << i
        } else {
            (y - z) << i
        };
        (stride, offset.is_dynamic(z << i))
    };
    let run = |low: bool| -> Vec<(i64, bool)> {
        (0..b)
            .map(|i| if low == (z < y) { written(i) } else { read(i) })
            .collect()
    };
    let (lo, hi) = (run(true), run(false));
    let bits = |v: &[(i64, bool)]| Tuple(v.iter().map(|&(d, _)| Int(d)).collect());
    let shape = Tuple(vec![
        Int(1 << m),
        Tuple(vec![Int(2); b as usize]),
        Int(1 << (s - b)),
        Tuple(vec![Int(2); b as usize]),
        Int(1),
    ]);
    let stride = Tuple(vec![
        Int(1),
        bits(&lo),
        Int(1 << (m + b)),
        bits(&hi),
        Int(1 << (m + b + s)),
    ]);
    let mut dynamic = vec![false];
    dynamic.extend(lo.iter().map(|x| x.1));
    dynamic.push(false);
    dynamic.extend(hi.iter().map(|x| x.1));
    dynamic.push(false);
    Ok((Layout::new(shape, stride)?, dynamic))
}

impl TiledCopy {
    /// `get_slice(thread).partition_S(t)` (or `partition_D`) of the tensor
    /// of indices over `tensor`: `(CPY, CPY_M, CPY_N, ...)` from the
    /// thread's first element.
    pub fn partition_thread(
        &self,
        tensor: &TensorLayout,
        side: Side,
        thread: i64,
    ) -> Result<CountingTensor> {
        check_thread(thread, self.size(), "tiled copy")?;
        let rank = tensor.inner().rank();
        let frg = tensor.map_inner(|l| self.partition(l, side))?;
        let coord = SliceCoord::Tuple(vec![
            SliceCoord::Int(thread),
            SliceCoord::Underscore,
            SliceCoord::Tuple(vec![SliceCoord::Underscore; rank]),
        ]);
        let (layout, start) = slice_at_thread(&frg, &coord)?;
        Ok(CountingTensor { start, layout })
    }
}

impl TiledMma {
    /// `get_slice(thread).partition_A(t)` (`B`, `C`) of the tensor of
    /// indices over `tensor`: `(MMA, MMA_M, MMA_K)` from the thread's first
    /// element.
    pub fn partition_thread(
        &self,
        op: Operand,
        tensor: &TensorLayout,
        thread: i64,
    ) -> Result<CountingTensor> {
        check_thread(thread, self.size(), "tiled MMA")?;
        let frg = tensor.map_inner(|l| self.thrfrg(op, l))?;
        // The thread's (v, m, n, k): its index split over the thread
        // layout's modes, first mode fastest (`get_flat_coord`).
        let vmnk = &self.thr_layout_vmnk;
        let sizes = Tuple((0..vmnk.rank()).map(|i| Int(vmnk.mode(i).size())).collect());
        let Tuple(c) = idx2crd(thread, &sizes) else {
            unreachable!("a tuple shape splits into a tuple")
        };
        let int = |i: usize| match &c[i] {
            Int(n) => SliceCoord::Int(*n),
            _ => unreachable!("each mode is split to one integer"),
        };
        let (i, j) = super::tiled::operand_modes(op);
        let rest_rank = frg.inner().mode(1).mode(1).rank();
        let coord = SliceCoord::Tuple(vec![
            SliceCoord::Tuple(vec![
                int(0),
                SliceCoord::Tuple(vec![int(i + 1), int(j + 1)]),
            ]),
            SliceCoord::Tuple(vec![
                SliceCoord::Underscore,
                SliceCoord::Tuple(vec![SliceCoord::Underscore; rest_rank]),
            ]),
        ]);
        let (layout, start) = slice_at_thread(&frg, &coord)?;
        Ok(CountingTensor { start, layout })
    }
}

fn check_thread(thread: i64, threads: i64, what: &str) -> Result<()> {
    if !(0..threads).contains(&thread) {
        return Err(LayoutError::invalid(
            "partition",
            format!("thread {thread} is outside the {what}'s {threads} threads"),
        ));
    }
    Ok(())
}
