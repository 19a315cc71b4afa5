//! `#ttg.partitioned_shared`. Laid out as the Triton 3.9 wheel
//! lays it out: tests/vectors/triton/shared_encodings.md states the rules and
//! shared_encodings.json holds the wheel's layouts.

use super::key_source::KeySource;
use super::keys::KeyType;
use super::keys::KeyType::Int;
use super::keys::{EncodingKind, EncodingTag, req};
use super::*;

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

impl PartitionedShared {
    /// The layout as one address space: the partitions' buffers one after
    /// another, each partition bit an offset bit above the buffer. Addresses
    /// in different partitions then differ only above one buffer's bytes,
    /// so a lane's bank is the bank of its offset inside its piece — the
    /// bank model of a partitioned access (the hardware's partitions are not
    /// modelled separately).
    pub fn address_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        let layout = self.to_linear_layout(shape)?;
        let bases = layout.bases();
        let of = |name: &str| -> Vec<Vec<i64>> {
            bases
                .iter()
                .filter(|(n, _)| n.as_str() == name)
                .flat_map(|(_, v)| v.iter())
                .map(|b| b.iter().map(|&x| x as i64).collect())
                .collect()
        };
        let mut offset = of(OFFSET);
        offset.extend(of("partition"));
        LinearLayout::from_bases_with_sizes(
            vec![(OFFSET, offset), (BLOCK, of(BLOCK))],
            layout
                .out_dims()
                .into_iter()
                .map(|(n, s)| (n, s as i64))
                .collect(),
            true,
        )
    }
}

impl std::fmt::Display for PartitionedShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!(
            "numPartitions = {}, numGroups = {}, partitionDim = {}, partitionLayout = {}",
            self.num_partitions, self.num_groups, self.partition_dim, self.inner
        );
        write!(f, "#ttg.partitioned_shared<{{{keys}}}>")
    }
}

/// Reads `#ttg.partitioned_shared`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    Encoding::PartitionedShared(Box::new(PartitionedShared {
        num_partitions: src.uint("numPartitions", None),
        num_groups: src.uint("numGroups", None),
        partition_dim: src.uint("partitionDim", None) as usize,
        inner: Box::new(src.encoding("partitionLayout")),
    }))
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::PartitionedShared,
    read: from_keys,
    name: "partitioned_shared",
    doc: "shared memory split into partitions, one buffer per LDS partition",
    keys: &[
        req("numPartitions", Int, "how many partitions"),
        req("numGroups", Int, "how many groups of partitions"),
        req("partitionDim", Int, "the dim the partitions split"),
        req(
            "partitionLayout",
            KeyType::Encoding,
            "the shared layout of one partition",
        ),
    ],
};
