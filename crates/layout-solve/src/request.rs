//! What a search is asked: the accesses, the family of answers, the
//! machine, and the limits.

use std::time::Duration;

use layout_algebra::bank::{Direction, TensorDims};
use layout_algebra::linear::LinearLayout;

/// A swizzle request: a shared layout for the tensor these accesses store
/// and load.
#[derive(Clone, Debug)]
pub struct SwizzleRequest {
    /// The tensor's dims (`dim0` first) and sizes.
    pub tensor: TensorDims,
    pub element_bits: u32,
    pub accesses: Vec<AccessRequest>,
    pub family: Family,
    pub instructions: InstructionPolicy,
    pub machine: Machine,
    /// No access may use a narrower vector than this (bits per lane).
    pub min_vector_bits: Option<u32>,
    /// Shared-memory bytes the answer may use (padding counts).
    pub budget_bytes: Option<u64>,
    /// Offsets whose tensor coordinate is fixed: `(offset bit, coordinate)`
    /// pins `S(1 << bit) = coordinate` (packed, `dim0` lowest).
    pub fixed: Vec<(u32, u64)>,
    /// How long Z3 may search before the best answer found is reported.
    pub timeout: Duration,
    /// The CuTe family's base when the user gives one (`Sw<B,M,S> o base`);
    /// else row- and column-major.
    pub cute_base: Option<layout_algebra::cute::Layout>,
}

/// One store into or load out of the buffer.
#[derive(Clone, Debug)]
pub struct AccessRequest {
    /// How the user named it (`write`, `read`, or the tensor type's text).
    pub label: String,
    pub direction: Direction,
    /// `register`, `lane`, `warp`, `block` -> the tensor dims.
    pub layout: LinearLayout,
    /// How much this access's wavefronts count (1 unless the user says).
    pub weight: u64,
}

/// The notations an answer may be restricted to (CONTRACT §2 `family`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Any invertible GF(2) map from offsets to the tensor.
    Linear,
    /// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`.
    Triton,
    /// `#ttg.nvmma_shared`: 0/32/64/128-byte swizzles, optionally transposed.
    Nvmma,
    /// `Sw<B,M,S> o` a row- or column-major layout.
    Cute,
    /// `#ttg.padded_shared`: a row- or column-major layout with padding.
    Padded,
}

impl Family {
    pub const ALL: [Family; 5] = [
        Family::Linear,
        Family::Triton,
        Family::Nvmma,
        Family::Cute,
        Family::Padded,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Linear => "linear",
            Family::Triton => "triton",
            Family::Nvmma => "nvmma",
            Family::Cute => "cute",
            Family::Padded => "padded",
        }
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The families users write by name: their members are listed once per
    /// request, to prefer them among equal answers and to write the answer
    /// in their notations.
    pub const FAMILIAR: [Family; 3] = [Family::Triton, Family::Nvmma, Family::Cute];
}

/// Which instructions the accesses may use (CONTRACT §2 `instructions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstructionPolicy {
    /// `ld.shared`/`st.shared` (`ds_read`/`ds_write`), the widest vector
    /// up to 128 bits.
    Vector,
    /// `ldmatrix`/`stmatrix` where legal, else the widest vector.
    Matrix,
    /// Whichever costs fewer wavefronts, per access.
    Best,
}

impl InstructionPolicy {
    pub fn name(self) -> &'static str {
        match self {
            InstructionPolicy::Vector => "vector",
            InstructionPolicy::Matrix => "matrix",
            InstructionPolicy::Best => "best",
        }
    }

    pub fn from_name(name: &str) -> Option<InstructionPolicy> {
        [
            InstructionPolicy::Vector,
            InstructionPolicy::Matrix,
            InstructionPolicy::Best,
        ]
        .into_iter()
        .find(|p| p.name() == name)
    }
}

pub use layout_algebra::machine::Machine;

/// A tiling request: the TPU layout of an XLA array with the least padding.
#[derive(Clone, Debug)]
pub struct TilingRequest {
    pub element_type: String,
    pub dims: Vec<i64>,
    /// A dim that must stay most minor.
    pub minor_dim: Option<usize>,
    /// The most padded bytes an answer may have.
    pub max_padded_bytes: Option<u64>,
    /// Tiles to choose from instead of the TPU formats (each a list of
    /// tile levels, e.g. `[[8, 128], [2, 1]]`).
    pub candidate_tiles: Vec<Vec<Vec<i64>>>,
    /// Tile sizes to search instead of listing formats.
    pub tile_search: Option<TileSearch>,
    /// How long a tile search may take.
    pub timeout: std::time::Duration,
}

/// A search over the integer sizes of a one-level tile: each tile dim a
/// multiple of its granule, the tile's element count within bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileSearch {
    /// The granule of each tile dim, as XLA writes a tile: the most minor
    /// last (`[8, 128]`: a multiple of 8 rows by a multiple of 128).
    pub multiple: Vec<i64>,
    /// The fewest elements a tile may hold.
    pub min_elements: Option<i64>,
    /// The most elements a tile may hold.
    pub max_elements: Option<i64>,
    pub method: TileMethod,
}

/// How a tile search is carried out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TileMethod {
    /// List every tile when there are few enough, else Z3.
    #[default]
    Auto,
    /// List every tile, however many.
    Enumerate,
    /// Z3 over the tile sizes (feature `z3`).
    Z3,
}
