//! `#ttg.shared_linear`. Laid out as the Triton 3.9 wheel
//! lays it out: tests/vectors/triton/shared_encodings.md states the rules and
//! shared_encodings.json holds the wheel's layouts.

use super::key_source::KeySource;
use super::keys::KeyType::{Bases, Int};
use super::keys::{EncodingKind, EncodingTag, opt, req};
use super::*;

/// `#ttg.shared_linear<{offset = [...], block = [...]}, alignment = N>`: a
/// shared layout given by its bases.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedLinear {
    pub offset: Vec<Vec<u32>>,
    pub block: Vec<Vec<u32>>,
    pub alignment: u32,
}

impl SharedLinear {
    /// The layout its bases define; out-dim sizes are the powers of two
    /// above the largest coordinate, as Triton infers them.
    pub fn layout(&self) -> Result<LinearLayout> {
        require_pow2(|| "alignment".into(), &[self.alignment])?;
        let rank = self
            .offset
            .iter()
            .chain(&self.block)
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        for b in self.offset.iter().chain(&self.block) {
            if b.len() != rank {
                return Err(LayoutError::invalid(
                    "shared_linear",
                    format!(
                        "every basis has {rank} coordinates, but one has {}",
                        b.len()
                    ),
                ));
            }
        }
        let as_i64 = |v: &[Vec<u32>]| -> Vec<Vec<i64>> {
            v.iter()
                .map(|b| b.iter().map(|&x| x as i64).collect())
                .collect()
        };
        let l = LinearLayout::from_bases_inferring_sizes(
            vec![(OFFSET, as_i64(&self.offset)), (BLOCK, as_i64(&self.block))],
            names(rank),
            true,
        )?;
        let nonzero: Vec<u64> = l.columns().filter(|&c| c != 0).collect();
        if crate::f2::rank(nonzero.iter().copied()) as usize != nonzero.len() {
            return Err(LayoutError::invalid(
                "shared_linear",
                "two offsets (or blocks) hold the same element; its non-zero bases must be independent",
            ));
        }
        Ok(l)
    }

    pub fn rank(&self) -> usize {
        self.offset
            .iter()
            .chain(&self.block)
            .map(Vec::len)
            .max()
            .unwrap_or(0)
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        let l = self.layout()?;
        let sizes: Vec<u32> = l.out_dims().iter().map(|(_, s)| *s as u32).collect();
        if sizes != shape {
            return Err(LayoutError::invalid(
                "#ttg.shared_linear",
                format!("lays out a tensor of {sizes:?}, not {shape:?}"),
            ));
        }
        Ok(l)
    }
}

impl std::fmt::Display for SharedLinear {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let block = if self.block.is_empty() {
            String::new()
        } else {
            format!(", block = {}", bases_list(&self.block))
        };
        write!(
            f,
            "#ttg.shared_linear<{{offset = {}{block}}}, alignment = {}>",
            bases_list(&self.offset),
            self.alignment
        )
    }
}

/// Reads `#ttg.shared_linear`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    Encoding::SharedLinear(SharedLinear {
        offset: src.bases("offset"),
        block: src.bases("block"),
        alignment: src.uint("alignment", None),
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::SharedLinear,
    read: from_keys,
    name: "shared_linear",
    doc: "a shared layout given by its bases: `offset` (and `block`) -> dims",
    keys: &[
        req(
            "offset",
            Bases,
            "per bit of the element offset, the tensor coordinates it moves to",
        ),
        req("alignment", Int, "the alignment of the buffer in bytes"),
        opt(
            "block",
            Bases,
            "per bit of the CTA id, the tensor coordinates it moves to",
        ),
    ],
};
