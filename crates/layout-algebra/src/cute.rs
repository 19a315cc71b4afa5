//! CuTe layouts (seed 004; CUTLASS `cute/layout.hpp`), with the C++ headers'
//! semantics.
//!
//! A layout is a hierarchical `shape:stride` pair of congruent integer tuples
//! (`((4,2),4):((8,4),1)`): it maps a coordinate, or a 1-D index walked
//! column-major (first mode fastest), to `Σ cᵢ·dᵢ`. On top of that: coalesce,
//! filter, composition (also by-mode tilers `<3:3,(2,4):(1,8)>` and `_`),
//! complement, left and right inverses, the divides and products, and
//! `Swizzle<B,M,S>`.
//!
//! Where the C++ `static_assert`s, these functions return a
//! [`LayoutError`]; where C++'s divisibility check is too weak to catch a
//! wrong composition, the result is verified point by point and rejected.

use std::fmt;

use crate::error::{LayoutError, Result};

/// A CuTe `IntTuple`: an integer or a tuple of them, nested.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntTuple {
    Int(i64),
    Tuple(Vec<IntTuple>),
}

use IntTuple::{Int, Tuple};

impl IntTuple {
    /// Number of top-level modes (1 for an integer).
    pub fn rank(&self) -> usize {
        match self {
            Int(_) => 1,
            Tuple(v) => v.len(),
        }
    }

    /// Nesting depth (0 for an integer).
    pub fn depth(&self) -> usize {
        match self {
            Int(_) => 0,
            Tuple(v) => 1 + v.iter().map(IntTuple::depth).max().unwrap_or(0),
        }
    }

    /// Product of the leaves (saturating: layouts are checked to stay far
    /// below `i64::MAX`, see [`Layout::new`]).
    pub fn product(&self) -> i64 {
        match self {
            Int(n) => *n,
            Tuple(v) => v
                .iter()
                .map(IntTuple::product)
                .fold(1i64, |a, b| a.saturating_mul(b)),
        }
    }

    /// The leaves, depth first.
    pub fn flatten(&self) -> Vec<i64> {
        let mut out = Vec::new();
        fn walk(t: &IntTuple, out: &mut Vec<i64>) {
            match t {
                Int(n) => out.push(*n),
                Tuple(v) => v.iter().for_each(|x| walk(x, out)),
            }
        }
        walk(self, &mut out);
        out
    }

    /// Mode `i` (an integer is its own only mode).
    pub fn mode(&self, i: usize) -> &IntTuple {
        match self {
            Int(_) => self,
            Tuple(v) => &v[i],
        }
    }

    fn modes(&self) -> Vec<IntTuple> {
        match self {
            Int(_) => vec![self.clone()],
            Tuple(v) => v.clone(),
        }
    }

    /// Same nesting structure (the leaves may differ).
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (Int(_), Int(_)) => true,
            (Tuple(a), Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// A single mode unwraps to itself, several make a tuple.
    fn from_modes(mut modes: Vec<IntTuple>) -> IntTuple {
        if modes.len() == 1 {
            modes.pop().unwrap()
        } else {
            Tuple(modes)
        }
    }

    /// Parses `7`, `(1,(2,3))`, spaces allowed.
    pub fn parse(text: &str) -> Result<IntTuple> {
        let mut p = Parser::new(text);
        let t = p.int_tuple()?;
        p.end()?;
        Ok(t)
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int(n) => write!(f, "{n}"),
            Tuple(v) => {
                write!(f, "(")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// Column-major (first mode fastest) strides for a shape; size-1 modes get
/// stride 0, as CuTe's `make_layout(shape)` does.
pub fn compact_col_major(shape: &IntTuple) -> IntTuple {
    fn walk(s: &IntTuple, current: &mut i64) -> IntTuple {
        match s {
            Int(n) => {
                let d = if *n == 1 { 0 } else { *current };
                *current *= n;
                Int(d)
            }
            Tuple(v) => Tuple(v.iter().map(|x| walk(x, current)).collect()),
        }
    }
    walk(shape, &mut 1)
}

/// `idx2crd(idx, shape)`: the coordinate of a 1-D index, first mode fastest;
/// the outermost mode is not wrapped (`idx2crd(15, (3,4)) = (0,5)`).
pub fn idx2crd(idx: i64, shape: &IntTuple) -> IntTuple {
    match shape {
        Int(_) => Int(idx),
        Tuple(v) => {
            let mut rest = idx;
            let n = v.len();
            Tuple(
                v.iter()
                    .enumerate()
                    .map(|(i, s)| {
                        if i + 1 == n {
                            idx2crd(rest, s)
                        } else {
                            let size = s.product();
                            let c = rest.rem_euclid(size);
                            rest = rest.div_euclid(size);
                            idx2crd(c, s)
                        }
                    })
                    .collect(),
            )
        }
    }
}

/// `idx2crd(idx, shape, stride)`: per leaf `(idx / d) % s`.
pub fn idx2crd_strided(idx: i64, shape: &IntTuple, stride: &IntTuple) -> Result<IntTuple> {
    match (shape, stride) {
        (Int(s), Int(d)) => Ok(Int(if *d == 0 { 0 } else { (idx / d) % s })),
        (Tuple(a), Tuple(b)) if a.len() == b.len() => Ok(Tuple(
            a.iter()
                .zip(b)
                .map(|(s, d)| idx2crd_strided(idx, s, d))
                .collect::<Result<_>>()?,
        )),
        _ => Err(LayoutError::invalid(
            "idx2crd",
            format!("shape {shape} and stride {stride} are not congruent"),
        )),
    }
}

/// `crd2idx(coord, shape, stride)`: an integer coordinate into a tuple mode
/// is first split column-major (the last mode unwrapped).
pub fn crd2idx(coord: &IntTuple, shape: &IntTuple, stride: &IntTuple) -> Result<i64> {
    match (coord, shape, stride) {
        (Int(c), Int(_), Int(d)) => Ok(c * d),
        (Int(c), Tuple(_), Tuple(_)) => crd2idx(&idx2crd(*c, shape), shape, stride),
        (Tuple(c), Tuple(s), Tuple(d)) if c.len() == s.len() && s.len() == d.len() => c
            .iter()
            .zip(s)
            .zip(d)
            .map(|((c, s), d)| crd2idx(c, s, d))
            .sum(),
        _ => Err(LayoutError::invalid(
            "crd2idx",
            format!("coordinate {coord} does not fit the shape {shape}"),
        )),
    }
}

/// A CuTe layout `shape:stride`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
}

impl Layout {
    /// A layout from congruent shape and stride; shapes must be positive.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout> {
        if !shape.congruent(&stride) {
            return Err(LayoutError::invalid(
                "layout",
                format!("shape {shape} and stride {stride} are not congruent"),
            ));
        }
        if let Some(s) = shape.flatten().into_iter().find(|&s| s <= 0) {
            return Err(LayoutError::invalid(
                "layout",
                format!("shape {shape} has a non-positive mode {s}"),
            ));
        }
        let layout = Layout { shape, stride };
        // Keep every size, offset and intermediate product of the algebra
        // (which multiplies sizes and strides) inside 64 bits.
        const LIMIT: i64 = 1 << 40;
        if layout.size() > LIMIT
            || layout.cosize() > LIMIT
            || layout
                .stride
                .flatten()
                .iter()
                .any(|d| d.unsigned_abs() > LIMIT as u64)
        {
            return Err(LayoutError::invalid(
                "layout",
                format!("{layout} is too large: sizes, strides and offsets must stay below 2^40"),
            ));
        }
        Ok(layout)
    }

    /// `make_layout(shape)`: column-major strides.
    pub fn column_major(shape: IntTuple) -> Result<Layout> {
        let stride = compact_col_major(&shape);
        Layout::new(shape, stride)
    }

    fn leaf(s: i64, d: i64) -> Layout {
        Layout {
            shape: Int(s),
            stride: Int(d),
        }
    }

    /// Parses CuTe's printed form `((4,2),4):((8,4),1)`; a bare shape
    /// `(4,8)` gets column-major strides.
    pub fn parse(text: &str) -> Result<Layout> {
        let mut p = Parser::new(text);
        let l = p.layout()?;
        p.end()?;
        Ok(l)
    }

    pub fn shape(&self) -> &IntTuple {
        &self.shape
    }

    pub fn stride(&self) -> &IntTuple {
        &self.stride
    }

    pub fn size(&self) -> i64 {
        self.shape.product()
    }

    /// One past the largest offset reached (with strides taken absolute).
    pub fn cosize(&self) -> i64 {
        self.leaves()
            .iter()
            .map(|&(s, d)| (s - 1).saturating_mul(d.saturating_abs()))
            .fold(1i64, |a, b| a.saturating_add(b))
    }

    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Mode `i` as a layout.
    pub fn mode(&self, i: usize) -> Layout {
        Layout {
            shape: self.shape.mode(i).clone(),
            stride: self.stride.mode(i).clone(),
        }
    }

    fn modes(&self) -> Vec<Layout> {
        self.shape
            .modes()
            .into_iter()
            .zip(self.stride.modes())
            .map(|(shape, stride)| Layout { shape, stride })
            .collect()
    }

    /// `make_layout(l0, l1, ...)`: the layouts as the modes of one.
    pub fn concat(modes: Vec<Layout>) -> Layout {
        let (shapes, strides): (Vec<_>, Vec<_>) =
            modes.into_iter().map(|l| (l.shape, l.stride)).unzip();
        Layout {
            shape: Tuple(shapes),
            stride: Tuple(strides),
        }
    }

    /// Like [`Layout::concat`], but one mode stays unwrapped.
    fn from_modes(modes: Vec<Layout>) -> Layout {
        let (shapes, strides): (Vec<_>, Vec<_>) =
            modes.into_iter().map(|l| (l.shape, l.stride)).unzip();
        Layout {
            shape: IntTuple::from_modes(shapes),
            stride: IntTuple::from_modes(strides),
        }
    }

    /// `(shape, stride)` of every leaf, depth first.
    pub fn leaves(&self) -> Vec<(i64, i64)> {
        self.shape
            .flatten()
            .into_iter()
            .zip(self.stride.flatten())
            .collect()
    }

    /// The offset of a 1-D index (outside the domain, the last mode extends).
    pub fn call(&self, idx: i64) -> i64 {
        crd2idx(&Int(idx), &self.shape, &self.stride).expect("a layout is congruent")
    }

    /// The offset of a coordinate.
    pub fn at(&self, coord: &IntTuple) -> Result<i64> {
        crd2idx(coord, &self.shape, &self.stride)
    }

    /// `L(i)` for every `i < size`.
    pub fn table(&self) -> Vec<i64> {
        (0..self.size()).map(|i| self.call(i)).collect()
    }

    // ----- coalesce and filter ----------------------------------------------

    /// Merges modes where possible without changing the function on its
    /// domain; the result has depth at most 1 (`coalesce`).
    pub fn coalesce(&self) -> Layout {
        let leaves = self.leaves();
        let (s, d) = *leaves.last().expect("a layout has a leaf");
        bw_coalesce(&leaves[..leaves.len() - 1], vec![(s, d)])
    }

    /// `coalesce(layout, profile)`: coalesce inside each mode the profile
    /// names; modes beyond the profile are kept.
    pub fn coalesce_by(&self, profile: &IntTuple) -> Result<Layout> {
        match profile {
            Int(_) => Ok(self.coalesce()),
            Tuple(p) => self.by_mode(p.len(), "coalesce", |l, i| l.coalesce_by(&p[i])),
        }
    }

    /// `coalesce_x`: like coalesce, but a trailing size-1 mode keeps the
    /// function defined outside the domain (`(4,1):(1,0)` stays `(4,2):(1,0)`).
    fn coalesce_x(&self) -> Layout {
        let leaves = self.leaves();
        let (s, d) = *leaves.last().expect("a layout has a leaf");
        let start = if s == 1 { 2 } else { s };
        bw_coalesce(&leaves[..leaves.len() - 1], vec![(start, d)])
    }

    /// Applies `f` to the first `n` modes and keeps the rest.
    fn by_mode(
        &self,
        n: usize,
        op: &str,
        f: impl Fn(&Layout, usize) -> Result<Layout>,
    ) -> Result<Layout> {
        if n > self.rank() {
            return Err(LayoutError::invalid(
                op,
                format!(
                    "the tiler has {n} modes but the layout {self} has {}",
                    self.rank()
                ),
            ));
        }
        let modes = self.modes();
        let mut out = Vec::with_capacity(modes.len());
        for (i, m) in modes.into_iter().enumerate() {
            out.push(if i < n { f(&m, i)? } else { m });
        }
        Ok(Layout::concat(out))
    }

    /// Removes stride-0 and size-1 modes, then coalesces (`filter`).
    pub fn filter(&self) -> Layout {
        let zeroed = Layout {
            shape: map_leaves2(&self.shape, &self.stride, &|s, d| {
                if d == 0 { 1 } else { s }
            }),
            stride: self.stride.clone(),
        };
        zeroed.coalesce()
    }

    // ----- composition ---------------------------------------------------------

    /// `composition(A, B)`: the layout `c ↦ A(B(c))` with B's mode structure.
    pub fn compose(&self, rhs: &Layout) -> Result<Layout> {
        let flat = self.coalesce_x();
        let result = composition_impl(&flat.leaves(), &rhs.shape, &rhs.stride)?;
        self.verify_composition(rhs, &result)?;
        Ok(result)
    }

    /// Composition with a tiler: by-mode (`<..>`, dropping modes of `self`
    /// the tiler does not reach), `_` (no-op), an integer `n` (`n:1`) or a layout.
    pub fn compose_tiler(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(l) => self.compose(l),
            Tiler::Modes(modes) => {
                if modes.len() > self.rank() {
                    return Err(LayoutError::invalid(
                        "composition",
                        format!(
                            "the tiler has {} modes but the layout {self} has {}",
                            modes.len(),
                            self.rank()
                        ),
                    ));
                }
                let out = modes
                    .iter()
                    .enumerate()
                    .map(|(i, t)| self.mode(i).compose_tiler(t))
                    .collect::<Result<_>>()?;
                Ok(Layout::concat(out))
            }
        }
    }

    /// C++ checks divisibility only weakly; a composition that is not the
    /// function `A ∘ B` is an error here, never a silent wrong answer.
    fn verify_composition(&self, rhs: &Layout, result: &Layout) -> Result<()> {
        let n = rhs.size();
        if n > 1 << 16 {
            return Ok(());
        }
        for i in 0..n {
            if result.call(i) != self.call(rhs.call(i)) {
                return Err(LayoutError::invalid(
                    "composition",
                    format!(
                        "{self} o {rhs} is not a layout: the strides of {rhs} do not divide the shape of {self}"
                    ),
                ));
            }
        }
        Ok(())
    }

    // ----- complement and inverses --------------------------------------------

    /// `complement(layout, cotarget)`: the layout of the offsets below
    /// `cotarget` that `self` does not reach, in order.
    pub fn complement(&self, cotarget: &IntTuple) -> Result<Layout> {
        let filtered = self.filter();
        let mut modes = filtered.leaves();
        if modes.len() == 1 && modes[0].1 == 0 {
            return Ok(Layout::leaf(cotarget.product(), 1).coalesce());
        }
        let mut result: Vec<(i64, i64)> = Vec::with_capacity(modes.len() + 1);
        let mut last_stride = 1i64;
        while let Some(k) = (0..modes.len()).min_by_key(|&k| modes[k].1) {
            let (s, d) = modes.remove(k);
            let new_shape = d / last_stride;
            if new_shape == 0 || d < 0 {
                return Err(LayoutError::invalid(
                    "complement",
                    format!("{self} is not injective (its modes overlap), so it has no complement"),
                ));
            }
            result.push((new_shape, last_stride));
            last_stride = d * s;
        }
        // The rest covers the whole cotarget: ceil(size / stride) (dividing
        // mode by mode would drop elements when a mode is not divisible).
        let size = cotarget.product();
        let rest = (size + last_stride - 1) / last_stride;
        result.push((rest, last_stride));
        Ok(Layout::concat(
            result
                .into_iter()
                .map(|(s, d)| Layout::leaf(s, d))
                .collect(),
        )
        .coalesce())
    }

    /// `complement(layout)` with cotarget `cosize(filter(layout))`.
    pub fn complement_default(&self) -> Result<Layout> {
        self.complement(&Int(self.filter().cosize()))
    }

    /// `right_inverse`: `self(R(i)) == i` for `i < size(R)`. Follows the
    /// strides from 1 through the modes that continue them (any position).
    pub fn right_inverse(&self) -> Layout {
        let flat = self.coalesce();
        let leaves = flat.leaves();
        let rstride = prefix_products(&leaves);
        let mut seq = Vec::new();
        let mut next = 1i64;
        while let Some(k) = leaves.iter().position(|&(_, d)| d.abs() == next) {
            seq.push(k);
            let after = leaves[k].0 * leaves[k].1.abs();
            if after == next {
                break;
            }
            next = after;
        }
        if seq.is_empty() {
            return Layout::leaf(1, 0);
        }
        Layout::from_modes(
            seq.into_iter()
                .map(|k| Layout::leaf(leaves[k].0, leaves[k].1.signum() * rstride[k]))
                .collect(),
        )
    }

    /// `left_inverse`: `L(self(i)) == i` for `i < size(self)`. Walks the
    /// modes by increasing stride; the gaps between them (offsets `self`
    /// never produces) map to 0.
    pub fn left_inverse(&self) -> Result<Layout> {
        let flat = self.coalesce();
        let leaves = flat.leaves();
        let rstride = prefix_products(&leaves);
        let mut used: Vec<usize> = (0..leaves.len())
            .filter(|&k| leaves[k].1 != 0 && leaves[k].0 > 1)
            .collect();
        used.sort_by_key(|&k| leaves[k].1.abs());
        if used.is_empty() {
            return Ok(Layout::leaf(1, 0));
        }
        let not_injective = || {
            LayoutError::invalid(
                "left_inverse",
                format!("{self} is not injective, so it has no left inverse"),
            )
        };
        let mut out = Vec::new();
        let first = leaves[used[0]].1.abs();
        if first > 1 {
            out.push(Layout::leaf(first, 0));
        }
        for (j, &k) in used.iter().enumerate() {
            let (s, d) = (leaves[k].0, leaves[k].1.abs());
            let shape = match used.get(j + 1) {
                Some(&next) => {
                    let nd = leaves[next].1.abs();
                    if nd < s * d || nd % d != 0 {
                        return Err(not_injective());
                    }
                    nd / d
                }
                None => s,
            };
            out.push(Layout::leaf(shape, leaves[k].1.signum() * rstride[k]));
        }
        Ok(Layout::from_modes(out))
    }

    // ----- divides and products ---------------------------------------------------

    /// `logical_divide(layout, tiler)`: `((tile),(rest))` per tiled mode.
    pub fn logical_divide(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(t) => {
                let rest = t.complement(&self.shape)?;
                self.compose(&Layout::concat(vec![t.clone(), rest]))
            }
            Tiler::Modes(modes) => self.by_mode(modes.len(), "logical_divide", |l, i| {
                l.logical_divide(&modes[i])
            }),
        }
    }

    /// `zipped_divide`: `((tiles...),(rests...))`.
    pub fn zipped_divide(&self, tiler: &Tiler) -> Result<Layout> {
        Ok(self.logical_divide(tiler)?.tile_unzip(tiler))
    }

    /// `tiled_divide`: `((tiles...),rest0,rest1,...)`.
    pub fn tiled_divide(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_divide(tiler)?;
        let mut modes = vec![z.mode(0)];
        modes.extend(z.mode(1).modes());
        Ok(Layout::concat(modes))
    }

    /// `flat_divide`: `(tile0,tile1,...,rest0,rest1,...)`.
    pub fn flat_divide(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_divide(tiler)?;
        let mut modes = z.mode(0).modes();
        modes.extend(z.mode(1).modes());
        Ok(Layout::concat(modes))
    }

    /// `logical_product(block, tiler)`: `(block, tiler over the complement of block)`.
    pub fn logical_product(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(t) => {
                let rest = self.complement(&Int(self.size() * t.cosize()))?;
                Ok(Layout::concat(vec![self.clone(), rest.compose(t)?]))
            }
            Tiler::Modes(modes) => self.by_mode(modes.len(), "logical_product", |l, i| {
                l.logical_product(&modes[i])
            }),
        }
    }

    /// `zipped_product`: `((block...),(repeats...))`.
    pub fn zipped_product(&self, tiler: &Tiler) -> Result<Layout> {
        Ok(self.logical_product(tiler)?.tile_unzip(tiler))
    }

    /// `tiled_product`: `((block...),repeat0,repeat1,...)`.
    pub fn tiled_product(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_product(tiler)?;
        let mut modes = vec![z.mode(0)];
        modes.extend(z.mode(1).modes());
        Ok(Layout::concat(modes))
    }

    /// `flat_product`: `(block0,block1,...,repeat0,repeat1,...)`.
    pub fn flat_product(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_product(tiler)?;
        let mut modes = z.mode(0).modes();
        modes.extend(z.mode(1).modes());
        Ok(Layout::concat(modes))
    }

    /// `blocked_product`: the block repeated over the tiler, mode by mode
    /// `((block_i, tiler_i), ...)`.
    pub fn blocked_product(&self, tiler: &Layout) -> Result<Layout> {
        let (block, repeats) = self.rank_matched_product(tiler)?;
        Ok(Layout::concat(
            block
                .into_iter()
                .zip(repeats)
                .map(|(b, t)| Layout::concat(vec![b, t]))
                .collect(),
        ))
    }

    /// `raked_product`: the repeats interleaved, `((tiler_i, block_i), ...)`.
    pub fn raked_product(&self, tiler: &Layout) -> Result<Layout> {
        let (block, repeats) = self.rank_matched_product(tiler)?;
        Ok(Layout::concat(
            block
                .into_iter()
                .zip(repeats)
                .map(|(b, t)| Layout::concat(vec![t, b]))
                .collect(),
        ))
    }

    fn rank_matched_product(&self, tiler: &Layout) -> Result<(Vec<Layout>, Vec<Layout>)> {
        let r = self.rank().max(tiler.rank());
        let pad = |l: &Layout| {
            let mut m = l.modes();
            m.resize(r, Layout::leaf(1, 0));
            Layout::concat(m)
        };
        let product = pad(self).logical_product(&Tiler::Layout(pad(tiler)))?;
        Ok((product.mode(0).modes(), product.mode(1).modes()))
    }

    /// `tile_unzip`: gathers the `(tile, rest)` pairs of a by-mode divide or
    /// product into `((tiles...), (rests..., untouched modes...))`.
    fn tile_unzip(&self, tiler: &Tiler) -> Layout {
        match tiler {
            Tiler::Modes(modes) => {
                let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
                for (i, m) in self.modes().into_iter().enumerate() {
                    if i < modes.len() {
                        let z = m.tile_unzip(&modes[i]);
                        firsts.push(z.mode(0));
                        seconds.push(z.mode(1));
                    } else {
                        seconds.push(m);
                    }
                }
                Layout::concat(vec![Layout::concat(firsts), Layout::concat(seconds)])
            }
            _ => self.clone(),
        }
    }
}

/// `(s, d)` leaves, merged backwards as CuTe's `bw_coalesce`: size-1 modes
/// vanish and `s0:d0 ++ s1:s0·d0` becomes `s0·s1:d0`.
fn bw_coalesce(old: &[(i64, i64)], mut new: Vec<(i64, i64)>) -> Layout {
    for &(s, d) in old.iter().rev() {
        if s == 1 {
            continue;
        }
        if new.len() == 1 && new[0].0 == 1 {
            new[0] = (s, d);
        } else if s * d == new[0].1 {
            new[0] = (s * new[0].0, d);
        } else {
            new.insert(0, (s, d));
        }
    }
    if new.len() == 1 && new[0].0 == 1 {
        return Layout::leaf(1, 0);
    }
    Layout::from_modes(new.into_iter().map(|(s, d)| Layout::leaf(s, d)).collect())
}

/// CuTe's `shape_div` of integers, which requires one to divide the other.
fn shape_div(a: i64, b: i64) -> Result<i64> {
    if b != 0 && a % b == 0 {
        Ok(a / b)
    } else if a != 0 && b % a == 0 {
        Ok(a.signum() * b.signum())
    } else {
        Err(LayoutError::invalid(
            "composition",
            format!("{a} and {b} do not divide one another"),
        ))
    }
}

fn map_leaves2(a: &IntTuple, b: &IntTuple, f: &impl Fn(i64, i64) -> i64) -> IntTuple {
    match (a, b) {
        (Int(x), Int(y)) => Int(f(*x, *y)),
        (Tuple(x), Tuple(y)) => Tuple(x.iter().zip(y).map(|(p, q)| map_leaves2(p, q, f)).collect()),
        _ => a.clone(),
    }
}

/// Column-major strides of flat leaves, ignoring size-1 rules.
fn prefix_products(leaves: &[(i64, i64)]) -> Vec<i64> {
    let mut acc = 1;
    leaves
        .iter()
        .map(|&(s, _)| {
            let r = acc;
            acc *= s;
            r
        })
        .collect()
}

/// `composition_impl(lhs, rhs)`: `lhs` flat leaves, `rhs` any layout.
fn composition_impl(lhs: &[(i64, i64)], rs: &IntTuple, rd: &IntTuple) -> Result<Layout> {
    match (rs, rd) {
        (Tuple(ss), Tuple(ds)) => {
            let modes = ss
                .iter()
                .zip(ds)
                .map(|(s, d)| composition_impl(lhs, s, d))
                .collect::<Result<_>>()?;
            Ok(Layout::concat(modes))
        }
        (Int(s), Int(d)) => {
            let (s, d) = (*s, *d);
            if d == 0 {
                return Ok(Layout::leaf(s, 0));
            }
            if lhs.len() == 1 {
                return Ok(Layout::leaf(s, d * lhs[0].1));
            }
            let (init, last) = lhs.split_at(lhs.len() - 1);
            // Divide out the rhs stride from the lhs shape.
            let mut rest_stride = d;
            let mut shape1 = Vec::with_capacity(init.len());
            let mut stride1 = Vec::with_capacity(init.len());
            for &(si, di) in init {
                let new_s = if d == 1 {
                    si
                } else {
                    shape_div(si, rest_stride)?
                };
                stride1.push(if d == 1 { di } else { di * (si / new_s.max(1)) });
                shape1.push(new_s);
                if d != 1 {
                    rest_stride = shape_div(rest_stride, si)?;
                }
            }
            // Mod out the rhs shape.
            let mut rest_shape = s;
            let mut shape2 = Vec::with_capacity(init.len());
            for &si in &shape1 {
                let a = si.abs();
                // Whole modes are consumed while they divide what is left;
                // the last one may be cut short (its first elements).
                if rest_shape % a != 0 && rest_shape > a {
                    return Err(LayoutError::invalid(
                        "composition",
                        format!("the shape {s} does not divide along modes of size {a}"),
                    ));
                }
                shape2.push(a.min(rest_shape));
                rest_shape = if rest_shape <= a { 1 } else { rest_shape / a };
            }
            let old: Vec<(i64, i64)> = shape2.into_iter().zip(stride1).collect();
            let tail_stride = if d == 1 {
                last[0].1
            } else {
                rest_stride * last[0].1
            };
            Ok(bw_coalesce(&old, vec![(rest_shape, tail_stride)]))
        }
        _ => Err(LayoutError::invalid(
            "composition",
            format!("shape {rs} and stride {rd} are not congruent"),
        )),
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

/// What a layout is divided by, multiplied by or composed with: a layout,
/// `_`, or a by-mode tiler `<t0,t1,...>` (a bare integer `n` is `n:1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tiler {
    Layout(Layout),
    Underscore,
    Modes(Vec<Tiler>),
}

impl Tiler {
    /// Parses `<3:3,(2,4):(1,8)>`, `<3,8>`, `_`, or a layout.
    pub fn parse(text: &str) -> Result<Tiler> {
        let mut p = Parser::new(text);
        let t = p.tiler()?;
        p.end()?;
        Ok(t)
    }
}

impl fmt::Display for Tiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Underscore => write!(f, "_"),
            Tiler::Modes(m) => {
                write!(f, "<")?;
                for (i, t) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ">")
            }
        }
    }
}

/// `Swizzle<B,M,S>`: `x ^ ((x & mask) >> S)` with `mask` the `B` bits above
/// `M + max(0,S)`; a negative `S` shifts left. GF(2)-linear in `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    pub bits: u32,
    pub base: u32,
    pub shift: i32,
}

impl Swizzle {
    pub fn new(bits: u32, base: u32, shift: i32) -> Result<Swizzle> {
        if shift.unsigned_abs() < bits {
            return Err(LayoutError::invalid(
                "Swizzle",
                format!(
                    "Sw<{bits},{base},{shift}> needs |S| >= B so the bits it reads and writes do not overlap"
                ),
            ));
        }
        if bits + base + shift.unsigned_abs() > 62 {
            return Err(LayoutError::invalid(
                "Swizzle",
                format!("Sw<{bits},{base},{shift}> reaches past 62 bits"),
            ));
        }
        Ok(Swizzle { bits, base, shift })
    }

    /// The bits read (the `yyy` mask).
    pub fn mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i64 + self.shift.max(0) as i64)
    }

    pub fn apply(&self, x: i64) -> i64 {
        let m = x & self.mask();
        if self.shift >= 0 {
            x ^ (m >> self.shift)
        } else {
            x ^ (m << -self.shift)
        }
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// `Swizzle o offset o Layout` (CuTe's `ComposedLayout`): offsets are
/// `swizzle(offset + layout(c))`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledLayout {
    pub swizzle: Swizzle,
    pub offset: i64,
    pub layout: Layout,
}

impl SwizzledLayout {
    pub fn call(&self, idx: i64) -> i64 {
        self.swizzle.apply(self.offset + self.layout.call(idx))
    }

    pub fn table(&self) -> Vec<i64> {
        (0..self.layout.size()).map(|i| self.call(i)).collect()
    }

    /// Parses `Sw<3,4,3> o (8,64):(64,1)` or `Sw<3,4,3> o 0 o (8,64):(64,1)`.
    pub fn parse(text: &str) -> Result<SwizzledLayout> {
        let mut p = Parser::new(text);
        let s = p.swizzled()?;
        p.end()?;
        Ok(s)
    }
}

impl fmt::Display for SwizzledLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.swizzle, self.offset, self.layout)
    }
}

/// A small recursive-descent reader for CuTe's printed notation.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn error(&self, expected: &str) -> LayoutError {
        let rest: String = self.text[self.pos..].chars().take(12).collect();
        LayoutError::invalid(
            format!("CuTe notation '{}'", self.text),
            format!(
                "expected {expected} at byte {}{}",
                self.pos,
                if rest.is_empty() {
                    String::new()
                } else {
                    format!(" (found '{rest}')")
                }
            ),
        )
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.pos += c.len_utf8();
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("'{c}'")))
        }
    }

    fn end(&mut self) -> Result<()> {
        if self.peek().is_some() {
            Err(self.error("the end"))
        } else {
            Ok(())
        }
    }

    fn integer(&mut self) -> Result<i64> {
        self.skip_ws();
        let start = self.pos;
        if self.text[self.pos..].starts_with('-') {
            self.pos += 1;
        }
        // CuTe prints static integers with a leading underscore: `_4`, and
        // `_-1` for a negative one.
        let rest = &self.text[self.pos..];
        if rest.starts_with('_') && rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        } else if start == self.pos
            && rest.starts_with("_-")
            && rest[2..].starts_with(|c: char| c.is_ascii_digit())
        {
            self.pos += 2;
        }
        let digits = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == digits {
            self.pos = start;
            return Err(self.error("an integer"));
        }
        let s = self.text[start..self.pos].replace('_', "");
        s.parse().map_err(|_| {
            self.pos = start;
            self.error("an integer that fits 64 bits")
        })
    }

    fn int_tuple(&mut self) -> Result<IntTuple> {
        if self.eat('(') {
            let mut items = vec![self.int_tuple()?];
            while self.eat(',') {
                items.push(self.int_tuple()?);
            }
            self.expect(')')?;
            Ok(Tuple(items))
        } else {
            Ok(Int(self.integer()?))
        }
    }

    fn layout(&mut self) -> Result<Layout> {
        let shape = self.int_tuple()?;
        if self.eat(':') {
            let stride = self.int_tuple()?;
            Layout::new(shape, stride)
        } else {
            Layout::column_major(shape)
        }
    }

    fn tiler(&mut self) -> Result<Tiler> {
        if self.eat('<') {
            let mut items = vec![self.tiler()?];
            while self.eat(',') {
                items.push(self.tiler()?);
            }
            self.expect('>')?;
            Ok(Tiler::Modes(items))
        } else if self.peek() == Some('_')
            && !self.text[self.pos + 1..].starts_with(|c: char| c.is_ascii_digit())
        {
            self.pos += 1;
            Ok(Tiler::Underscore)
        } else {
            let shape = self.int_tuple()?;
            if self.eat(':') {
                Ok(Tiler::Layout(Layout::new(shape, self.int_tuple()?)?))
            } else if let Int(n) = shape {
                Ok(Tiler::Layout(Layout::new(Int(n), Int(1))?))
            } else {
                Ok(Tiler::Layout(Layout::column_major(shape)?))
            }
        }
    }

    fn swizzled(&mut self) -> Result<SwizzledLayout> {
        self.skip_ws();
        if !self.text[self.pos..].starts_with("Sw<") {
            return Err(self.error("'Sw<B,M,S>'"));
        }
        self.pos += 3;
        let b = self.integer()?;
        self.expect(',')?;
        let m = self.integer()?;
        self.expect(',')?;
        let s = self.integer()?;
        self.expect('>')?;
        let (Ok(b), Ok(m), Ok(s)) = (u32::try_from(b), u32::try_from(m), i32::try_from(s)) else {
            return Err(self.error("small non-negative B and M"));
        };
        let swizzle = Swizzle::new(b, m, s)?;
        self.expect('o')?;
        // Either `offset o layout` or just `layout`.
        let save = self.pos;
        let mut offset = 0;
        if let Ok(n) = self.integer() {
            if self.eat('o') {
                offset = n;
            } else {
                self.pos = save;
            }
        }
        let layout = self.layout()?;
        Ok(SwizzledLayout {
            swizzle,
            offset,
            layout,
        })
    }
}
