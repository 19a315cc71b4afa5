//! `#ttg.padded_shared`. Laid out as the Triton 3.9 wheel
//! lays it out: tests/vectors/triton/shared_encodings.md states the rules and
//! shared_encodings.json holds the wheel's layouts.

use super::key_source::{self, KeyFault, KeySource};
use super::keys::KeyType::{Bases, Intervals, Ints};
use super::keys::{EncodingKind, EncodingTag, opt, req};
use super::*;

/// The unpadded part of a `#ttg.padded_shared`: bases, or the identity
/// over a shape in an order (the short printed form).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PaddedLinear {
    /// `{offset = [...], block = [...]}`
    Bases {
        offset: Vec<Vec<u32>>,
        block: Vec<Vec<u32>>,
    },
    /// `{order = [1, 0], shape = [64, 64]}`
    Identity { order: Vec<usize>, shape: Vec<u32> },
}

/// `#ttg.padded_shared<[32:+4, ...] {...}>`: a linear layout of offsets,
/// then `pad` elements of padding after every `interval` elements. The
/// padding makes the offsets non-linear:
/// `padded(o) = o + sum over (I, P) of (o / I) * P`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaddedShared {
    /// `(interval, padding)` pairs, in elements.
    pub intervals: Vec<(u32, u32)>,
    pub linear: PaddedLinear,
}

impl PaddedShared {
    pub fn validate(&self) -> Result<()> {
        if self.intervals.is_empty() {
            return Err(LayoutError::invalid(
                "padded_shared",
                "needs at least one interval:+padding pair",
            ));
        }
        for (k, &(i, p)) in self.intervals.iter().enumerate() {
            require_pow2(|| "a padding interval".into(), &[i])?;
            require_pow2(|| "a padding amount".into(), &[p])?;
            if self.intervals[..k].iter().any(|&(j, _)| j == i) {
                return Err(LayoutError::invalid(
                    "padded_shared",
                    format!("the interval {i} is given twice"),
                ));
            }
        }
        if let PaddedLinear::Identity { order, shape } = &self.linear {
            require_permutation(Subject::Param("order"), order)?;
            require_rank(Subject::Param("shape"), shape.len(), order.len())?;
            require_pow2(|| Subject::Param("shape"), shape)?;
        }
        Ok(())
    }

    /// The unpadded offsets: Triton's `paddedLinearLayout`.
    pub fn layout(&self) -> Result<LinearLayout> {
        self.validate()?;
        match &self.linear {
            PaddedLinear::Identity { order, shape } => {
                let outs = names(shape.len());
                let mut l = LinearLayout::empty();
                for &d in order {
                    l = l.product(&identity(shape[d], OFFSET, &outs[d])?)?;
                }
                let l = l.product(&LinearLayout::identity_1d(
                    1,
                    BLOCK,
                    outs[order[0]].clone(),
                )?)?;
                l.transpose_outs(&outs)
            }
            PaddedLinear::Bases { offset, block } => {
                let as_i64 = |v: &[Vec<u32>]| -> Vec<Vec<i64>> {
                    v.iter()
                        .map(|b| b.iter().map(|&x| x as i64).collect())
                        .collect()
                };
                let rank = offset.iter().chain(block).map(Vec::len).max().unwrap_or(0);
                // Triton's verifier: the linear component moves whole rows
                // or chunks, never single elements (no per-element swizzle).
                for b in offset {
                    if b.iter().filter(|&&x| x != 0).count() != 1 {
                        return Err(LayoutError::invalid(
                            "padded_shared",
                            format!(
                                "each offset basis moves along exactly one dim, but {b:?} does not"
                            ),
                        ));
                    }
                }
                for b in offset.iter().chain(block) {
                    if b.iter().any(|&x| x != 0 && !x.is_power_of_two()) {
                        return Err(LayoutError::invalid(
                            "padded_shared",
                            format!("each basis is 0 or a power of two, but {b:?} is not"),
                        ));
                    }
                }
                let l = LinearLayout::from_bases_inferring_sizes(
                    vec![(OFFSET, as_i64(offset)), (BLOCK, as_i64(block))],
                    names(rank),
                    true,
                )?;
                let columns = l.packed_bases(OFFSET)?;
                if columns.contains(&0)
                    || crate::f2::rank(columns.iter().copied()) as usize != columns.len()
                {
                    return Err(LayoutError::invalid(
                        "padded_shared",
                        "two offsets hold the same element (Triton: broadcasting in the offset dimension is not supported)",
                    ));
                }
                Ok(l)
            }
        }
    }

    pub fn rank(&self) -> usize {
        match &self.linear {
            PaddedLinear::Identity { order, .. } => order.len(),
            PaddedLinear::Bases { offset, block } => {
                offset.iter().chain(block).map(Vec::len).max().unwrap_or(0)
            }
        }
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        let l = self.layout()?;
        let sizes: Vec<u32> = l.out_dims().iter().map(|(_, s)| *s as u32).collect();
        if sizes != shape {
            return Err(LayoutError::invalid(
                "#ttg.padded_shared",
                format!("lays out a tensor of {sizes:?}, not {shape:?}"),
            ));
        }
        Ok(l)
    }

    /// The offset of unpadded offset `o` once the padding is inserted.
    pub fn padded_offset(&self, o: u64) -> u64 {
        crate::bank::padded_offset(&self.intervals, o)
    }

    /// Elements a buffer of `n` unpadded elements takes: no padding after
    /// the last element.
    pub fn alloc_elements(&self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.padded_offset(n - 1) + 1
        }
    }
}

impl std::fmt::Display for PaddedShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pairs: Vec<String> = self
            .intervals
            .iter()
            .map(|(i, q)| format!("{i}:+{q}"))
            .collect();
        let dict = match &self.linear {
            PaddedLinear::Identity { order, shape } => {
                format!("order = {}, shape = {}", list(order), list(shape))
            }
            PaddedLinear::Bases { offset, block } => {
                format!(
                    "offset = {}, block = {}",
                    bases_list(offset),
                    bases_list(block)
                )
            }
        };
        write!(f, "#ttg.padded_shared<[{}] {{{dict}}}>", pairs.join(", "))
    }
}

/// Reads `#ttg.padded_shared`'s keys: its intervals, and its layout either
/// as `order` and `shape` or as `offset` and `block` bases.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let intervals = src.intervals("intervals");
    let linear = if src.has("order") || src.has("shape") {
        if let Some(key) = ["offset", "block"].into_iter().find(|k| src.has(k)) {
            src.reject(
                key,
                KeyFault::ConflictingForms {
                    message: "#ttg.padded_shared takes either `order` and `shape` or `offset` and `block`, not both",
                },
            );
        }
        PaddedLinear::Identity {
            order: key_source::order(src),
            shape: src.list("shape", true),
        }
    } else {
        // Triton prints both, `block = []` included, and asks for both.
        for key in ["offset", "block"] {
            if !src.has(key) {
                src.missing(key);
            }
        }
        PaddedLinear::Bases {
            offset: src.bases("offset"),
            block: src.bases("block"),
        }
    };
    Encoding::PaddedShared(PaddedShared { intervals, linear })
}

// Pasted, the padding intervals are the `[32:+4]` before the braces;
// as a call they are the key `intervals`.
/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::PaddedShared,
    read: from_keys,
    name: "padded_shared",
    doc: "a shared layout with padding inserted after every interval of elements",
    keys: &[
        req(
            "intervals",
            Intervals,
            "after every `interval` elements, `pad` elements of padding (powers of two)",
        ),
        opt(
            "order",
            Ints,
            "the dims from fastest- to slowest-varying (with `shape`: a row-major-like linear part)",
        ),
        opt(
            "shape",
            Ints,
            "the tensor shape the linear part is written for (with `order`)",
        ),
        opt(
            "offset",
            Bases,
            "the linear part as bases: per bit of the offset, the tensor coordinates",
        ),
        opt(
            "block",
            Bases,
            "per bit of the CTA id, the tensor coordinates it moves to",
        ),
    ],
};
