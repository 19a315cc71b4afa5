//! `#ttg.amd_rotating_shared`. Laid out as the Triton 3.9 wheel
//! lays it out: tests/vectors/triton/shared_encodings.md states the rules and
//! shared_encodings.json holds the wheel's layouts.

use super::key_source::KeySource;
use super::keys::{EncodingKind, EncodingTag, SWIZZLE_KEYS};
use super::*;

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
        let per_cta = self.cga.shape_per_cta(shape)?;
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

impl std::fmt::Display for AmdRotatingShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = swizzle_keys(
            self.vec,
            self.per_phase,
            self.max_phase,
            &self.order,
            &self.cga,
        );
        write!(f, "#ttg.amd_rotating_shared<{{{keys}}}>")
    }
}

/// Reads `#ttg.amd_rotating_shared`'s keys: those of `#ttg.swizzled_shared`.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let s = super::swizzled_shared::read(src);
    Encoding::AmdRotatingShared(AmdRotatingShared {
        vec: s.vec,
        per_phase: s.per_phase,
        max_phase: s.max_phase,
        order: s.order,
        cga: s.cga,
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::AmdRotatingShared,
    read: from_keys,
    name: "amd_rotating_shared",
    doc: "AMD's shared layout whose swizzle rotates with the row",
    keys: SWIZZLE_KEYS,
};
