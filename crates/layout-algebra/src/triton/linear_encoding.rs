//! `#ttg.linear`.

use super::key_source::KeySource;
use super::keys::KeyType::{Bases, Ints};
use super::keys::{EncodingKind, EncodingTag, opt};
use super::*;

/// `#ttg.linear`: explicit bases for `register`, `lane`, `warp`, `block`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearEncoding {
    pub register: Vec<Vec<u32>>,
    pub lane: Vec<Vec<u32>>,
    pub warp: Vec<Vec<u32>>,
    pub block: Vec<Vec<u32>>,
    /// The tensor shape the bases were written for; `None` means the shape
    /// the layout is applied to.
    pub shape: Option<Vec<u32>>,
}

impl LinearEncoding {
    /// The bases as given (sizes inferred, so they must reach every
    /// coordinate), fitted to `shape` like every other encoding: a smaller
    /// tensor broadcasts, a larger one wraps into more registers.
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        require_permutation_bases(
            InvalidKind::Other,
            "#ttg.linear".into(),
            self.register
                .iter()
                .chain(&self.lane)
                .chain(&self.warp)
                .chain(&self.block),
        )?;
        let rank = shape.len();
        let conv = |b: &Vec<Vec<u32>>| -> Result<Vec<Vec<i64>>> {
            b.iter()
                .map(|v| {
                    if v.len() != rank {
                        return Err(LayoutError::invalid_of(
                            InvalidKind::Rank,
                            "#ttg.linear",
                            format!(
                                "basis {v:?} has {} entries but the tensor has rank {rank}",
                                v.len()
                            ),
                        ));
                    }
                    Ok(v.iter().map(|&x| x as i64).collect())
                })
                .collect()
        };
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let own = self.shape.as_deref().unwrap_or(shape);
        if own.len() != rank {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.linear",
                format!(
                    "was written for rank {} but the tensor has rank {rank}",
                    own.len()
                ),
            ));
        }
        require_pow2(
            || format!("every dim of the layout's shape {own:?}").into(),
            own,
        )?;
        let bases = vec![
            (REGISTER, conv(&self.register)?),
            (LANE, conv(&self.lane)?),
            (WARP, conv(&self.warp)?),
            (BLOCK, conv(&self.block)?),
        ];
        // Without a `shape` (as TTGIR prints it), the layout's own sizes are
        // those its bases reach, as Triton infers them; the tensor may be
        // smaller (it broadcasts) or larger (it wraps).
        let layout = match &self.shape {
            Some(_) => LinearLayout::from_bases_with_sizes(
                bases,
                names(rank)
                    .into_iter()
                    .zip(own.iter().map(|&s| s as i64))
                    .collect(),
                true,
            )?,
            None => LinearLayout::from_bases_inferring_sizes(bases, names(rank), true)?,
        };
        // Grow along the layout's own order: the dims its bases move in,
        // registers first, then the untouched dims from the last.
        let mut order: Vec<usize> = Vec::new();
        for b in self
            .register
            .iter()
            .chain(&self.lane)
            .chain(&self.warp)
            .chain(&self.block)
        {
            if let Some(d) = b.iter().position(|&x| x != 0)
                && !order.contains(&d)
            {
                order.push(d);
            }
        }
        order.extend(
            (0..rank)
                .rev()
                .filter(|d| !order.contains(d))
                .collect::<Vec<_>>(),
        );
        let outs = names(rank);
        let by_order: Vec<DimName> = order.iter().map(|&d| outs[d].clone()).collect();
        let sizes: Vec<u64> = order.iter().map(|&d| shape[d] as u64).collect();
        let grown = ensure_not_smaller(layout, &by_order, &sizes)?;
        let labeled: Vec<(DimName, u64)> = by_order.into_iter().zip(sizes).collect();
        ensure_not_larger(&grown, &labeled, true)
    }
}

impl std::fmt::Display for LinearEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!(
            "register = {}, lane = {}, warp = {}, block = {}",
            bases_list(&self.register),
            bases_list(&self.lane),
            bases_list(&self.warp),
            bases_list(&self.block)
        );
        write!(f, "#ttg.linear<{{{keys}}}>")
    }
}

/// Reads `#ttg.linear`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let shape = src.has("shape").then(|| src.list("shape", false));
    Encoding::Linear(LinearEncoding {
        register: src.bases("register"),
        lane: src.bases("lane"),
        warp: src.bases("warp"),
        block: src.bases("block"),
        shape,
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::Linear,
    read: from_keys,
    name: "linear",
    doc: "a distributed layout given by its bases: `register`, `lane`, `warp`, `block` -> dims",
    keys: &[
        opt(
            "register",
            Bases,
            "per bit of the register index, the tensor coordinates it moves to",
        ),
        opt(
            "lane",
            Bases,
            "per bit of the lane id, the tensor coordinates it moves to",
        ),
        opt(
            "warp",
            Bases,
            "per bit of the warp id, the tensor coordinates it moves to",
        ),
        opt(
            "block",
            Bases,
            "per bit of the CTA id, the tensor coordinates it moves to",
        ),
        opt("shape", Ints, "the tensor shape the bases were written for"),
    ],
};
