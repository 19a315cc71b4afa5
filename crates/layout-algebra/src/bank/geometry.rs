//! An access's geometry, independent of the shared layout.
//!
//! What a warp's access costs depends on the shared layout `S` only through
//! the linear map from tensor coordinates to shared offsets, `S⁻¹`
//! ([`OffsetMap`]). Everything else — which tensor element each register
//! and lane holds, which lanes one instruction serves together — belongs to
//! the access ([`AccessGeometry`]). A solver keeps the geometry of each
//! access and asks [`AccessGeometry::wavefronts`] for every candidate map.

use crate::error::{LayoutError, Result};
use crate::linear::{DimName, LinearLayout};

/// A tensor's coordinates packed into one word: `dim0` in the lowest bits.
pub type TensorDims = Vec<(DimName, u64)>;

/// The linear map from packed tensor coordinates to shared offsets (the
/// inverse of a shared layout on its `offset` in-dim): `columns[j]` is the
/// offset of the tensor coordinate with only bit `j` set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetMap {
    columns: Vec<u64>,
}

impl OffsetMap {
    /// The map from its columns.
    pub fn from_columns(columns: Vec<u64>) -> Self {
        OffsetMap { columns }
    }

    /// `shared`'s inverse on `offset` (`offset`, `block` -> tensor), over the
    /// tensor dims `tensor` (the order the accesses pack them in).
    pub fn from_shared(shared: &LinearLayout, tensor: &[(DimName, u64)]) -> Result<Self> {
        if !shared.has_in_dim(OFFSET) {
            return Err(LayoutError::invalid(
                "shared layout",
                "has no 'offset' in-dim",
            ));
        }
        // The identity on the tensor (in-dims named after the tensor dims)
        // composed with S⁻¹ gives the offset of every coordinate bit.
        let identity = LinearLayout::from_bases_with_sizes(
            tensor
                .iter()
                .map(|(name, size)| {
                    let bases = (0..size.trailing_zeros())
                        .map(|b| {
                            tensor
                                .iter()
                                .map(|(n, _)| if n == name { 1i64 << b } else { 0 })
                                .collect()
                        })
                        .collect();
                    (name.as_str().to_string(), bases)
                })
                .collect(),
            tensor.iter().map(|(n, s)| (n.clone(), *s as i64)).collect(),
            true,
        )?;
        let to_offset = identity.invert_and_compose(shared)?;
        let offset_index = to_offset
            .out_dim_names()
            .position(|n| n == OFFSET)
            .ok_or_else(|| LayoutError::invalid("shared layout", "has no 'offset' out"))?;
        let mut columns = Vec::new();
        for (name, _) in tensor {
            for i in 0..to_offset.in_dim_size_log2(name.as_str()) as usize {
                columns.push(to_offset.basis(name.as_str(), i)?[offset_index] as u64);
            }
        }
        Ok(OffsetMap { columns })
    }

    /// The inverse of a shared layout given as the tensor coordinate of
    /// each offset bit (`bases[i] = S(1 << i)`); `None` unless the bases are
    /// independent and span all `bases.len()` tensor bits.
    pub fn from_offset_bases(bases: &[u64]) -> Option<Self> {
        let n = bases.len() as u32;
        let mut echelon = crate::f2::Echelon::new();
        for &b in bases {
            if b >> n != 0 || !echelon.insert(b) {
                return None;
            }
        }
        let columns = (0..n)
            .map(|j| echelon.solve(1 << j))
            .collect::<Option<Vec<u64>>>()?;
        Some(OffsetMap { columns })
    }

    /// The tensor coordinate of each offset bit (`S(1 << i)`), the inverse
    /// of [`OffsetMap::from_offset_bases`].
    pub fn offset_bases(&self) -> Option<Vec<u64>> {
        let mut echelon = crate::f2::Echelon::new();
        for &c in &self.columns {
            if !echelon.insert(c) {
                return None;
            }
        }
        (0..self.columns.len())
            .map(|i| echelon.solve(1 << i))
            .collect()
    }

    /// The packed tensor coordinate at `offset` (`None` when the map is
    /// not invertible or `offset` lies outside it).
    pub fn coordinate_of(&self, offset: u64) -> Option<u64> {
        let mut echelon = crate::f2::Echelon::new();
        for &c in &self.columns {
            echelon.insert(c);
        }
        echelon.solve(offset)
    }

    /// The offset of a packed tensor coordinate.
    pub fn apply(&self, coordinate: u64) -> u64 {
        self.columns
            .iter()
            .enumerate()
            .filter(|(j, _)| coordinate >> j & 1 == 1)
            .fold(0, |acc, (_, &c)| acc ^ c)
    }

    pub fn columns(&self) -> &[u64] {
        &self.columns
    }

    /// The shared layout (`offset` -> the tensor dims) whose inverse this
    /// map is; `None` when the map is not a bijection onto the offsets.
    pub fn to_shared_layout(&self, tensor: &[(DimName, u64)]) -> Result<Option<LinearLayout>> {
        let n = self.columns.len() as u32;
        if crate::f2::rank(self.columns.iter().copied()) != n
            || self.columns.iter().any(|&c| c >> n != 0)
        {
            return Ok(None);
        }
        let mut at = 0;
        let forward = LinearLayout::from_bases_with_sizes(
            tensor
                .iter()
                .map(|(name, size)| {
                    let bits = size.trailing_zeros() as usize;
                    let bases = self.columns[at..at + bits]
                        .iter()
                        .map(|&c| vec![c as i64])
                        .collect();
                    at += bits;
                    (name.as_str().to_string(), bases)
                })
                .collect(),
            vec![(DimName::from(OFFSET), 1i64 << n)],
            true,
        )?;
        Ok(Some(forward.invert()?))
    }
}

const OFFSET: &str = "offset";
const REGISTER: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";

/// One warp's access, before any shared layout: the tensor coordinate
/// (packed over [`AccessGeometry::tensor`]) of each register and lane basis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccessGeometry {
    pub tensor: TensorDims,
    /// Register bases, broadcast (repeated) registers removed.
    pub registers: Vec<u64>,
    pub lanes: Vec<u64>,
    /// Warp bases (the other warps' parts; Triton's lowering adds a
    /// register's offset as a constant only when it shares no bit with
    /// any lane's or warp's).
    pub warps: Vec<u64>,
    pub element_bits: u32,
}

impl AccessGeometry {
    /// The geometry of `distributed` (`register`, `lane`, ... -> tensor).
    pub fn new(distributed: &LinearLayout, element_bits: u32) -> Result<Self> {
        for dim in [REGISTER, LANE] {
            if !distributed.has_in_dim(dim) {
                return Err(LayoutError::invalid(
                    "distributed layout",
                    "needs 'register' and 'lane' in-dims",
                ));
            }
        }
        let free = distributed
            .free_variable_masks()
            .into_iter()
            .find(|(n, _)| n == REGISTER)
            .map_or(0, |(_, m)| m);
        let registers = distributed
            .packed_bases(REGISTER)?
            .iter()
            .enumerate()
            .filter(|(i, _)| free >> i & 1 == 0)
            .map(|(_, &w)| w)
            .collect();
        Ok(AccessGeometry {
            tensor: distributed.out_dims(),
            registers,
            lanes: distributed.packed_bases(LANE)?.to_vec(),
            warps: if distributed.has_in_dim(WARP) {
                distributed.packed_bases(WARP)?.to_vec()
            } else {
                Vec::new()
            },
            element_bits,
        })
    }

    /// Packed tensor bits.
    pub fn tensor_bits(&self) -> u32 {
        self.tensor.iter().map(|(_, s)| s.trailing_zeros()).sum()
    }

    /// The register and lane bases as shared offsets under `map`.
    pub fn offsets(&self, map: &OffsetMap) -> (Vec<u64>, Vec<u64>) {
        (
            self.registers.iter().map(|&r| map.apply(r)).collect(),
            self.lanes.iter().map(|&l| map.apply(l)).collect(),
        )
    }

    /// The access as a distributed layout again (`register`, `lane` -> the
    /// tensor), with its broadcast registers dropped.
    pub fn as_distributed(&self) -> Result<LinearLayout> {
        let unpack = |word: u64| -> Vec<i64> {
            let mut shift = 0;
            self.tensor
                .iter()
                .map(|(_, size)| {
                    let bits = size.trailing_zeros();
                    let v = (word >> shift) & ((1u64 << bits) - 1);
                    shift += bits;
                    v as i64
                })
                .collect()
        };
        LinearLayout::from_bases_with_sizes(
            vec![
                (
                    REGISTER,
                    self.registers.iter().map(|&w| unpack(w)).collect(),
                ),
                (LANE, self.lanes.iter().map(|&w| unpack(w)).collect()),
            ],
            self.tensor
                .iter()
                .map(|(n, s)| (n.clone(), *s as i64))
                .collect(),
            false,
        )
    }

    /// Bytes one warp moves: each distinct element it holds once.
    pub fn warp_bytes(&self) -> u64 {
        let distinct = crate::f2::rank(self.registers.iter().chain(&self.lanes).copied());
        (1u64 << distinct) * self.element_bits as u64 / 8
    }
}
