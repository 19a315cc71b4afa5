//! `#ttg.swizzled_shared`.

use super::key_source::{self, KeySource};
use super::keys::{EncodingKind, EncodingTag, SWIZZLE_KEYS};
use super::*;

/// `#ttg.swizzled_shared`: rows of the two minor dims are XOR-swizzled in
/// groups of `vec` elements by `(row / perPhase) % maxPhase`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledShared {
    pub vec: u32,
    pub per_phase: u32,
    pub max_phase: u32,
    pub order: Vec<usize>,
    pub cga: CgaLayout,
}

impl SwizzledShared {
    pub fn validate(&self) -> Result<()> {
        validate_swizzle(
            self.vec,
            self.per_phase,
            self.max_phase,
            &self.order,
            &self.cga,
        )
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        check_rank("swizzled_shared", self.order.len(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let per_cta = self.cga.shape_per_cta(shape)?;
        let outs = names(shape.len());
        if shape.len() == 1 {
            return combine_cta_cga_with_shape(
                identity(per_cta[0], OFFSET, &outs[0])?,
                &self.cga,
                shape,
            );
        }
        let (col_dim, row_dim) = (self.order[0], self.order[1]);
        let (num_cols, num_rows) = (per_cta[col_dim] as i64, per_cta[row_dim] as i64);
        let mut bases = Vec::new();
        let mut col = 1;
        while col < num_cols {
            bases.push(vec![0, col]);
            col *= 2;
        }
        let mut row = 1i64;
        while row < num_rows {
            let phase = (row / self.per_phase as i64) % self.max_phase as i64;
            bases.push(vec![row, (self.vec as i64 * phase) % num_cols]);
            row *= 2;
        }
        let mut cta = LinearLayout::from_bases_with_sizes(
            vec![(OFFSET, bases)],
            vec![
                (outs[row_dim].clone(), num_rows),
                (outs[col_dim].clone(), num_cols),
            ],
            true,
        )?;
        for &dim in &self.order[2..] {
            cta = cta.product(&identity(per_cta[dim], OFFSET, &outs[dim])?)?;
        }
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

impl std::fmt::Display for SwizzledShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = swizzle_keys(
            self.vec,
            self.per_phase,
            self.max_phase,
            &self.order,
            &self.cga,
        );
        write!(f, "#ttg.swizzled_shared<{{{keys}}}>")
    }
}

/// Reads `#ttg.swizzled_shared`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    Encoding::SwizzledShared(read(src))
}

/// The swizzle's keys, which `#ttg.amd_rotating_shared` shares.
pub(super) fn read(src: &mut dyn KeySource) -> SwizzledShared {
    let order = key_source::order(src);
    SwizzledShared {
        vec: src.uint("vec", None),
        per_phase: src.uint("perPhase", None),
        max_phase: src.uint("maxPhase", None),
        cga: key_source::cga(src, order.len()),
        order,
    }
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::SwizzledShared,
    read: from_keys,
    name: "swizzled_shared",
    doc: "shared memory with XOR swizzling: `vec` elements per phase step, `perPhase` rows per phase, `maxPhase` phases",
    keys: SWIZZLE_KEYS,
};
