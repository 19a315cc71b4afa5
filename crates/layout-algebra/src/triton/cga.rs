//! CTA placement: how the CTAs of a cluster split a tensor (`CGALayout`, and the
//! older `CTAsPerCGA` / `CTASplitNum` / `CTAOrder`).

use super::*;

/// How the CTAs of a cluster (CGA) map to tiles of the tensor: one basis per
/// bit of the CTA id, in units of CTA tiles (Triton 3.9's `CGALayout`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CgaLayout {
    rank: usize,
    bases: Vec<Vec<u32>>,
}

impl CgaLayout {
    /// One CTA.
    pub fn single(rank: usize) -> Self {
        CgaLayout {
            rank,
            bases: Vec::new(),
        }
    }

    /// From the `CGALayout = [[..], ..]` bases.
    pub fn from_bases(rank: usize, bases: Vec<Vec<u32>>) -> Result<Self> {
        for (i, b) in bases.iter().enumerate() {
            if b.len() != rank {
                return Err(LayoutError::invalid_of(
                    InvalidKind::CtaPlacement,
                    Subject::Param("CGALayout"),
                    format!(
                        "basis {i} has {} entries but the layout has rank {rank}",
                        b.len()
                    ),
                ));
            }
        }
        require_permutation_bases(
            InvalidKind::CtaPlacement,
            Subject::Param("CGALayout"),
            &bases,
        )?;
        let layout = CgaLayout { rank, bases };
        layout.to_linear()?;
        Ok(layout)
    }

    /// From the older `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` triple: along
    /// each dim (minor first in `CTAOrder`), `split` CTAs take distinct tiles
    /// and the remaining `ctas / split` repeat them (seed 000 `makeCgaLayout`).
    pub fn from_split(ctas_per_cga: &[u32], split_num: &[u32], order: &[usize]) -> Result<Self> {
        let rank = ctas_per_cga.len();
        require_cta_rank(Subject::Param("CTASplitNum"), split_num.len(), rank)?;
        require_cta_rank(Subject::Param("CTAOrder"), order.len(), rank)?;
        require_permutation(Subject::Param("CTAOrder"), order)?;
        require_pow2(|| Subject::Param("CTAsPerCGA"), ctas_per_cga)?;
        require_pow2(|| Subject::Param("CTASplitNum"), split_num)?;
        let mut bases = Vec::new();
        for &dim in order {
            let (ctas, split) = (ctas_per_cga[dim], split_num[dim]);
            if ctas % split != 0 {
                return Err(LayoutError::invalid_of(
                    InvalidKind::CtaPlacement,
                    Subject::Param("CTAsPerCGA"),
                    format!(
                        "CTAsPerCGA[{dim}] = {ctas} is not a multiple of CTASplitNum[{dim}] = {split}"
                    ),
                ));
            }
            let mut tile = 1;
            while tile < split {
                let mut b = vec![0; rank];
                b[dim] = tile;
                bases.push(b);
                tile *= 2;
            }
            for _ in 0..(ctas / split).trailing_zeros() {
                bases.push(vec![0; rank]);
            }
        }
        Ok(CgaLayout { rank, bases })
    }

    /// The CTAs' placement of a dot operand whose parent (the dot's
    /// result) this is: a CTA split of the result along N splits B, not A,
    /// and one along M splits A, not B, so the operand's K dim is never
    /// split (`DotOperandEncodingAttr::getCGALayout`: each block basis's K
    /// entry cleared). `op_idx` is 0 for A (K its last dim), 1 for B (K
    /// the one before).
    pub fn of_dot_operand(&self, op_idx: u32) -> CgaLayout {
        let Some(k_dim) = self.rank.checked_sub(if op_idx == 0 { 1 } else { 2 }) else {
            return self.clone();
        };
        let bases = self
            .bases
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b[k_dim] = 0;
                b
            })
            .collect();
        CgaLayout {
            rank: self.rank,
            bases,
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn bases(&self) -> &[Vec<u32>] {
        &self.bases
    }

    pub fn num_ctas(&self) -> u64 {
        1 << self.bases.len()
    }

    /// `block -> dim0..` with each dim sized by the tiles it reaches.
    pub fn to_linear(&self) -> Result<LinearLayout> {
        let bases = self
            .bases
            .iter()
            .map(|b| b.iter().map(|&v| v as i64).collect())
            .collect();
        let mut out_dims = vec![1i64; self.rank];
        for b in &self.bases {
            for (d, &v) in b.iter().enumerate() {
                if v > 0 {
                    out_dims[d] = out_dims[d].max(((v as u64 + 1).next_power_of_two()) as i64);
                }
            }
        }
        LinearLayout::from_bases_with_sizes(
            vec![(BLOCK, bases)],
            names(self.rank).into_iter().zip(out_dims).collect(),
            false,
        )
    }

    /// One CTA's tile of a tensor of `shape`: the trailing dims split into
    /// the CTA tiles, leading ones (a buffer's pipeline stages) whole
    /// (Triton's `getShapePerCTA`).
    pub fn shape_per_cta(&self, shape: &[u32]) -> Result<Vec<u32>> {
        let split = self.split()?;
        let leading = shape.len().saturating_sub(split.len());
        Ok(shape
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let tiles = i.checked_sub(leading).map_or(1, |j| split[j].max(1));
                ((s as u64 / tiles).max(1)) as u32
            })
            .collect())
    }

    /// Tiles per dim: the tensor is split into this many CTA tiles.
    pub fn split(&self) -> Result<Vec<u64>> {
        let l = self.to_linear()?;
        Ok(names(self.rank).iter().map(|n| l.out_dim_size(n)).collect())
    }
}
