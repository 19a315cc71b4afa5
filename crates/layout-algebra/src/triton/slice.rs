//! `#ttg.slice`.

use super::key_source::KeySource;
use super::keys::KeyType;
use super::keys::KeyType::Int;
use super::keys::{EncodingKind, EncodingTag, req};
use super::*;

/// `#ttg.slice`: the parent with one dim removed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    pub dim: usize,
    pub parent: Encoding,
}

impl Slice {
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        if shape.is_empty() {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.slice",
                "the parent layout must have rank 2 or more",
            ));
        }
        if self.dim > shape.len() {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.slice",
                format!(
                    "dim {} is outside the parent's rank {}",
                    self.dim,
                    shape.len() + 1
                ),
            ));
        }
        let mut parent_shape = shape.to_vec();
        parent_shape.insert(self.dim, 1);
        let parent = self.parent.to_linear_layout(&parent_shape)?;
        let parent_outs = names(shape.len() + 1);
        let mut transform = LinearLayout::empty();
        for (idx, (name, size)) in parent.out_dims().into_iter().enumerate() {
            let f = if idx == self.dim {
                LinearLayout::zeros_1d(size as u32, name, parent_outs[0].clone())?
            } else {
                let to = if idx < self.dim { idx } else { idx - 1 };
                LinearLayout::identity_1d(size as u32, name, parent_outs[to].clone())?
            };
            transform = transform.product(&f)?;
        }
        let sliced = parent.compose(&transform)?;
        let bases = sliced
            .bases()
            .into_iter()
            .map(|(n, b)| {
                let strip = n == REGISTER;
                (
                    n,
                    b.into_iter()
                        .filter(|v| !strip || v.iter().any(|&x| x != 0))
                        .map(|v| v.into_iter().map(i64::from).collect())
                        .collect(),
                )
            })
            .collect();
        LinearLayout::from_bases(bases, sliced.out_dim_names().cloned().collect())
    }
}

impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!("dim = {}, parent = {}", self.dim, self.parent);
        write!(f, "#ttg.slice<{{{keys}}}>")
    }
}

/// Reads `#ttg.slice`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    Encoding::Slice(Box::new(Slice {
        dim: src.uint("dim", None) as usize,
        parent: src.encoding("parent"),
    }))
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::Slice,
    read: from_keys,
    name: "slice",
    doc: "the parent layout without dimension `dim`",
    keys: &[
        req("dim", Int, "the dim the slice removes"),
        req(
            "parent",
            KeyType::Encoding,
            "the layout sliced: an alias such as `#blocked` or a literal",
        ),
    ],
};
