//! XLA shapes with tiled layouts (seed 001; XLA's `tiled_layout.md`), parsed
//! from the HLO text exactly as XLA prints it: `bf16[256,128]{1,0:T(8,128)(2,1)}`.
//!
//! Physical dims are `reversed(minor_to_major)`. Each tile applies to the most
//! minor dims of the current shape: dim `d` with tile `t` becomes
//! `(ceil(d/t), t)` and the tile dims move innermost; later tiles act on the
//! already tiled shape. A `*` tile dim merges a dim into the next more-minor
//! one first. The offset of an element is its row-major index in the final
//! shape; `L(n)` rounds the padded element count up to a multiple of `n`.
//!
//! XLA's own `LayoutUtil::LinearIndex` and `ShapeUtil::ArraySize` use only
//! the first tile; [`XlaShape::first_tile_linear_index`] and
//! [`XlaShape::first_tile_array_size`] reproduce them, so both figures can be
//! shown where they differ.

use std::fmt;

use crate::error::{InvalidKind, LayoutError, Result};

/// One entry of a tile: a size, or `*` (combine with the next minor dim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileDim {
    Size(i64),
    Combine,
}

/// A split configuration `SC(dim:i,j,...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SplitConfig {
    pub dimension: i64,
    pub split_indices: Vec<i64>,
}

/// The `{...}` part of an HLO shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct XlaLayout {
    pub minor_to_major: Vec<usize>,
    /// `D(...)`, kept verbatim (sparse dim-level types).
    pub dim_level_types: Option<String>,
    pub tiles: Vec<Vec<TileDim>>,
    /// `L(n)`; 1 when absent.
    pub tail_padding_alignment: i64,
    /// `#(ty)`.
    pub index_primitive_type: Option<String>,
    /// `*(ty)`.
    pub pointer_primitive_type: Option<String>,
    /// `E(n)`; 0 when absent (the element type's width).
    pub element_size_in_bits: i64,
    /// `S(n)`.
    pub memory_space: i64,
    pub split_configs: Vec<SplitConfig>,
    /// `P(shape)`, kept verbatim.
    pub physical_shape: Option<String>,
    /// `M(n)`.
    pub dynamic_shape_metadata_prefix_bytes: i64,
    /// Whether the text had a `:` part (printing keeps `{1,0}` vs `{1,0:}` apart only when needed).
    has_properties: bool,
}

/// An HLO array shape with an optional layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct XlaShape {
    pub element_type: String,
    /// The dims; a bounded dynamic dim `<=N` is its bound N.
    pub dims: Vec<i64>,
    /// Which dims are bounded dynamic (`<=N`), so the shape prints back as written.
    pub dynamic: Vec<bool>,
    pub layout: Option<XlaLayout>,
}

/// Bits of an XLA primitive type.
pub fn element_type_bits(ty: &str) -> Option<i64> {
    Some(match ty {
        "pred" | "s8" | "u8" => 8,
        "s1" | "u1" => 1,
        "s2" | "u2" => 2,
        "s4" | "u4" | "f4e2m1fn" => 4,
        "f8e5m2" | "f8e4m3fn" | "f8e4m3b11fnuz" | "f8e5m2fnuz" | "f8e4m3fnuz" | "f8e4m3"
        | "f8e3m4" | "f8e8m0fnu" => 8,
        "s16" | "u16" | "f16" | "bf16" => 16,
        "s32" | "u32" | "f32" => 32,
        "s64" | "u64" | "f64" | "c64" => 64,
        "c128" => 128,
        _ => return None,
    })
}

impl XlaShape {
    /// Parses HLO shape text; rejects malformed text with the byte where it
    /// went wrong.
    pub fn parse(text: &str) -> Result<XlaShape> {
        let mut p = Reader { text, pos: 0 };
        let shape = p.shape()?;
        p.ws();
        if p.pos != text.len() {
            return Err(p.error("the end of the shape"));
        }
        shape.validate()?;
        Ok(shape)
    }

    fn validate(&self) -> Result<()> {
        let what = || format!("XLA shape {self}");
        if element_type_bits(&self.element_type).is_none() {
            return Err(LayoutError::invalid(
                what(),
                format!("'{}' is not an array element type", self.element_type),
            ));
        }
        if let Some(d) = self.dims.iter().find(|&&d| d < 0) {
            return Err(LayoutError::invalid(
                what(),
                format!("dimension size {d} is negative"),
            ));
        }
        let Some(l) = &self.layout else {
            return self.within_size_limit(0);
        };
        let rank = self.dims.len();
        let mut seen = vec![false; rank];
        if l.minor_to_major.len() != rank
            || l.minor_to_major
                .iter()
                .any(|&d| d >= rank || std::mem::replace(&mut seen[d], true))
        {
            return Err(LayoutError::invalid_of(
                InvalidKind::MinorToMajor,
                "minor_to_major",
                format!(
                    "{:?} is not a permutation of the {rank} dimensions of {self}",
                    l.minor_to_major
                ),
            ));
        }
        for tile in &l.tiles {
            if tile.is_empty() {
                return Err(LayoutError::invalid(what(), "a tile has no dimensions"));
            }
            if tile.last() == Some(&TileDim::Combine) {
                return Err(LayoutError::invalid(
                    what(),
                    "the most-minor tile dimension cannot be '*' (there is nothing to combine it with)",
                ));
            }
            if let Some(TileDim::Size(t)) = tile
                .iter()
                .find(|t| matches!(t, TileDim::Size(t) if *t <= 0))
            {
                return Err(LayoutError::invalid(
                    what(),
                    format!("tile dimension {t} must be positive"),
                ));
            }
        }
        if l.tail_padding_alignment <= 0 {
            return Err(LayoutError::invalid(
                what(),
                format!("L({}) must be positive", l.tail_padding_alignment),
            ));
        }
        if l.element_size_in_bits < 0 {
            return Err(LayoutError::invalid(what(), "E(n) must not be negative"));
        }
        self.within_size_limit(l.element_size_in_bits)
    }

    /// Offsets and sizes are i64; the padded buffer stays far below that
    /// so no computation on this shape can overflow, with or without a
    /// written layout.
    fn within_size_limit(&self, element_size_in_bits: i64) -> Result<()> {
        const LIMIT: u128 = 1 << 40;
        if self.padded_bound() > LIMIT || element_size_in_bits > 1 << 16 {
            return Err(LayoutError::invalid(
                format!("XLA shape {self}"),
                "is too large: the padded array must stay below 2^40 elements",
            ));
        }
        Ok(())
    }

    /// The padded element count in saturating 128-bit arithmetic: the shape
    /// half of `tile_through`, safe on any input.
    fn padded_bound(&self) -> u128 {
        let order: Vec<usize> = self.minor_to_major().into_iter().rev().collect();
        let mut shape: Vec<u128> = order.iter().map(|&d| self.dims[d].max(0) as u128).collect();
        for tile in self.tiles() {
            while shape.len() < tile.len() {
                shape.insert(0, 1);
            }
            let start = shape.len() - tile.len();
            let mut sh = shape.split_off(start);
            let mut t = tile.clone();
            let mut i = 0;
            while i < t.len() {
                if t[i] == TileDim::Combine && i + 1 < t.len() {
                    sh[i + 1] = sh[i + 1].saturating_mul(sh[i]);
                    sh.remove(i);
                    t.remove(i);
                } else {
                    i += 1;
                }
            }
            let sizes: Vec<u128> = t
                .iter()
                .map(|t| match t {
                    TileDim::Size(s) => (*s).max(1) as u128,
                    TileDim::Combine => 1,
                })
                .collect();
            shape.extend(sh.iter().zip(&sizes).map(|(&d, &t)| d.div_ceil(t)));
            shape.extend(sizes);
        }
        let align = self
            .layout
            .as_ref()
            .map_or(1, |l| l.tail_padding_alignment.max(1) as u128);
        shape
            .iter()
            .fold(1u128, |a, &b| a.saturating_mul(b))
            .div_ceil(align)
            .saturating_mul(align)
    }

    /// Bits per element: `E(n)`, or the element type's width.
    pub fn element_bits(&self) -> i64 {
        match &self.layout {
            Some(l) if l.element_size_in_bits > 0 => l.element_size_in_bits,
            _ => element_type_bits(&self.element_type).unwrap_or(8),
        }
    }

    pub fn logical_elements(&self) -> i64 {
        self.dims.iter().fold(1i64, |a, &b| a.saturating_mul(b))
    }

    fn minor_to_major(&self) -> Vec<usize> {
        match &self.layout {
            Some(l) => l.minor_to_major.clone(),
            None => (0..self.dims.len()).rev().collect(),
        }
    }

    fn tiles(&self) -> &[Vec<TileDim>] {
        self.layout.as_ref().map_or(&[], |l| &l.tiles)
    }

    /// The physical shape (major to minor) after every tile level, and the
    /// coordinate an element has in it.
    fn tile_through(&self, coord: Option<&[i64]>, levels: usize) -> (Vec<i64>, Vec<i64>) {
        let order: Vec<usize> = self.minor_to_major().into_iter().rev().collect();
        let mut shape: Vec<i64> = order.iter().map(|&d| self.dims[d]).collect();
        let mut e: Vec<i64> = coord.map_or_else(
            || vec![0; shape.len()],
            |c| order.iter().map(|&d| c[d]).collect(),
        );
        for tile in self.tiles().iter().take(levels) {
            // Align the tile to the most-minor dims, adding size-1 dims.
            while shape.len() < tile.len() {
                shape.insert(0, 1);
                e.insert(0, 0);
            }
            let start = shape.len() - tile.len();
            let mut sizes: Vec<i64> = Vec::with_capacity(tile.len());
            if tile.contains(&TileDim::Combine) {
                // '*': merge the dim into the next more-minor one.
                let (mut sh, mut ec): (Vec<i64>, Vec<i64>) =
                    (shape[start..].to_vec(), e[start..].to_vec());
                let mut i = 0;
                let mut t = tile.clone();
                while i < t.len() {
                    if t[i] == TileDim::Combine && i + 1 < t.len() {
                        ec[i + 1] += ec[i] * sh[i + 1];
                        sh[i + 1] *= sh[i];
                        sh.remove(i);
                        ec.remove(i);
                        t.remove(i);
                    } else {
                        i += 1;
                    }
                }
                shape.truncate(start);
                e.truncate(start);
                shape.extend(sh);
                e.extend(ec);
                sizes.extend(t.iter().map(|t| match t {
                    TileDim::Size(s) => *s,
                    TileDim::Combine => 1,
                }));
            } else {
                sizes.extend(tile.iter().map(|t| match t {
                    TileDim::Size(s) => *s,
                    TileDim::Combine => 1,
                }));
            }
            let start = shape.len() - sizes.len();
            let (prefix_s, tiled_s) = shape.split_at(start);
            let (prefix_e, tiled_e) = e.split_at(start);
            let mut new_shape = prefix_s.to_vec();
            let mut new_e = prefix_e.to_vec();
            new_shape.extend(tiled_s.iter().zip(&sizes).map(|(&d, &t)| (d + t - 1) / t));
            new_e.extend(tiled_e.iter().zip(&sizes).map(|(&x, &t)| x / t));
            new_shape.extend(&sizes);
            new_e.extend(tiled_e.iter().zip(&sizes).map(|(&x, &t)| x % t));
            shape = new_shape;
            e = new_e;
        }
        (shape, e)
    }

    /// The physical shape after all tile levels, major to minor.
    pub fn tiled_shape(&self) -> Vec<i64> {
        self.tile_through(None, usize::MAX).0
    }

    /// The physical element offset of a logical element (all tile levels).
    pub fn offset(&self, index: &[i64]) -> Result<i64> {
        self.check_index(index)?;
        let (shape, e) = self.tile_through(Some(index), usize::MAX);
        Ok(row_major(&shape, &e))
    }

    /// XLA's `LayoutUtil::LinearIndex`: like [`XlaShape::offset`] with the
    /// first tile only.
    pub fn first_tile_linear_index(&self, index: &[i64]) -> Result<i64> {
        self.check_index(index)?;
        // XLA's LinearIndex returns a rank-1 index unchanged, whatever the tiles.
        if self.dims.len() == 1 {
            return Ok(index[0]);
        }
        let (shape, e) = self.tile_through(Some(index), 1);
        Ok(row_major(&shape, &e))
    }

    fn check_index(&self, index: &[i64]) -> Result<()> {
        if index.len() != self.dims.len()
            || index.iter().zip(&self.dims).any(|(&i, &d)| i < 0 || i >= d)
        {
            return Err(LayoutError::invalid(
                format!("index {index:?}"),
                format!("is outside the shape {:?}", self.dims),
            ));
        }
        Ok(())
    }

    /// Offsets of every element, logical row-major order.
    pub fn offsets(&self) -> Vec<i64> {
        let combines = self
            .tiles()
            .iter()
            .flatten()
            .any(|t| *t == TileDim::Combine);
        if !combines {
            return self.offsets_by_dim();
        }
        self.offsets_one_by_one()
    }

    /// Without `*`, every tiled coordinate comes from one logical dim, so the
    /// offset is a sum of per-dim contributions: tabulate them once.
    fn offsets_by_dim(&self) -> Vec<i64> {
        let rank = self.dims.len();
        let tables: Vec<Vec<i64>> = (0..rank)
            .map(|d| {
                (0..self.dims[d])
                    .map(|x| {
                        let mut e = vec![0i64; rank];
                        e[d] = x;
                        let (shape, coord) = self.tile_through(Some(&e), usize::MAX);
                        row_major(&shape, &coord)
                    })
                    .collect()
            })
            .collect();
        let mut out = vec![0i64; self.logical_elements().max(0) as usize];
        let mut stride = 1usize;
        for d in (0..rank).rev() {
            let size = self.dims[d] as usize;
            for (i, o) in out.iter_mut().enumerate() {
                *o += tables[d][(i / stride) % size];
            }
            stride *= size;
        }
        out
    }

    fn offsets_one_by_one(&self) -> Vec<i64> {
        let n = self.logical_elements();
        let mut out = Vec::with_capacity(n.max(0) as usize);
        let mut index = vec![0i64; self.dims.len()];
        for _ in 0..n {
            let (shape, e) = self.tile_through(Some(&index), usize::MAX);
            out.push(row_major(&shape, &e));
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < self.dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        out
    }

    /// Elements of the padded buffer (every tile level, then `L(n)`).
    pub fn padded_elements(&self) -> i64 {
        let n: i64 = self.tiled_shape().iter().product();
        let align = self.layout.as_ref().map_or(1, |l| l.tail_padding_alignment);
        (n + align - 1) / align * align
    }

    pub fn padded_bytes(&self) -> i64 {
        (self.padded_elements() * self.element_bits() + 7) / 8
    }

    /// XLA's `ShapeUtil::ArraySize` counted in elements (XLA's function
    /// returns bytes: multiply by the element width): the first tile only,
    /// and a `*` tile dim leaves its dim unpadded.
    pub fn first_tile_array_size(&self) -> i64 {
        let Some(tile) = self.tiles().first() else {
            let align = self.layout.as_ref().map_or(1, |l| l.tail_padding_alignment);
            return (self.logical_elements() + align - 1) / align * align;
        };
        let order: Vec<usize> = self.minor_to_major().into_iter().rev().collect();
        let mut shape: Vec<i64> = order.iter().map(|&d| self.dims[d]).collect();
        while shape.len() < tile.len() {
            shape.insert(0, 1);
        }
        let start = shape.len() - tile.len();
        for (d, t) in shape[start..].iter_mut().zip(tile) {
            if let TileDim::Size(t) = t {
                *d = (*d + t - 1) / t * t;
            }
        }
        let n: i64 = shape.iter().product();
        let align = self.layout.as_ref().map_or(1, |l| l.tail_padding_alignment);
        (n + align - 1) / align * align
    }

    /// The TPU's default layout for an array (seed 001): f32 and 32-bit
    /// types tile `(8,128)`, or `(2,128)` / `(4,128)` when the second-minor
    /// dim is at most 2 / 4; 16-bit types `(8,128)(2,1)`; 8-bit types
    /// `(8,128)(4,1)`; pred `(32,128)(32,1)`.
    pub fn tpu(element_type: &str, dims: Vec<i64>) -> Result<XlaShape> {
        let bits = element_type_bits(element_type).ok_or_else(|| {
            LayoutError::invalid(
                "TPU layout",
                format!("'{element_type}' is not an array element type"),
            )
        })?;
        let second_minor = if dims.len() >= 2 {
            dims[dims.len() - 2]
        } else {
            1
        };
        let s = TileDim::Size;
        let tiles = match (element_type, bits) {
            ("pred", _) => vec![vec![s(32), s(128)], vec![s(32), s(1)]],
            (_, 32) if second_minor <= 2 => vec![vec![s(2), s(128)]],
            (_, 32) if second_minor <= 4 => vec![vec![s(4), s(128)]],
            (_, 32) => vec![vec![s(8), s(128)]],
            (_, 16) => vec![vec![s(8), s(128)], vec![s(2), s(1)]],
            (_, 8) => vec![vec![s(8), s(128)], vec![s(4), s(1)]],
            _ => {
                return Err(LayoutError::invalid(
                    "TPU layout",
                    format!("no default TPU tiling for {bits}-bit '{element_type}'"),
                ));
            }
        };
        let layout = XlaLayout {
            minor_to_major: (0..dims.len()).rev().collect(),
            tiles,
            tail_padding_alignment: 1,
            has_properties: true,
            ..XlaLayout::default()
        };
        let shape = XlaShape {
            element_type: element_type.to_string(),
            dynamic: vec![false; dims.len()],
            dims,
            layout: Some(layout),
        };
        shape.validate()?;
        Ok(shape)
    }
}

fn row_major(shape: &[i64], e: &[i64]) -> i64 {
    shape.iter().zip(e).fold(0, |acc, (&d, &x)| acc * d + x)
}

impl fmt::Display for TileDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileDim::Size(s) => write!(f, "{s}"),
            TileDim::Combine => write!(f, "*"),
        }
    }
}

fn join<T: fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Prints as XLA's `Layout::ToString`: `{1,0:T(8,128)(2,1)L(4)E(16)S(1)}`.
impl fmt::Display for XlaLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}", join(&self.minor_to_major))?;
        let mut props = String::new();
        if let Some(d) = &self.dim_level_types {
            props += &format!("D({d})");
        }
        if !self.tiles.is_empty() {
            props += "T";
            for t in &self.tiles {
                props += &format!("({})", join(t));
            }
        }
        if self.tail_padding_alignment != 1 {
            props += &format!("L({})", self.tail_padding_alignment);
        }
        if let Some(t) = &self.index_primitive_type {
            props += &format!("#({t})");
        }
        if let Some(t) = &self.pointer_primitive_type {
            props += &format!("*({t})");
        }
        if self.element_size_in_bits != 0 {
            props += &format!("E({})", self.element_size_in_bits);
        }
        if self.memory_space != 0 {
            props += &format!("S({})", self.memory_space);
        }
        if !self.split_configs.is_empty() {
            props += "SC";
            for sc in &self.split_configs {
                props += &format!("({}:{})", sc.dimension, join(&sc.split_indices));
            }
        }
        if let Some(p) = &self.physical_shape {
            props += &format!("P({p})");
        }
        if self.dynamic_shape_metadata_prefix_bytes != 0 {
            props += &format!("M({})", self.dynamic_shape_metadata_prefix_bytes);
        }
        if !props.is_empty() || (self.has_properties && self.minor_to_major.is_empty()) {
            write!(f, ":{props}")?;
        }
        write!(f, "}}")
    }
}

impl fmt::Display for XlaShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if self.dynamic.get(i).copied().unwrap_or(false) {
                    format!("<={d}")
                } else {
                    d.to_string()
                }
            })
            .collect();
        write!(f, "{}[{}]", self.element_type, dims.join(","))?;
        if let Some(l) = &self.layout {
            write!(f, "{l}")?;
        }
        Ok(())
    }
}

/// Reader of HLO shape text, in XLA's fixed property order.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, expected: &str) -> LayoutError {
        let found: String = self.text[self.pos..].chars().take(10).collect();
        LayoutError::invalid(
            format!("XLA shape '{}'", self.text),
            format!(
                "expected {expected} at byte {}{}",
                self.pos,
                if found.is_empty() {
                    " (the text ends)".to_string()
                } else {
                    format!(" (found '{found}')")
                }
            ),
        )
    }

    fn ws(&mut self) {
        while let Some(c) = self.text[self.pos..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(&format!("'{s}'")))
        }
    }

    fn int(&mut self) -> Result<i64> {
        self.ws();
        let start = self.pos;
        if self.text[self.pos..].starts_with('-') {
            self.pos += 1;
        }
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.text[start..self.pos].parse().map_err(|_| {
            self.pos = start;
            self.error("an integer")
        })
    }

    fn ident(&mut self) -> String {
        self.ws();
        let start = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        self.text[start..self.pos].to_string()
    }

    /// Text up to the matching `)`, for the properties kept verbatim.
    fn balanced(&mut self) -> Result<String> {
        let start = self.pos;
        let mut depth = 1;
        for (i, c) in self.text[self.pos..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = start + i + 1;
                        return Ok(self.text[start..start + i].to_string());
                    }
                }
                _ => {}
            }
        }
        Err(self.error("')'"))
    }

    fn shape(&mut self) -> Result<XlaShape> {
        let element_type = self.ident();
        if element_type.is_empty() {
            return Err(self.error("an element type such as f32"));
        }
        self.expect("[")?;
        let mut dims = Vec::new();
        let mut dynamic = Vec::new();
        if !self.eat("]") {
            loop {
                // A dynamic dim `<=N` has bound N; `?` has none.
                self.ws();
                if self.text[self.pos..].starts_with('?') {
                    return Err(LayoutError::invalid(
                        "XLA shape",
                        format!(
                            "`{}` has an unbounded dynamic dimension `?`: its layout has no fixed size; write its bound as `<=N`",
                            self.text
                        ),
                    ));
                }
                dynamic.push(self.eat("<="));
                dims.push(self.int()?);
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let layout = if self.eat("{") {
            Some(self.layout()?)
        } else {
            None
        };
        Ok(XlaShape {
            element_type,
            dims,
            dynamic,
            layout,
        })
    }

    fn layout(&mut self) -> Result<XlaLayout> {
        let mut l = XlaLayout {
            tail_padding_alignment: 1,
            ..XlaLayout::default()
        };
        self.ws();
        if !self.text[self.pos..].starts_with([':', '}']) {
            loop {
                let d = self.int()?;
                l.minor_to_major.push(
                    usize::try_from(d)
                        .map_err(|_| self.error("a non-negative dimension number"))?,
                );
                if !self.eat(",") {
                    break;
                }
            }
        }
        if self.eat(":") {
            l.has_properties = true;
            if self.eat("D(") {
                l.dim_level_types = Some(self.balanced()?);
            }
            if self.eat("T") {
                while self.eat("(") {
                    let mut tile = Vec::new();
                    loop {
                        if self.eat("*") {
                            tile.push(TileDim::Combine);
                        } else {
                            tile.push(TileDim::Size(self.int()?));
                        }
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                    l.tiles.push(tile);
                }
                if l.tiles.is_empty() {
                    return Err(self.error("'(' starting a tile"));
                }
            }
            if self.eat("L(") {
                l.tail_padding_alignment = self.int()?;
                self.expect(")")?;
            }
            if self.eat("#(") {
                l.index_primitive_type = Some(self.ident());
                self.expect(")")?;
            }
            if self.eat("*(") {
                l.pointer_primitive_type = Some(self.ident());
                self.expect(")")?;
            }
            if self.eat("E(") {
                l.element_size_in_bits = self.int()?;
                self.expect(")")?;
            }
            if self.eat("S(") {
                l.memory_space = self.int()?;
                self.expect(")")?;
            }
            if self.eat("SC") {
                while self.eat("(") {
                    let dimension = self.int()?;
                    self.expect(":")?;
                    let mut split_indices = vec![self.int()?];
                    while self.eat(",") {
                        split_indices.push(self.int()?);
                    }
                    self.expect(")")?;
                    l.split_configs.push(SplitConfig {
                        dimension,
                        split_indices,
                    });
                }
            }
            if self.eat("P(") {
                l.physical_shape = Some(self.balanced()?);
            }
            if self.eat("M(") {
                l.dynamic_shape_metadata_prefix_bytes = self.int()?;
                self.expect(")")?;
            }
        }
        self.expect("}")?;
        Ok(l)
    }
}

/// Parses only the `{...}` part (as in XLA's layout tests).
pub fn parse_layout(text: &str) -> Result<XlaLayout> {
    let mut p = Reader { text, pos: 0 };
    p.expect("{")?;
    let l = p.layout()?;
    p.ws();
    if p.pos != text.len() {
        return Err(p.error("the end of the layout"));
    }
    Ok(l)
}
