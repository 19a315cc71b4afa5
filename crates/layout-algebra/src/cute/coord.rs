//! Coordinate layouts: CuTe layouts whose strides are `ScaledBasis`
//! elements (`(_4,_8):(_1@0,_1@1)`, as `make_identity_layout` prints), so
//! they map an index to a coordinate rather than an offset. TMA and
//! predication code prints them all the time.
//!
//! A stride `n@i` is `n` times the unit vector of coordinate mode `i`
//! (`n@j@i`: of mode `j` inside mode `i`). Such a layout is kept as one
//! ordinary layout per basis direction, all of the same shape: each leaf's
//! stride is nonzero in at most one of them. Composition and the divides
//! run CuTe's own algorithm once per direction over the jointly coalesced
//! modes, so every direction splits the shapes identically.

use std::fmt;

use super::{Int, IntTuple, Layout, Tiler, Tuple, composition_impl};
use crate::error::{LayoutError, Result};

/// A coordinate layout: `shape : stride` with `ScaledBasis` strides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CoordLayout {
    /// Basis directions as printed after the scale (`@0`, `@0@1`): the last
    /// number is the outermost coordinate mode.
    paths: Vec<Vec<u32>>,
    /// One ordinary layout per direction, all with the same shape.
    components: Vec<Layout>,
}

impl CoordLayout {
    /// `make_identity_layout(shape)`: each coordinate to itself.
    pub fn identity(shape: &IntTuple) -> Result<CoordLayout> {
        // (leaf path from the top, leaf index)
        fn walk(s: &IntTuple, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            match s {
                Int(_) => out.push(prefix.iter().rev().copied().collect()),
                Tuple(modes) => {
                    for (i, m) in modes.iter().enumerate() {
                        prefix.push(i as u32);
                        walk(m, prefix, out);
                        prefix.pop();
                    }
                }
            }
        }
        let mut paths = Vec::new();
        walk(shape, &mut Vec::new(), &mut paths);
        if matches!(shape, Int(_)) {
            // A rank-1 identity is `n:1@0`.
            paths = vec![vec![0]];
        }
        let leaves = shape.flatten();
        let components = (0..paths.len())
            .map(|k| {
                let mut i = 0;
                let stride = map_shape(shape, &mut |_| {
                    i += 1;
                    if i - 1 == k { 1 } else { 0 }
                });
                Layout::new(shape.clone(), stride)
            })
            .collect::<Result<Vec<_>>>()?;
        debug_assert_eq!(leaves.len(), components.len());
        Ok(CoordLayout { paths, components })
    }

    /// Parses `(_4,_8):(_1@0,_1@1)`: strides `n@i[@j...]` or `0`.
    pub fn parse(text: &str) -> Result<CoordLayout> {
        let fail = |why: String| LayoutError::invalid(format!("CuTe notation '{text}'"), why);
        let t = text.replace([' ', '_'], "");
        let (shape_text, stride_text) = t
            .split_once(':')
            .ok_or_else(|| fail("a coordinate layout needs its strides (`:(1@0,1@1)`)".into()))?;
        let shape = IntTuple::parse(shape_text)?;
        let mut p = StrideParser {
            s: stride_text.as_bytes(),
            pos: 0,
        };
        let strides = p.tree().map_err(&fail)?;
        if p.pos != p.s.len() {
            return Err(fail(format!(
                "unexpected text after the strides at byte {}",
                p.pos
            )));
        }
        let mut leaves = Vec::new();
        flatten_strides(&strides, &mut leaves);
        if !congruent(&shape, &strides) {
            return Err(fail(format!(
                "shape {shape} and its strides are not congruent"
            )));
        }
        let mut paths: Vec<Vec<u32>> = Vec::new();
        for (_, path) in &leaves {
            if !path.is_empty() && !paths.contains(path) {
                paths.push(path.clone());
            }
        }
        if paths.is_empty() {
            return Err(fail(
                "no stride is a basis element (`n@i`): write a plain layout".into(),
            ));
        }
        if leaves.iter().any(|(s, path)| path.is_empty() && *s != 0) {
            return Err(fail(
                "a stride is a plain integer among basis elements; write it `n@i`".into(),
            ));
        }
        let components = paths
            .iter()
            .map(|p| {
                let mut it = leaves.iter();
                let stride = map_shape(&shape, &mut |_| {
                    let (s, path) = it.next().expect("congruent");
                    if path == p { *s } else { 0 }
                });
                Layout::new(shape.clone(), stride)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CoordLayout { paths, components })
    }

    pub fn shape(&self) -> &IntTuple {
        self.components[0].shape()
    }

    pub fn size(&self) -> i64 {
        self.components[0].size()
    }

    pub fn rank(&self) -> usize {
        self.components[0].rank()
    }

    /// The coordinate of a 1-D index, as C++'s `ArithmeticTuple`.
    pub fn call(&self, idx: i64) -> IntTuple {
        self.assemble(
            &self
                .components
                .iter()
                .map(|c| c.call(idx))
                .collect::<Vec<_>>(),
        )
    }

    /// The coordinate of a coordinate of the domain.
    pub fn at(&self, coord: &IntTuple) -> Result<IntTuple> {
        let values = self
            .components
            .iter()
            .map(|c| c.at(coord))
            .collect::<Result<Vec<_>>>()?;
        Ok(self.assemble(&values))
    }

    /// Values per direction -> the coordinate tuple (missing modes are 0).
    fn assemble(&self, values: &[i64]) -> IntTuple {
        fn build(entries: &[(&[u32], i64)]) -> IntTuple {
            if let [(path, v)] = entries
                && path.is_empty()
            {
                return Int(*v);
            }
            let rank = entries
                .iter()
                .filter_map(|(p, _)| p.last())
                .max()
                .map_or(0, |m| *m as usize + 1);
            Tuple(
                (0..rank)
                    .map(|i| {
                        let inner: Vec<(&[u32], i64)> = entries
                            .iter()
                            .filter(|(p, _)| p.last() == Some(&(i as u32)))
                            .map(|(p, v)| (&p[..p.len() - 1], *v))
                            .collect();
                        if inner.is_empty() {
                            Int(0)
                        } else {
                            build(&inner)
                        }
                    })
                    .collect(),
            )
        }
        let entries: Vec<(&[u32], i64)> = self
            .paths
            .iter()
            .zip(values)
            .map(|(p, v)| (p.as_slice(), *v))
            .collect();
        build(&entries)
    }

    /// C++'s `cosize`: the size of the coordinate's co-shape, one past the
    /// largest coordinate in every direction.
    pub fn cosize(&self) -> i64 {
        self.components.iter().map(Layout::cosize).product()
    }

    /// `composition(lhs, self)`: a basis stride selects a mode of `lhs`, so
    /// each leaf `s:k@i` is `composition(mode i of lhs, s:k)` (a stride `0`
    /// is `s:0`), in this layout's shape.
    pub fn composed_after(&self, lhs: &Layout) -> Result<Layout> {
        let strides: Vec<Vec<i64>> = self
            .components
            .iter()
            .map(|c| c.stride().flatten())
            .collect();
        let mut leaf = 0;
        self.compose_leaves(self.shape(), lhs, &strides, &mut leaf)
    }

    fn compose_leaves(
        &self,
        shape: &IntTuple,
        lhs: &Layout,
        strides: &[Vec<i64>],
        leaf: &mut usize,
    ) -> Result<Layout> {
        match shape {
            Int(s) => {
                let i = *leaf;
                *leaf += 1;
                let Some(c) = (0..strides.len()).find(|&c| strides[c][i] != 0) else {
                    return Ok(Layout::leaf(*s, 0));
                };
                // The path's last number is the outermost mode.
                let mut sub = lhs.clone();
                for &m in self.paths[c].iter().rev() {
                    if m as usize >= sub.rank() {
                        return Err(LayoutError::invalid(
                            "composition",
                            format!(
                                "the stride {}@{} selects mode {m} of {sub}, which has {} modes",
                                strides[c][i],
                                path_text(&self.paths[c]),
                                sub.rank()
                            ),
                        ));
                    }
                    sub = sub.mode(m as usize);
                }
                sub.compose(&Layout::leaf(*s, strides[c][i]))
            }
            Tuple(modes) => {
                let parts = modes
                    .iter()
                    .map(|m| self.compose_leaves(m, lhs, strides, leaf))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Layout::concat(parts))
            }
        }
    }

    /// Mode `i`.
    pub fn mode(&self, i: usize) -> CoordLayout {
        CoordLayout {
            paths: self.paths.clone(),
            components: self.components.iter().map(|c| c.mode(i)).collect(),
        }
    }

    fn map(&self, mut f: impl FnMut(&Layout) -> Result<Layout>) -> Result<CoordLayout> {
        Ok(CoordLayout {
            paths: self.paths.clone(),
            components: self.components.iter().map(&mut f).collect::<Result<_>>()?,
        })
    }

    /// Leaves `(shape, stride per direction)`, coalesced jointly: two modes
    /// merge only where they merge in every direction (`coalesce_x`: a
    /// trailing size-1 mode keeps extending the last one).
    fn joint_leaves(&self, extend_last: bool) -> Vec<(i64, Vec<i64>)> {
        let per: Vec<Vec<(i64, i64)>> = self.components.iter().map(Layout::leaves).collect();
        let n = per[0].len();
        let leaf = |i: usize| (per[0][i].0, per.iter().map(|l| l[i].1).collect::<Vec<_>>());
        let (s, d) = leaf(n - 1);
        let start = if extend_last && s == 1 { 2 } else { s };
        let mut out: Vec<(i64, Vec<i64>)> = vec![(start, d)];
        for i in (0..n - 1).rev() {
            let (s, d) = leaf(i);
            if s == 1 {
                continue;
            }
            if out.len() == 1 && out[0].0 == 1 {
                out[0] = (s, d);
            } else if d.iter().zip(&out[0].1).all(|(a, b)| s * a == *b) {
                out[0] = (s * out[0].0, d);
            } else {
                out.insert(0, (s, d));
            }
        }
        out
    }

    /// `coalesce`.
    pub fn coalesce(&self) -> Result<CoordLayout> {
        let leaves = self.joint_leaves(false);
        let shape = IntTuple::from_modes(leaves.iter().map(|(s, _)| Int(*s)).collect());
        let components = (0..self.components.len())
            .map(|k| {
                let stride = IntTuple::from_modes(leaves.iter().map(|(_, d)| Int(d[k])).collect());
                Layout::new(shape.clone(), stride)
            })
            .collect::<Result<_>>()?;
        Ok(CoordLayout {
            paths: self.paths.clone(),
            components,
        })
    }

    /// `composition(L, B)` for an ordinary layout `B`.
    pub fn compose(&self, rhs: &Layout) -> Result<CoordLayout> {
        let leaves = self.joint_leaves(true);
        let mut components = Vec::with_capacity(self.components.len());
        for (k, a) in self.components.iter().enumerate() {
            let lhs: Vec<(i64, i64)> = leaves.iter().map(|(s, d)| (*s, d[k])).collect();
            let r = composition_impl(a, rhs, &lhs, rhs.shape(), rhs.stride())?;
            a.verify_composition(rhs, &r)?;
            components.push(r);
        }
        if components
            .iter()
            .any(|c| c.shape() != components[0].shape())
        {
            return Err(LayoutError::invalid(
                "composition",
                format!("{self} o {rhs}: the directions split the shapes differently"),
            ));
        }
        Ok(CoordLayout {
            paths: self.paths.clone(),
            components,
        })
    }

    /// Composition with a tiler: by mode, `_`, an integer or a layout.
    pub fn compose_tiler(&self, tiler: &Tiler) -> Result<CoordLayout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(l) => self.compose(l),
            Tiler::Int(n) => self.compose(&Layout::new(Int(*n), Int(1))?),
            Tiler::Modes(modes) => self.by_mode(modes.len(), "composition", |m, i| {
                m.compose_tiler(&modes[i])
            }),
        }
    }

    fn by_mode(
        &self,
        n: usize,
        op: &str,
        f: impl Fn(&CoordLayout, usize) -> Result<CoordLayout>,
    ) -> Result<CoordLayout> {
        if n > self.rank() {
            return Err(LayoutError::invalid(
                op,
                format!(
                    "the tiler has {n} modes but the layout {self} has {}",
                    self.rank()
                ),
            ));
        }
        let modes = (0..self.rank())
            .map(|i| {
                if i < n {
                    f(&self.mode(i), i)
                } else {
                    Ok(self.mode(i))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CoordLayout::concat(modes))
    }

    /// The layouts as the modes of one (directions united).
    fn concat(modes: Vec<CoordLayout>) -> CoordLayout {
        let mut paths: Vec<Vec<u32>> = Vec::new();
        for m in &modes {
            for p in &m.paths {
                if !paths.contains(p) {
                    paths.push(p.clone());
                }
            }
        }
        let components = paths
            .iter()
            .map(|p| {
                Layout::concat(
                    modes
                        .iter()
                        .map(|m| match m.paths.iter().position(|q| q == p) {
                            Some(k) => m.components[k].clone(),
                            None => zero_strides(&m.components[0]),
                        })
                        .collect(),
                )
            })
            .collect();
        CoordLayout { paths, components }
    }

    /// `logical_divide(L, tiler)`.
    pub fn logical_divide(&self, tiler: &Tiler) -> Result<CoordLayout> {
        match tiler {
            Tiler::Underscore => Ok(self.clone()),
            Tiler::Layout(t) => {
                let rest = t.complement(self.coalesce()?.shape())?;
                self.compose(&Layout::concat(vec![t.clone(), rest]))
            }
            Tiler::Int(n) => self.logical_divide(&Tiler::Layout(Layout::column_major(Int(*n))?)),
            Tiler::Modes(modes) => self.by_mode(modes.len(), "logical_divide", |m, i| {
                m.logical_divide(&modes[i])
            }),
        }
    }

    /// `zipped_divide`: `((tiles...),(rests...))`.
    pub fn zipped_divide(&self, tiler: &Tiler) -> Result<CoordLayout> {
        self.logical_divide(tiler)?
            .map(|c| c.tile_unzip(tiler, "zipped_divide"))
    }

    /// `tiled_divide`: `((tiles...),rest0,rest1,...)`.
    pub fn tiled_divide(&self, tiler: &Tiler) -> Result<CoordLayout> {
        self.zipped_divide(tiler)?.map(|z| {
            let mut modes = vec![z.mode(0)];
            modes.extend(z.mode(1).unpacked());
            Ok(Layout::concat(modes))
        })
    }

    /// `flat_divide`: `(tile0,tile1,...,rest0,rest1,...)`.
    pub fn flat_divide(&self, tiler: &Tiler) -> Result<CoordLayout> {
        self.zipped_divide(tiler)?.map(|z| {
            let mut modes = z.mode(0).unpacked();
            modes.extend(z.mode(1).unpacked());
            Ok(Layout::concat(modes))
        })
    }
}

fn zero_strides(l: &Layout) -> Layout {
    Layout::new(l.shape().clone(), map_shape(l.shape(), &mut |_| 0)).expect("a layout's shape")
}

/// A tuple of the shape's structure with `f(leaf)` at every leaf.
fn map_shape(s: &IntTuple, f: &mut impl FnMut(i64) -> i64) -> IntTuple {
    match s {
        Int(n) => Int(f(*n)),
        Tuple(v) => Tuple(v.iter().map(|x| map_shape(x, f)).collect()),
    }
}

/// A parsed stride: a leaf `(scale, path)` or a tuple.
enum StrideTree {
    Leaf(i64, Vec<u32>),
    Tuple(Vec<StrideTree>),
}

fn flatten_strides(t: &StrideTree, out: &mut Vec<(i64, Vec<u32>)>) {
    match t {
        StrideTree::Leaf(s, p) => out.push((*s, p.clone())),
        StrideTree::Tuple(v) => v.iter().for_each(|x| flatten_strides(x, out)),
    }
}

fn congruent(s: &IntTuple, t: &StrideTree) -> bool {
    match (s, t) {
        (Int(_), StrideTree::Leaf(..)) => true,
        (Tuple(a), StrideTree::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| congruent(x, y))
        }
        _ => false,
    }
}

struct StrideParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl StrideParser<'_> {
    fn tree(&mut self) -> std::result::Result<StrideTree, String> {
        if self.s.get(self.pos) == Some(&b'(') {
            self.pos += 1;
            let mut items = vec![self.tree()?];
            while self.s.get(self.pos) == Some(&b',') {
                self.pos += 1;
                items.push(self.tree()?);
            }
            if self.s.get(self.pos) != Some(&b')') {
                return Err(format!("expected ')' at byte {}", self.pos));
            }
            self.pos += 1;
            return Ok(StrideTree::Tuple(items));
        }
        let scale = self.number()?;
        let mut path = Vec::new();
        while self.s.get(self.pos) == Some(&b'@') {
            self.pos += 1;
            let m = self.number()?;
            path.push(u32::try_from(m).map_err(|_| {
                format!("a basis mode must be a small non-negative integer, not {m}")
            })?);
        }
        Ok(StrideTree::Leaf(scale, path))
    }

    fn number(&mut self) -> std::result::Result<i64, String> {
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        while self.s.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("expected an integer at byte {start}"))
    }
}

impl fmt::Display for CoordLayout {
    /// As CuTe prints it (without the static `_` marks): `(4,8):(1@0,1@1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per: Vec<Vec<(i64, i64)>> = self.components.iter().map(Layout::leaves).collect();
        let mut i = 0;
        let mut leaf = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            let k = (0..per.len()).find(|&k| per[k][i].1 != 0);
            i += 1;
            match k {
                Some(k) => {
                    write!(f, "{}", per[k][i - 1].1)?;
                    for m in &self.paths[k] {
                        write!(f, "@{m}")?;
                    }
                    Ok(())
                }
                None => write!(f, "0"),
            }
        };
        fn walk(
            s: &IntTuple,
            f: &mut fmt::Formatter<'_>,
            leaf: &mut impl FnMut(&mut fmt::Formatter<'_>) -> fmt::Result,
        ) -> fmt::Result {
            match s {
                Int(_) => leaf(f),
                Tuple(v) => {
                    write!(f, "(")?;
                    for (j, x) in v.iter().enumerate() {
                        if j > 0 {
                            write!(f, ",")?;
                        }
                        walk(x, f, leaf)?;
                    }
                    write!(f, ")")
                }
            }
        }
        write!(f, "{}:", self.shape())?;
        walk(self.shape(), f, &mut leaf)
    }
}

/// `0@1` as printed after the scale.
fn path_text(path: &[u32]) -> String {
    path.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("@")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_layout_maps_each_coordinate_to_itself() {
        let id = CoordLayout::identity(&IntTuple::parse("(4,8)").unwrap()).unwrap();
        assert_eq!(id.to_string(), "(4,8):(1@0,1@1)");
        assert_eq!(CoordLayout::parse("(_4,_8):(_1@0,_1@1)").unwrap(), id);
        for i in 0..32 {
            assert_eq!(id.call(i), Tuple(vec![Int(i % 4), Int(i / 4)]));
        }
    }

    #[test]
    fn composition_follows_the_right_hand_layout() {
        let id = CoordLayout::identity(&IntTuple::parse("(4,8)").unwrap()).unwrap();
        let rhs = Layout::parse("(2,4):(4,1)").unwrap();
        let c = id.compose(&rhs).unwrap();
        for i in 0..8 {
            assert_eq!(c.call(i), id.call(rhs.call(i)));
        }
    }
}
