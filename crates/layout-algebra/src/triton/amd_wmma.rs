//! `#ttg.amd_wmma`.

use super::key_source::{self, KeySource};
use super::keys::KeyType::{Bases, Bool, Int, Ints};
use super::keys::{
    CGA_LAYOUT, CTA_ORDER, CTA_SPLIT_NUM, CTAS_PER_CGA, EncodingKind, EncodingTag, Key,
    WARPS_PER_CTA, opt,
};
use super::*;

/// `#ttg.amd_wmma`: RDNA wave-matrix accumulators (32 lanes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdWmma {
    pub version: u32,
    pub is_transposed: bool,
    /// Older dumps give `warpsPerCTA`; newer ones give `ctaLayout` bases.
    pub warps_per_cta: Vec<u32>,
    /// `ctaLayout = {register = [..], warp = [..]}`: how registers and warps
    /// repeat the instruction tile, in units of tiles (Triton 3.9's form).
    pub cta_tiles: Option<WmmaCtaTiles>,
    /// Empty means `[16, 16, 16]`.
    pub instr_shape: Vec<u32>,
    pub cga: CgaLayout,
}

/// Repetitions of the WMMA tile, in tile units.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WmmaCtaTiles {
    pub register: Vec<Vec<u32>>,
    pub warp: Vec<Vec<u32>>,
}

impl AmdWmma {
    pub fn rank(&self) -> usize {
        match &self.cta_tiles {
            Some(t) => t
                .warp
                .first()
                .or(t.register.first())
                .map_or(self.cga.rank(), |b| b.len()),
            None => self.warps_per_cta.len(),
        }
    }

    fn instr(&self) -> Vec<u32> {
        if self.instr_shape.is_empty() {
            vec![16, 16, 16]
        } else {
            self.instr_shape.clone()
        }
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        if !(2..=3).contains(&rank) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.amd_wmma",
                format!("rank must be 2 or 3, not {rank}"),
            ));
        }
        if !(1..=3).contains(&self.version) {
            return Err(LayoutError::invalid(
                Subject::Param("version"),
                format!("WMMA versions are 1, 2 and 3, not {}", self.version),
            ));
        }
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        let instr = self.instr();
        if instr.len() != 3 || instr[0] != 16 || instr[1] != 16 || !is_pow2(instr[2] as u64) {
            return Err(LayoutError::invalid(
                Subject::Param("instrShape"),
                format!("{instr:?} is not a WMMA shape [16, 16, K]"),
            ));
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("amd_wmma", rank, shape)?;
        let outs = names(rank);
        let thread_order = matrix_order(rank, !self.is_transposed);
        let tile_outs = vec![outs[thread_order[0]].clone(), outs[thread_order[1]].clone()];
        let mut tile = if self.version == 1 {
            layout_from(
                vec![
                    (REGISTER, vec![vec![0, 2], vec![0, 4], vec![0, 8]]),
                    (
                        LANE,
                        vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 1]],
                    ),
                ],
                tile_outs,
            )?
        } else {
            layout_from(
                vec![
                    (REGISTER, vec![vec![0, 1], vec![0, 2], vec![0, 4]]),
                    (
                        LANE,
                        vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
                    ),
                ],
                tile_outs,
            )?
        };
        if rank == 3 {
            tile = tile
                .product(&identity(1, REGISTER, &outs[0])?)?
                .product(&identity(1, LANE, &outs[0])?)?;
        }
        let warps = match &self.cta_tiles {
            Some(t) => tile_units(t, rank, |_| true)?,
            None => identity_nd(WARP, &self.warps_per_cta, &matrix_order(rank, true))?,
        };
        let rep: Vec<DimName> = matrix_order(rank, true)
            .into_iter()
            .map(|d| outs[d].clone())
            .collect();
        let cta = tile
            .transpose_outs(&rep)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }

    pub(super) fn dot_operand(
        &self,
        op_idx: u32,
        k_width: u32,
        shape: &[u32],
    ) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        check_rank("dot_op", self.rank(), shape)?;
        require_pow2(|| Subject::Param("kWidth"), &[k_width])?;
        let outs = names(rank);
        let order = dot_operand_order(op_idx, rank, true);
        let (dim_k, dim_non_k) = (&outs[order[0]], &outs[order[1]]);
        let instr = self.instr();
        let k_dim = instr[2];
        let non_k_dim = if op_idx == 0 { instr[0] } else { instr[1] };
        const WARP_SIZE: u32 = 32;
        if non_k_dim > WARP_SIZE {
            return Err(LayoutError::invalid(
                "#ttg.dot_op",
                format!("kWidth {k_width} does not fit the WMMA instruction {instr:?}"),
            ));
        }
        let depth = WARP_SIZE / non_k_dim;
        let mut tile =
            identity(k_width, REGISTER, dim_k)?.product(&identity(non_k_dim, LANE, dim_non_k)?)?;
        tile = tile.product(&if self.version == 1 {
            zeros(depth, LANE, dim_k)?
        } else {
            identity(depth, LANE, dim_k)?
        })?;
        tile = tile.product(&identity(k_dim / (depth * k_width), REGISTER, dim_k)?)?;
        if rank == 3 {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?;
        }
        let k_idx = if op_idx == 0 { rank - 1 } else { rank - 2 };
        // The C tile's repetitions along the operand's other matrix dim (N for
        // A, M for B) do not apply to the operand: warps there broadcast.
        let warps = match &self.cta_tiles {
            Some(t) => tile_units(t, rank, |d| d != k_idx)?,
            None => broadcasted_dot_operand(
                &self.warps_per_cta,
                &matrix_order(rank, true),
                k_idx,
                WARP,
            )?,
        };
        let rep: Vec<DimName> = dot_operand_order(op_idx, rank, true)
            .into_iter()
            .map(|d| outs[d].clone())
            .collect();
        let cta = tile
            .transpose_outs(&rep)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

impl std::fmt::Display for AmdWmma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = {
            let mut s = format!(
                "version = {}, isTranspose = {}",
                self.version, self.is_transposed
            );
            if let Some(t) = &self.cta_tiles {
                s += &format!(
                    ", ctaLayout = {{register = {}, warp = {}}}",
                    bases_list(&t.register),
                    bases_list(&t.warp)
                );
            } else {
                s += &format!(", warpsPerCTA = {}", list(&self.warps_per_cta));
            }
            if !self.instr_shape.is_empty() {
                s += &format!(", instrShape = {}", list(&self.instr_shape));
            }
            s + &cga_keys(&self.cga)
        };
        write!(f, "#ttg.amd_wmma<{{{keys}}}>")
    }
}

/// Reads `#ttg.amd_wmma`'s keys: `warpsPerCTA`, or a `ctaLayout` of
/// register and warp bases (newer Triton), which then also gives the rank.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let warps = src.list(WARPS_PER_CTA.name, false);
    let tiles = src
        .named_bases("ctaLayout", &["register", "warp"])
        .map(|mut parts| {
            let warp = parts.pop().unwrap_or_default();
            let register = parts.pop().unwrap_or_default();
            WmmaCtaTiles { register, warp }
        });
    if warps.is_empty() && tiles.is_none() {
        src.missing(WARPS_PER_CTA.name);
    }
    let rank = match src.uint("rank", Some(0)) as usize {
        _ if !warps.is_empty() => warps.len(),
        0 => tiles
            .as_ref()
            .and_then(|t| t.warp.first().or(t.register.first()).map(Vec::len))
            .unwrap_or(2),
        n => n,
    };
    Encoding::AmdWmma(AmdWmma {
        version: src.uint("version", Some(1)),
        is_transposed: src.flag("isTransposed") || src.flag("isTranspose"),
        instr_shape: src.list("instrShape", false),
        cga: key_source::cga(src, rank),
        warps_per_cta: warps,
        cta_tiles: tiles,
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::AmdWmma,
    read: from_keys,
    name: "amd_wmma",
    doc: "the accumulator of AMD's WMMA instructions (RDNA)",
    keys: &[
        opt(
            "version",
            Int,
            "the WMMA generation: 1 (RDNA3), 2 (RDNA4) or 3 (gfx1250)",
        ),
        opt("isTransposed", Bool, "whether the result is transposed"),
        opt("isTranspose", Bool, "older spelling of `isTransposed`"),
        Key {
            required: false,
            ..WARPS_PER_CTA
        },
        opt(
            "ctaLayout",
            Bases,
            "the warps' placement as bases (`{register = ..., warp = ...}` in newer Triton)",
        ),
        opt(
            "instrShape",
            Ints,
            "the M x N x K shape of one WMMA instruction (16x16x16 by default)",
        ),
        opt("rank", Int, "the tensor rank the encoding is written for"),
        CGA_LAYOUT,
        CTAS_PER_CGA,
        CTA_SPLIT_NUM,
        CTA_ORDER,
    ],
};
