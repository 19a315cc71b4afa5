//! The shared-memory encodings of real AMD and Gluon dumps, beside
//! `swizzled_shared` and `nvmma_shared`: `#ttg.amd_rotating_shared`,
//! `#ttg.shared_linear`, `#ttg.padded_shared` and
//! `#ttg.partitioned_shared`. Each behaves as the Triton 3.9 wheel lays it
//! out; tests/vectors/triton/shared_encodings.md states the rules and
//! shared_encodings.json holds the wheel's layouts.

use super::{
    BLOCK, CgaLayout, Encoding, OFFSET, combine_cta_cga_with_shape, identity, names,
    require_permutation, require_pow2, require_rank, shape_per_cta, validate_swizzle,
};
use crate::error::{InvalidKind, LayoutError, Result, Subject};
use crate::linear::{DimName, LinearLayout};

/// `#ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order}>`: a
/// swizzled layout whose phase also rotates from one block of
/// `perPhase * maxPhase` rows to the next, so that rows a block apart do
/// not meet in the same banks. Phase of row r:
/// `((r / perPhase) % maxPhase) ^ ((r / (perPhase * maxPhase)) % maxPhase)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdRotatingShared {
    pub vec: u32,
    pub per_phase: u32,
    pub max_phase: u32,
    pub order: Vec<usize>,
    pub cga: CgaLayout,
}

impl AmdRotatingShared {
    pub fn validate(&self) -> Result<()> {
        validate_swizzle(
            self.vec,
            self.per_phase,
            self.max_phase,
            &self.order,
            &self.cga,
        )
    }

    /// Like Triton, the rows and columns are those of the whole tensor (not
    /// of one CTA's share); the CTA placement then cuts them.
    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        super::check_rank("amd_rotating_shared", self.order.len(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let outs = names(shape.len());
        if shape.len() == 1 {
            return combine_cta_cga_with_shape(
                identity(shape[0], OFFSET, &outs[0])?,
                &self.cga,
                shape,
            );
        }
        let rank = shape.len();
        let (col_dim, row_dim) = (self.order[0], self.order[1]);
        let (num_cols, num_rows) = (shape[col_dim] as i64, shape[row_dim] as i64);
        let (vec, per_phase, max_phase) = (
            self.vec as i64,
            self.per_phase as i64,
            self.max_phase as i64,
        );
        let at = |pairs: &[(usize, i64)]| -> Vec<i64> {
            let mut b = vec![0i64; rank];
            for &(d, v) in pairs {
                b[d] = v;
            }
            b
        };
        let mut bases = Vec::new();
        let mut col = 1;
        while col < num_cols {
            bases.push(at(&[(col_dim, col)]));
            col *= 2;
        }
        let mut row = 1i64;
        while row < num_rows {
            let phase =
                ((row / per_phase) % max_phase) ^ ((row / max_phase / per_phase) % max_phase);
            bases.push(at(&[(row_dim, row), (col_dim, (vec * phase) % num_cols)]));
            row *= 2;
        }
        for &dim in &self.order[2..] {
            let mut k = 1i64;
            while k < shape[dim] as i64 {
                bases.push(at(&[(dim, k)]));
                k *= 2;
            }
        }
        // One CTA holds `per_cta` of the tensor: as in the wheel, every
        // coordinate past it is cut to 0 (which may leave zero bases).
        let per_cta = shape_per_cta(&self.cga, shape)?;
        for b in &mut bases {
            for (d, v) in b.iter_mut().enumerate() {
                if *v >= per_cta[d] as i64 {
                    *v = 0;
                }
            }
        }
        let cta = LinearLayout::from_bases_with_sizes(
            vec![(OFFSET, bases)],
            outs.iter()
                .cloned()
                .zip(per_cta.iter().map(|&s| s as i64))
                .collect(),
            false,
        )?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

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

/// `#ttg.partitioned_shared<{numPartitions, numGroups, partitionDim,
/// partitionLayout}>` (Gluon's AMD CDNA5 layout): the tensor is cut along
/// `partitionDim` into `numPartitions * numGroups` pieces; piece q lives in
/// partition `q % numPartitions`, laid out by the inner encoding. In-dims
/// `offset`, `block`, `partition`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartitionedShared {
    pub num_partitions: u32,
    pub num_groups: u32,
    pub partition_dim: usize,
    pub inner: Box<Encoding>,
}

impl PartitionedShared {
    pub fn validate(&self) -> Result<()> {
        require_pow2(|| "numPartitions".into(), &[self.num_partitions])?;
        require_pow2(|| "numGroups".into(), &[self.num_groups])?;
        if self.num_partitions < 2 {
            return Err(LayoutError::invalid(
                Subject::Param("numPartitions"),
                "must be at least 2".to_string(),
            ));
        }
        if !self.inner.is_shared() {
            return Err(LayoutError::invalid(
                Subject::Param("partitionLayout"),
                format!("must be a shared encoding, not #ttg.{}", self.inner.kind()),
            ));
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let pd = self.partition_dim;
        if pd >= shape.len() {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                Subject::Param("partitionDim"),
                format!("is {pd}, but the tensor has rank {}", shape.len()),
            ));
        }
        let pieces = self.num_partitions as u64 * self.num_groups as u64;
        if !(shape[pd] as u64).is_multiple_of(pieces) || (shape[pd] as u64) < pieces {
            return Err(LayoutError::invalid(
                "partitioned_shared",
                format!(
                    "cuts dim {pd} of {shape:?} into {pieces} pieces, which does not divide it"
                ),
            ));
        }
        let piece = (shape[pd] as u64 / pieces) as u32;
        let mut inner_shape = shape.to_vec();
        inner_shape[pd] = piece;
        let base = self.inner.to_linear_layout(&inner_shape)?;
        let rank = shape.len();
        let unit = |k: u64| -> Vec<i64> {
            (0..rank)
                .map(|d| if d == pd { k as i64 } else { 0 })
                .collect()
        };
        let mut offset: Vec<Vec<i64>> = bases_of(&base, OFFSET)
            .into_iter()
            .map(|b| b.into_iter().map(|x| x as i64).collect())
            .collect();
        let stride = piece as u64 * self.num_partitions as u64;
        for j in 0..self.num_groups.trailing_zeros() {
            offset.push(unit(stride << j));
        }
        let partition: Vec<Vec<i64>> = (0..self.num_partitions.trailing_zeros())
            .map(|i| unit((piece as u64) << i))
            .collect();
        let block: Vec<Vec<i64>> = bases_of(&base, BLOCK)
            .into_iter()
            .map(|b| b.into_iter().map(|x| x as i64).collect())
            .collect();
        let outs: Vec<(DimName, i64)> = names(rank)
            .into_iter()
            .zip(shape.iter().map(|&s| s as i64))
            .collect();
        LinearLayout::from_bases_with_sizes(
            vec![(OFFSET, offset), (BLOCK, block), ("partition", partition)],
            outs,
            true,
        )
    }
}

/// The bases of one in-dim, empty when the layout has no such dim.
fn bases_of(l: &LinearLayout, in_dim: &str) -> Vec<Vec<u32>> {
    l.bases()
        .into_iter()
        .find(|(n, _)| n == in_dim)
        .map(|(_, b)| b)
        .unwrap_or_default()
}
