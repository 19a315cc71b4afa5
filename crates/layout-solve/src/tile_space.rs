//! One choice of tiled dims and the tile sizes it allows: what the
//! listing of `tiling` and the Z3 search of `smt_tiling` both walk.

use crate::request::TileSearch;

/// The tiles of one choice of tiled dims: the dims the tile covers (most
/// minor first) and, for each, its granule and the largest size worth
/// trying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TileSpace {
    pub minor: Vec<usize>,
    pub granule: Vec<i64>,
    pub upper: Vec<i64>,
    /// The product of the dims the tile does not cover.
    pub untiled: i64,
}

impl TileSpace {
    /// Tiles in this space (each size a multiple of its granule).
    pub fn len(&self) -> u64 {
        self.granule
            .iter()
            .zip(&self.upper)
            .map(|(g, u)| (u / g) as u64)
            .fold(1u64, u64::saturating_mul)
    }

    /// Padded elements with tile sizes `sizes` (most minor first): each
    /// tiled dim rounds up to a multiple of its tile size.
    pub fn padded(&self, dims: &[i64], sizes: &[i64]) -> i64 {
        self.minor
            .iter()
            .zip(sizes)
            .map(|(&d, &t)| (dims[d] + t - 1) / t * t)
            .product::<i64>()
            * self.untiled
    }
}

impl TileSpace {
    /// No tile in the space pads less: each tiled dim rounds up at least
    /// to its granule.
    #[cfg_attr(not(feature = "z3"), allow(dead_code))]
    pub fn floor(&self, dims: &[i64]) -> i64 {
        self.minor
            .iter()
            .zip(&self.granule)
            .map(|(&d, &g)| (dims[d] + g - 1) / g * g)
            .product::<i64>()
            * self.untiled
    }
}

/// Whether a tile's element count is allowed.
pub(crate) fn elements_allowed(search: &TileSearch, sizes: &[i64]) -> bool {
    let n: i64 = sizes.iter().product();
    search.min_elements.is_none_or(|m| n >= m) && search.max_elements.is_none_or(|m| n <= m)
}
