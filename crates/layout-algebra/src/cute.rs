//! CuTe layouts (seed 004; CUTLASS `cute/layout.hpp`), with the semantics of
//! the C++ headers of CUTLASS 4.x (checked against the 4.2 headers by
//! `tests/vectors/cute/cpp_vectors.tsv`), every integer taken as static.
//!
//! A layout is a hierarchical `shape:stride` pair of congruent integer tuples
//! (`((4,2),4):((8,4),1)`): it maps a coordinate, or a 1-D index walked
//! column-major (first mode fastest), to `Σ cᵢ·dᵢ`. On top of that: coalesce,
//! filter, composition (also by-mode tilers `<3:3,(2,4):(1,8)>` and `_`),
//! complement, left and right inverses, the divides and products,
//! `tile_to_shape`, and `Swizzle<B,M,S>` with swizzled layouts (C++'s
//! `ComposedLayout`, whose operations apply to the inner layout).
//!
//! Where the C++ `static_assert`s, these functions return a
//! [`LayoutError`]; where C++'s divisibility check is too weak to catch a
//! wrong composition, the result is verified point by point and rejected.

use std::fmt;

use crate::error::{LayoutError, Result};

pub mod atom;
mod cast;
pub mod coord;
pub mod copy_cost;
pub mod partition;
pub mod slice;
mod swizzle_ops;
pub use swizzle_ops::{LayoutAfterSwizzle, SwizzledInverse};
pub mod tiled;

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
    compact_col_major_from(shape, 1)
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
                            // C++'s `%` and `/`, which truncate: a negative
                            // index (an offset below a swizzle) splits as
                            // C++ splits it. A mode of size 0 has no index.
                            let size = s.product();
                            let c = rest.checked_rem(size).unwrap_or(rest);
                            rest = rest.checked_div(size).unwrap_or(0);
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
    /// A layout from congruent shape and stride; shapes must not be
    /// negative. A mode of size 0 makes a layout of size 0 (C++ allows it:
    /// `(4,0):(1,4)` has size and cosize 0).
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout> {
        if !shape.congruent(&stride) {
            return Err(LayoutError::invalid(
                "layout",
                format!("shape {shape} and stride {stride} are not congruent"),
            ));
        }
        if let Some(s) = shape.flatten().into_iter().find(|&s| s < 0) {
            return Err(LayoutError::invalid(
                "layout",
                format!("shape {shape} has a negative mode {s}"),
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

    /// A by-mode tiler of `n` modes reaches no mode `self` lacks.
    fn tiler_fits(&self, n: usize, op: &str) -> Result<()> {
        if n > self.rank() {
            return Err(LayoutError::invalid(
                op,
                format!(
                    "the tiler has {n} modes but the layout {self} has {}",
                    self.rank()
                ),
            ));
        }
        Ok(())
    }

    /// Applies `f` to the first `n` modes and keeps the rest.
    fn by_mode(
        &self,
        n: usize,
        op: &str,
        f: impl Fn(&Layout, usize) -> Result<Layout>,
    ) -> Result<Layout> {
        self.tiler_fits(n, op)?;
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

    /// `composition(A, B)`: the layout `c ↦ A(B(c))` with B's mode structure,
    /// built as CUTLASS 4.x builds it (`A` past its size extends along its
    /// last mode). Refused where C++ `static_assert`s, and where C++'s check
    /// lets through a layout that is not `A ∘ B` (verified point by point).
    pub fn compose(&self, rhs: &Layout) -> Result<Layout> {
        let flat = self.coalesce_x();
        let result = composition_impl(self, rhs, &flat.leaves(), &rhs.shape, &rhs.stride)?;
        self.verify_composition(rhs, &result)?;
        Ok(result)
    }

    /// `composition(A, B)` with A's modes already flattened and merged as
    /// C++ would merge them: where some of A's strides are only known at
    /// run time, C++ merges no mode next to one of them.
    pub(crate) fn compose_flat(&self, leaves: &[(i64, i64)], rhs: &Layout) -> Result<Layout> {
        let result = composition_impl(self, rhs, leaves, &rhs.shape, &rhs.stride)?;
        self.verify_composition(rhs, &result)?;
        Ok(result)
    }

    /// What C++'s `composition` returns, also where that is not `A ∘ B`
    /// (C++ checks divisibility only where it can statically): the layout,
    /// and why it is not the composition when it is not.
    pub fn compose_as_cpp(&self, rhs: &Layout) -> Result<(Layout, Option<String>)> {
        let flat = self.coalesce_x();
        let result = composition_impl(self, rhs, &flat.leaves(), &rhs.shape, &rhs.stride)?;
        let why = self
            .verify_composition(rhs, &result)
            .err()
            .map(|e| e.to_string());
        Ok((result, why))
    }

    /// [`Layout::compose_as_cpp`] with a tiler (by mode, `_`, an integer).
    pub fn compose_tiler_as_cpp(&self, tiler: &Tiler) -> Result<(Layout, Option<String>)> {
        match tiler {
            Tiler::Underscore => Ok((self.clone(), None)),
            Tiler::Layout(l) => self.compose_as_cpp(l),
            Tiler::Int(n) => self.compose_as_cpp(&Layout::new(Int(*n), Int(1))?),
            Tiler::Modes(modes) => {
                self.tiler_fits(modes.len(), "composition")?;
                let mut why = None;
                let mut out = Vec::with_capacity(modes.len());
                for (i, t) in modes.iter().enumerate() {
                    let (m, w) = self.mode(i).compose_tiler_as_cpp(t)?;
                    out.push(m);
                    why = why.or(w);
                }
                Ok((Layout::concat(out), why))
            }
        }
    }

    /// Composition with a tiler: by-mode (`<..>`, dropping modes of `self`
    /// the tiler does not reach), `_` (no-op), an integer `n` (`n:1`) or a layout.
    pub fn compose_tiler(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(l) => self.compose(l),
            Tiler::Int(n) => self.compose(&Layout::new(Int(*n), Int(1))?),
            Tiler::Modes(modes) => {
                self.tiler_fits(modes.len(), "composition")?;
                let out = modes
                    .iter()
                    .enumerate()
                    .map(|(i, t)| self.mode(i).compose_tiler(t))
                    .collect::<Result<_>>()?;
                Ok(Layout::concat(out))
            }
        }
    }

    /// C++ checks divisibility only where it cannot go wrong statically; a
    /// result that is not the function `A ∘ B` is an error here, never a
    /// silent wrong answer.
    fn verify_composition(&self, rhs: &Layout, result: &Layout) -> Result<()> {
        let n = rhs.size();
        if n > 1 << 16 {
            return Ok(());
        }
        for i in 0..n {
            let want = self.call(rhs.call(i));
            let got = result.call(i);
            if got != want {
                return Err(LayoutError::invalid(
                    "composition",
                    format!(
                        "{self} o {rhs} is not a layout: CuTe's rule gives {result}, \
                         which maps {i} to {got}, but {self} maps {rhs}({i}) = {} to {want}",
                        rhs.call(i)
                    ),
                ));
            }
        }
        Ok(())
    }

    // ----- complement and inverses --------------------------------------------

    /// `complement(layout, cotarget)`: the layout of the offsets below
    /// `cotarget` that `self` does not reach, in order (CUTLASS 4.x: filter,
    /// then take the modes by increasing stride; each must start where the
    /// previous one ends or later).
    pub fn complement(&self, cotarget: &IntTuple) -> Result<Layout> {
        if self.size() == 0 {
            return Err(empty_mode("complement", self));
        }
        if cotarget.rank() > 1 && cotarget.flatten().contains(&0) {
            return Err(LayoutError::invalid(
                "complement",
                format!("the cotarget {cotarget} has a mode of size 0, and C++ divides by it"),
            ));
        }
        let filtered = self.filter();
        let mut modes = filtered.leaves();
        if modes.len() == 1 && modes[0].1 == 0 {
            return Layout::column_major(Int(cotarget.product()));
        }
        if let Some(&(s, d)) = modes.iter().find(|m| m.1 < 0) {
            return Err(LayoutError::invalid(
                "complement",
                format!(
                    "{self} has the negative stride {d} (mode {s}:{d}); CuTe's complement \
                     would build a negative shape from it"
                ),
            ));
        }
        let mut shapes: Vec<i64> = Vec::with_capacity(modes.len() + 1);
        let mut strides: Vec<i64> = vec![1];
        // The mode taken last, as (shape, stride), for the message.
        let mut prev: Option<(i64, i64)> = None;
        while !modes.is_empty() {
            // The first mode with the least stride.
            let k = (0..modes.len())
                .min_by_key(|&k| modes[k].1)
                .expect("modes is not empty");
            let (s, d) = modes.remove(k);
            let last = *strides.last().expect("strides starts with 1");
            if d / last == 0 {
                let (ps, pd) = prev.expect("the first stride is at least 1");
                return Err(LayoutError::invalid(
                    "complement",
                    format!(
                        "{self} has no complement: taken by increasing stride, its mode {s}:{d} \
                         starts at {d}, inside the mode {ps}:{pd}, which ends at {last} = {ps}*{pd} \
                         (CuTe needs each stride to be at least the previous stride times its shape){}",
                        self.injectivity_note()
                    ),
                ));
            }
            shapes.push(d / last);
            strides.push(mul(d, s)?);
            prev = Some((s, d));
        }
        let new_stride = strides.pop().expect("one stride per mode and one more");
        let rest_shape = ceil_div_tuple(cotarget, new_stride).product();
        let rest_stride = if rest_shape == 1 { 0 } else { new_stride };
        let mut all: Vec<Layout> = shapes
            .into_iter()
            .zip(strides)
            .map(|(s, d)| Layout::leaf(s, d))
            .collect();
        all.push(Layout::leaf(rest_shape, rest_stride));
        let result = Layout::concat(all).coalesce();
        Layout::new(result.shape, result.stride)
    }

    /// A note that the layout is not injective, when that is so (and cheap
    /// to tell), so a refusal never claims more than is true.
    fn injectivity_note(&self) -> &'static str {
        match self.is_injective() {
            Some(false) => " (the layout is also not injective)",
            _ => "",
        }
    }

    /// Whether distinct indices map to distinct offsets, for layouts of at
    /// most 2^16 elements (`None` above that).
    pub fn is_injective(&self) -> Option<bool> {
        if self.size() > 1 << 16 {
            return None;
        }
        let mut seen = std::collections::HashSet::new();
        Some(self.table().into_iter().all(|x| seen.insert(x)))
    }

    /// `complement(layout)` with cotarget `cosize(filter(layout))`.
    pub fn complement_default(&self) -> Result<Layout> {
        self.complement(&Int(self.filter().cosize()))
    }

    /// `right_inverse` (CUTLASS 4.x): `self(R(i)) == i` for `i < size(R)`.
    /// Coalesce, sort the modes by stride, and follow the strides from 1
    /// through the modes that continue them exactly.
    pub fn right_inverse(&self) -> Layout {
        let flat = self.coalesce();
        let leaves = flat.leaves();
        let preprod = prefix_products(&leaves);
        let mut shapes = vec![1];
        let mut strides = vec![0];
        let mut curr = 1i64;
        for k in sort_by_stride(&leaves) {
            let (s, d) = leaves[k];
            if d == curr {
                shapes.push(s);
                strides.push(preprod[k]);
                curr = s.saturating_mul(d);
            }
        }
        Layout::concat(
            shapes
                .into_iter()
                .zip(strides)
                .map(|(s, d)| Layout::leaf(s, d))
                .collect(),
        )
        .coalesce()
    }

    /// `left_inverse` (CUTLASS 4.x; a quasi-inverse when `self` is not
    /// injective): `self(L(self(i))) == self(i)` for `i < size(self)`, and
    /// `L(self(i)) == i` when `self` is injective. Coalesce, sort the modes by
    /// stride; stride-0 modes are skipped; each stride must be a multiple of
    /// the product of the shapes built so far.
    pub fn left_inverse(&self) -> Result<Layout> {
        let flat = self.coalesce();
        let leaves = flat.leaves();
        let preprod = prefix_products(&leaves);
        let sorted = sort_by_stride(&leaves);
        let mut shapes: Vec<i64> = Vec::new();
        let mut strides = vec![0i64];
        let mut built = 1i64;
        // The mode taken last, as (shape, stride), for the message.
        let mut prev: Option<(i64, i64)> = None;
        for &k in &sorted {
            let (s, d) = leaves[k];
            if d == 0 {
                continue;
            }
            // C++ computes with signed values: a negative stride first makes
            // a negative shape, which is refused below.
            if d % built != 0 {
                let (ps, pd) = prev.expect("every stride is a multiple of 1");
                return Err(LayoutError::invalid(
                    "left_inverse",
                    format!(
                        "{self} has no left inverse: taken by increasing stride, its mode {s}:{d} \
                         has a stride that is not a multiple of {pd}, the stride of the mode \
                         {ps}:{pd} before it (CuTe's left inverse divisibility condition){}",
                        self.injectivity_note()
                    ),
                ));
            }
            shapes.push(d / built);
            strides.push(preprod[k]);
            built = d;
            prev = Some((s, d));
        }
        if let Some(&(s, d)) = leaves.iter().find(|l| l.1 < 0) {
            return Err(LayoutError::invalid(
                "left_inverse",
                format!(
                    "{self} has the negative stride {d} (mode {s}:{d}); CuTe's left_inverse \
                     builds a negative shape from it, which is no layout"
                ),
            ));
        }
        let last = *sorted.last().expect("a layout has a leaf");
        shapes.push(leaves[last].0);
        let result = Layout::concat(
            shapes
                .into_iter()
                .zip(strides)
                .map(|(s, d)| Layout::leaf(s, d))
                .collect(),
        )
        .coalesce();
        Layout::new(result.shape, result.stride)
    }

    // ----- divides and products ---------------------------------------------------

    /// `logical_divide(layout, tiler)`: `((tile),(rest))` per tiled mode.
    pub fn logical_divide(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(t) => {
                let rest = t.complement(&self.coalesce().shape)?;
                self.compose(&Layout::concat(vec![t.clone(), rest]))
            }
            Tiler::Int(n) => self.logical_divide(&Tiler::Layout(Layout::column_major(Int(*n))?)),
            Tiler::Modes(modes) => self.by_mode(modes.len(), "logical_divide", |l, i| {
                l.logical_divide(&modes[i])
            }),
        }
    }

    /// `zipped_divide`: `((tiles...),(rests...))`.
    pub fn zipped_divide(&self, tiler: &Tiler) -> Result<Layout> {
        self.logical_divide(tiler)?
            .tile_unzip(tiler, "zipped_divide")
    }

    /// `tiled_divide`: `((tiles...),rest0,rest1,...)`.
    pub fn tiled_divide(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_divide(tiler)?;
        let mut modes = vec![z.mode(0)];
        modes.extend(z.mode(1).unpacked());
        Ok(Layout::concat(modes))
    }

    /// `flat_divide`: `(tile0,tile1,...,rest0,rest1,...)`.
    pub fn flat_divide(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_divide(tiler)?;
        let mut modes = z.mode(0).unpacked();
        modes.extend(z.mode(1).unpacked());
        Ok(Layout::concat(modes))
    }

    /// The modes a slice `(_,_,...)` with one `_` per mode brings up: C++
    /// slices a rank-1 mode with a single `_`, which keeps it whole.
    fn unpacked(&self) -> Vec<Layout> {
        if self.rank() == 1 {
            vec![self.clone()]
        } else {
            self.modes()
        }
    }

    /// `logical_product(block, tiler)` with a coordinate layout as the
    /// tiler, as C++ computes it: its cosize is its co-shape's size, and its
    /// basis strides select modes of the complement.
    pub fn logical_product_coord(&self, tiler: &coord::CoordLayout) -> Result<Layout> {
        let rest = self.complement(&Int(mul(self.size(), tiler.cosize())?))?;
        Ok(Layout::concat(vec![
            self.clone(),
            tiler.composed_after(&rest)?,
        ]))
    }

    /// `zipped_product`, `tiled_product` or `flat_product` (`op`) by a
    /// coordinate layout.
    pub fn product_by_coord(&self, tiler: &coord::CoordLayout, op: &str) -> Result<Layout> {
        let z = self.logical_product_coord(tiler)?;
        Ok(match op {
            "logical_product" | "zipped_product" => z,
            "tiled_product" => {
                let mut modes = vec![z.mode(0)];
                modes.extend(z.mode(1).unpacked());
                Layout::concat(modes)
            }
            "flat_product" => {
                let mut modes = z.mode(0).unpacked();
                modes.extend(z.mode(1).unpacked());
                Layout::concat(modes)
            }
            other => {
                return Err(LayoutError::invalid(
                    other,
                    "C++ computes no such product by a coordinate layout".to_string(),
                ));
            }
        })
    }

    /// `logical_product(block, tiler)`: `(block, tiler over the complement of block)`.
    pub fn logical_product(&self, tiler: &Tiler) -> Result<Layout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(t) => {
                if t.cosize() < 0 {
                    // Only a layout of size 0 has one: (s-1)*|d| summed.
                    return Err(LayoutError::invalid(
                        "logical_product",
                        format!(
                            "{t} has size 0 and the cosize {}; C++ goes on with a complement of \
                             negative shape, which layoutc does not build",
                            t.cosize()
                        ),
                    ));
                }
                let rest = self.complement(&Int(mul(self.size(), t.cosize())?))?;
                Ok(Layout::concat(vec![self.clone(), rest.compose(t)?]))
            }
            Tiler::Int(n) => self.logical_product(&Tiler::Layout(Layout::column_major(Int(*n))?)),
            Tiler::Modes(modes) => self.by_mode(modes.len(), "logical_product", |l, i| {
                l.logical_product(&modes[i])
            }),
        }
    }

    /// `zipped_product`: `((block...),(repeats...))`.
    pub fn zipped_product(&self, tiler: &Tiler) -> Result<Layout> {
        self.logical_product(tiler)?
            .tile_unzip(tiler, "zipped_product")
    }

    /// `tiled_product`: `((block...),repeat0,repeat1,...)`.
    pub fn tiled_product(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_product(tiler)?;
        let mut modes = vec![z.mode(0)];
        modes.extend(z.mode(1).unpacked());
        Ok(Layout::concat(modes))
    }

    /// `flat_product`: `(block0,block1,...,repeat0,repeat1,...)`.
    pub fn flat_product(&self, tiler: &Tiler) -> Result<Layout> {
        let z = self.zipped_product(tiler)?;
        let mut modes = z.mode(0).unpacked();
        modes.extend(z.mode(1).unpacked());
        Ok(Layout::concat(modes))
    }

    /// `blocked_product`: the block repeated over the tiler, mode by mode
    /// `((block_i, tiler_i), ...)`.
    pub fn blocked_product(&self, tiler: &Layout) -> Result<Layout> {
        let (block, repeats) = self.rank_matched_product(tiler)?;
        zip2(&block, &repeats, "blocked_product")
    }

    /// `raked_product`: the repeats interleaved, `((tiler_i, block_i), ...)`.
    pub fn raked_product(&self, tiler: &Layout) -> Result<Layout> {
        let (block, repeats) = self.rank_matched_product(tiler)?;
        zip2(&repeats, &block, "raked_product")
    }

    /// `logical_product` of the operands padded with `1:0` modes to a common
    /// rank (C++'s `append<R>`, which leaves a rank-1 layout as it is).
    fn rank_matched_product(&self, tiler: &Layout) -> Result<(Layout, Layout)> {
        let r = self.rank().max(tiler.rank());
        let pad = |l: &Layout| {
            if l.rank() == r {
                return l.clone();
            }
            let mut m = l.modes();
            m.resize(r, Layout::leaf(1, 0));
            Layout::concat(m)
        };
        let product = pad(self).logical_product(&Tiler::Layout(pad(tiler)))?;
        Ok((product.mode(0), product.mode(1)))
    }

    /// `tile_to_shape(block, shape, order)`: the block repeated (a
    /// `blocked_product`) until it has the target shape; the repeats are laid
    /// out column-major, or in `order` (CuTe's `Step`: the mode with the
    /// smallest order repeats fastest). Each mode of the block must divide the
    /// target's mode.
    pub fn tile_to_shape(&self, target: &IntTuple, order: Option<&IntTuple>) -> Result<Layout> {
        let r = target.rank();
        if self.rank() > r {
            return Err(LayoutError::invalid(
                "tile_to_shape",
                format!(
                    "the block {self} has {} modes but the target shape {target} has {r}",
                    self.rank()
                ),
            ));
        }
        let padded = if self.rank() == r {
            self.clone()
        } else {
            let mut block_modes = self.modes();
            block_modes.resize(r, Layout::leaf(1, 0));
            Layout::concat(block_modes)
        };
        let block_shape: Vec<i64> = padded.modes().iter().map(Layout::size).collect();
        let target_shape: Vec<i64> = target.modes().iter().map(IntTuple::product).collect();
        for (i, (&t, &b)) in target_shape.iter().zip(&block_shape).enumerate() {
            if b == 0 {
                return Err(empty_mode("tile_to_shape", self));
            }
            if t % b != 0 {
                return Err(LayoutError::invalid(
                    "tile_to_shape",
                    format!(
                        "mode {i} of the block {self} has {b} elements, which does not divide \
                         the target's {t} (target shape {target})"
                    ),
                ));
            }
        }
        let product_shape = Tuple(
            target_shape
                .iter()
                .zip(&block_shape)
                .map(|(&t, &b)| Int(t / b))
                .collect(),
        );
        let repeats = match order {
            None => Layout::column_major(product_shape)?,
            Some(o) => Layout::new(product_shape.clone(), compact_order(&product_shape, o)?)?,
        };
        padded.blocked_product(&repeats)
    }

    /// `tile_unzip`: gathers the `(tile, rest)` pairs of a by-mode divide or
    /// product into `((tiles...), (rests..., untouched modes...))`.
    fn tile_unzip(&self, tiler: &Tiler, op: &str) -> Result<Layout> {
        match tiler {
            Tiler::Modes(modes) => {
                let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
                for (i, m) in self.modes().into_iter().enumerate() {
                    if i < modes.len() {
                        let z = m.tile_unzip(&modes[i], op)?;
                        firsts.push(z.mode(0));
                        seconds.push(z.mode(1));
                    } else {
                        seconds.push(m);
                    }
                }
                Ok(Layout::concat(vec![
                    Layout::concat(firsts),
                    Layout::concat(seconds),
                ]))
            }
            _ => match &self.shape {
                Tuple(v) if v.len() == 2 => Ok(self.clone()),
                _ => Err(LayoutError::invalid(
                    op,
                    format!(
                        "the mode {self} (left alone by `{tiler}`) is not a (tile, rest) pair, \
                         so CuTe cannot unzip it"
                    ),
                )),
            },
        }
    }
}

/// CuTe's `zip(a, b)` of two layouts: `((a0,b0),(a1,b1),...)`, or `((a,b))`
/// when `a` has a single unnested mode.
fn zip2(a: &Layout, b: &Layout, op: &str) -> Result<Layout> {
    match (&a.shape, &b.shape) {
        (Int(_), _) => Ok(Layout::concat(vec![Layout::concat(vec![
            a.clone(),
            b.clone(),
        ])])),
        (Tuple(x), Tuple(y)) if x.len() == y.len() => Ok(Layout::concat(
            a.modes()
                .into_iter()
                .zip(b.modes())
                .map(|(m, n)| Layout::concat(vec![m, n]))
                .collect(),
        )),
        _ => Err(LayoutError::invalid(
            op,
            format!(
                "CuTe cannot zip the modes of {a} with those of {b} (one is a tuple, \
                 the other is not): give both operands the same nesting, e.g. (4):(1) and (3):(1)"
            ),
        )),
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

fn map_leaves2(a: &IntTuple, b: &IntTuple, f: &impl Fn(i64, i64) -> i64) -> IntTuple {
    match (a, b) {
        (Int(x), Int(y)) => Int(f(*x, *y)),
        (Tuple(x), Tuple(y)) => Tuple(x.iter().zip(y).map(|(p, q)| map_leaves2(p, q, f)).collect()),
        _ => a.clone(),
    }
}

/// CuTe's `compact_order(shape, order)`: column-major strides in which the
/// modes are laid out by increasing `order` (ties share a start); `order`
/// has the shape's profile or is coarser (an integer orders a whole mode).
pub fn compact_order(shape: &IntTuple, order: &IntTuple) -> Result<IntTuple> {
    // The reference: each leaf of `order` with the size of what it orders.
    fn refs(shape: &IntTuple, order: &IntTuple, out: &mut Vec<(i64, i64)>) -> Result<()> {
        match (shape, order) {
            (_, Int(o)) => {
                out.push((shape.product(), *o));
                Ok(())
            }
            (Tuple(s), Tuple(o)) if s.len() == o.len() => {
                s.iter().zip(o).try_for_each(|(s, o)| refs(s, o, out))
            }
            _ => Err(LayoutError::invalid(
                "compact_order",
                format!("the order {order} does not fit the shape {shape}"),
            )),
        }
    }
    fn walk(shape: &IntTuple, order: &IntTuple, refs: &[(i64, i64)]) -> IntTuple {
        match (shape, order) {
            (_, Int(o)) => {
                let start = refs
                    .iter()
                    .filter(|&&(_, r)| r < *o)
                    .map(|&(s, _)| s)
                    .product::<i64>();
                compact_col_major_from(shape, start)
            }
            (Tuple(s), Tuple(o)) => Tuple(s.iter().zip(o).map(|(s, o)| walk(s, o, refs)).collect()),
            _ => unreachable!("checked by refs"),
        }
    }
    let mut r = Vec::new();
    refs(shape, order, &mut r)?;
    Ok(walk(shape, order, &r))
}

/// Column-major strides starting at `start` (size-1 modes get 0).
fn compact_col_major_from(shape: &IntTuple, start: i64) -> IntTuple {
    fn walk(s: &IntTuple, current: &mut i64) -> IntTuple {
        match s {
            Int(n) => {
                let d = if *n == 1 { 0 } else { *current };
                *current = current.saturating_mul(*n);
                Int(d)
            }
            Tuple(v) => Tuple(v.iter().map(|x| walk(x, current)).collect()),
        }
    }
    let mut current = start;
    walk(shape, &mut current)
}

/// The leaf indices sorted by stride as CuTe's `SortByKey` sorts them (an
/// exchange sort, which is not stable: ties may come out reordered).
fn sort_by_stride(leaves: &[(i64, i64)]) -> Vec<usize> {
    let mut a: Vec<(i64, usize)> = leaves.iter().enumerate().map(|(k, l)| (l.1, k)).collect();
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            if a[j].0 < a[i].0 {
                a.swap(i, j);
            }
        }
    }
    a.into_iter().map(|(_, k)| k).collect()
}

/// CuTe's `ceil_div(cotarget, n)`: a tuple is divided mode by mode, each
/// mode by what is left of `n`.
fn ceil_div_tuple(t: &IntTuple, n: i64) -> IntTuple {
    match t {
        Int(a) => Int(ceil_div(*a, n)),
        Tuple(v) => {
            let mut rest = n;
            Tuple(
                v.iter()
                    .map(|x| {
                        let r = ceil_div_tuple(x, rest);
                        rest = ceil_div(rest, x.product());
                        r
                    })
                    .collect(),
            )
        }
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

/// CUTLASS 4.x's `composition_impl`: `lhs` is `coalesce_x(A)` as flat
/// leaves, `rhs` any layout (B's structure is kept, nothing is coalesced).
/// For each leaf `s:d` of B, the modes of A are walked with
/// `rest_stride`: a mode of shape `c` contributes `min(ceil(c / |rest_stride|),
/// rest_shape)` elements at `rest_stride * its stride`, and leaves
/// `ceil(|rest_stride| / c)` as the stride into the next mode. C++ asserts
/// `rest_stride % c == 0 || rest_stride < c` (stride divisibility) and that
/// the elements taken divide `rest_shape` (shape divisibility).
fn composition_impl(
    a: &Layout,
    b: &Layout,
    lhs: &[(i64, i64)],
    rs: &IntTuple,
    rd: &IntTuple,
) -> Result<Layout> {
    match (rs, rd) {
        (Tuple(ss), Tuple(ds)) if ss.len() == ds.len() => {
            let modes = ss
                .iter()
                .zip(ds)
                .map(|(s, d)| composition_impl(a, b, lhs, s, d))
                .collect::<Result<_>>()?;
            Ok(Layout::concat(modes))
        }
        (Int(s), Int(d)) => {
            let (s, d) = (*s, *d);
            if d == 0 {
                return Ok(Layout::leaf(s, 0));
            }
            if lhs.len() == 1 {
                return Ok(Layout::leaf(s, mul(d, lhs[0].1)?));
            }
            let (init, last) = lhs.split_at(lhs.len() - 1);
            let mut result: Vec<(i64, i64)> = Vec::with_capacity(init.len());
            let (mut rest_shape, mut rest_stride) = (s, d);
            for &(cs, cd) in init {
                if cs == 0 {
                    return Err(empty_mode("composition", a));
                }
                if !(rest_stride % cs == 0 || rest_stride < cs) {
                    return Err(LayoutError::invalid(
                        "composition",
                        format!(
                            "{a} o {b}: the stride {rest_stride} left for the mode {cs}:{cd} of {a} \
                             is neither a multiple of its shape {cs} nor smaller than it \
                             (CuTe's stride divisibility condition)"
                        ),
                    ));
                }
                let next_shape = ceil_div(cs, rest_stride.abs());
                let next_stride = ceil_div(rest_stride.abs(), cs) * rest_stride.signum();
                if next_shape != 1 && rest_shape != 1 {
                    let new_shape = next_shape.min(rest_shape);
                    if new_shape == 0 {
                        // C++'s shape divisibility check takes 0 % 0.
                        return Err(empty_mode("composition", b));
                    }
                    if rest_shape % new_shape != 0 {
                        return Err(LayoutError::invalid(
                            "composition",
                            format!(
                                "{a} o {b}: the mode {cs}:{cd} of {a} holds {new_shape} elements \
                                 of the {rest_shape} still to place, and {new_shape} does not \
                                 divide {rest_shape} (CuTe's shape divisibility condition)"
                            ),
                        ));
                    }
                    result.push((new_shape, mul(rest_stride, cd)?));
                    rest_shape /= new_shape;
                }
                rest_stride = next_stride;
            }
            let tail = (rest_shape, mul(rest_stride, last[0].1)?);
            if result.is_empty() {
                Ok(Layout::leaf(tail.0, tail.1))
            } else {
                if rest_shape != 1 {
                    result.push(tail);
                }
                Ok(Layout::from_modes(
                    result
                        .into_iter()
                        .map(|(s, d)| Layout::leaf(s, d))
                        .collect(),
                ))
            }
        }
        _ => Err(LayoutError::invalid(
            "composition",
            format!("shape {rs} and stride {rd} are not congruent"),
        )),
    }
}

/// The greatest common divisor of `|a|` and `|b|` (`gcd(a, 0) = |a|`, as
/// C++'s `gcd` treats a 0 alignment: unknown, so no limit).
pub(crate) fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn ceil_div(a: i64, b: i64) -> i64 {
    // Callers refuse a divisor of 0 first (C++ divides by zero there).
    (a + b - 1).checked_div(b).unwrap_or(0)
}

/// Where C++ would divide by a mode of size 0 (a floating-point exception
/// at run time, or a division by zero in a constant expression).
fn empty_mode(op: &str, layout: &Layout) -> LayoutError {
    LayoutError::invalid(
        op,
        format!("{layout} has a mode of size 0, and C++ divides by it here (a division by zero)"),
    )
}

/// A product of strides or sizes that must stay inside 64 bits.
fn mul(a: i64, b: i64) -> Result<i64> {
    a.checked_mul(b).ok_or_else(|| {
        LayoutError::invalid(
            "layout",
            format!("{a} * {b} is too large: sizes, strides and offsets must stay below 2^40"),
        )
    })
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
    /// A bare integer `n`: `n:1` in a composition, `make_layout(n)` (so
    /// `1:0` for 1) in the divides and products, as in C++.
    Int(i64),
    Underscore,
    Modes(Vec<Tiler>),
}

impl Tiler {
    /// Whether a mode of the tiler has size 0.
    pub fn has_empty_mode(&self) -> bool {
        match self {
            Tiler::Layout(l) => l.size() == 0,
            Tiler::Int(n) => *n == 0,
            Tiler::Underscore => false,
            Tiler::Modes(m) => m.iter().any(Tiler::has_empty_mode),
        }
    }

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
            Tiler::Int(n) => write!(f, "{n}"),
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

    /// The offset of a coordinate: `swizzle(offset + layout(coord))`.
    pub fn at(&self, coord: &IntTuple) -> Result<i64> {
        Ok(self.swizzle.apply(self.offset + self.layout.at(coord)?))
    }

    /// An operation on the inner layout, with the swizzle and the offset kept
    /// outside: how CuTe applies coalesce, the divides, the products and
    /// `tile_to_shape` to a `ComposedLayout`.
    pub fn map_inner(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<SwizzledLayout> {
        Ok(SwizzledLayout {
            swizzle: self.swizzle,
            offset: self.offset,
            layout: f(&self.layout)?,
        })
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
                Layout::new(Int(n), Int(1))?;
                Ok(Tiler::Int(n))
            } else {
                Ok(Tiler::Layout(Layout::column_major(shape)?))
            }
        }
    }

    fn swizzle(&mut self) -> Result<Swizzle> {
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
        Swizzle::new(b, m, s)
    }

    /// `L o offset o Sw<B,M,S>` (the offset may be left out).
    fn layout_after_swizzle(&mut self) -> Result<LayoutAfterSwizzle> {
        let layout = self.layout()?;
        self.expect('o')?;
        let save = self.pos;
        let mut offset = 0;
        if let Ok(n) = self.integer() {
            self.expect('o')?;
            offset = n;
        } else {
            self.pos = save;
        }
        let swizzle = self.swizzle()?;
        Ok(LayoutAfterSwizzle {
            layout,
            offset,
            swizzle,
        })
    }

    fn swizzled(&mut self) -> Result<SwizzledLayout> {
        let mut swizzle = self.swizzle()?;
        let (b, m, s) = (swizzle.bits, swizzle.base, swizzle.shift);
        self.expect('o')?;
        // GMMA's atoms: `smem_ptr[16b](unset) o layout`. The swizzle acts on
        // byte addresses of 16-bit elements; in element units its base
        // moves down by log2(2) (up by 3 for 1-bit elements).
        self.skip_ws();
        if self.text[self.pos..].starts_with("smem_ptr[") {
            self.pos += "smem_ptr[".len();
            let bits = self.integer()?;
            if !self.text[self.pos..].starts_with("b]") || bits <= 0 || (bits & (bits - 1)) != 0 {
                return Err(self.error("smem_ptr[Nb] with N a power of two"));
            }
            self.pos += 2;
            if self.eat('(') {
                while self.peek().is_some_and(|c| c != ')') {
                    self.pos += 1;
                }
                self.expect(')')?;
            }
            self.expect('o')?;
            let shift = bits.trailing_zeros() as i64 - 3;
            let base = m as i64 - shift;
            if base < 0 {
                return Err(LayoutError::invalid(
                    format!("CuTe notation '{}'", self.text),
                    format!(
                        "{swizzle} on bytes does not keep {bits}-bit elements whole (its base is below one element)"
                    ),
                ));
            }
            swizzle = Swizzle::new(b, base as u32, s)?;
            let layout = self.layout()?;
            return Ok(SwizzledLayout {
                swizzle,
                offset: 0,
                layout,
            });
        }
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
