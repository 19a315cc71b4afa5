//! `#ttg.nvidia_mma` (mma.sync and wgmma accumulators).

use super::key_source::{self, KeySource};
use super::keys::KeyType::{Int, Ints};
use super::keys::{
    CGA_LAYOUT, CTA_ORDER, CTA_SPLIT_NUM, CTAS_PER_CGA, EncodingKind, EncodingTag, WARPS_PER_CTA,
    opt, req,
};
use super::*;

/// `#ttg.nvidia_mma`: mma.sync (version 2) or wgmma (version 3) accumulators.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvidiaMma {
    pub version_major: u32,
    pub version_minor: u32,
    pub warps_per_cta: Vec<u32>,
    pub instr_shape: Vec<u32>,
    pub cga: CgaLayout,
}

impl NvidiaMma {
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    pub fn is_hopper(&self) -> bool {
        self.version_major == 3
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        match self.version_major {
            2 => {
                // m16n8 for 8- to 32-bit types; m8n8 for f64 (`mma.sync
                // .m8n8k4.f64`).
                let matrix = match rank {
                    2 => Some(&self.instr_shape[..]),
                    3 => self.instr_shape.strip_prefix(&[1]),
                    _ => None,
                };
                if !matches!(matrix, Some([16, 8] | [8, 8])) {
                    return Err(LayoutError::invalid(
                        Subject::Param("instrShape"),
                        format!(
                            "{:?} is not an mma.sync (version 2) shape: [16, 8] or [8, 8] (f64), with a leading 1 for a batch dim",
                            self.instr_shape
                        ),
                    ));
                }
            }
            3 => {
                if rank != 2 {
                    return Err(LayoutError::invalid_of(
                        InvalidKind::Rank,
                        "#ttg.nvidia_mma",
                        "version 3 (wgmma) layouts have rank 2",
                    ));
                }
                let ok = self.instr_shape.len() == 3
                    && self.instr_shape[0] == 16
                    && self.instr_shape[1].is_multiple_of(8)
                    && (8..=256).contains(&self.instr_shape[1])
                    && [8, 16, 32].contains(&self.instr_shape[2]);
                if !ok {
                    return Err(LayoutError::invalid(
                        Subject::Param("instrShape"),
                        format!(
                            "{:?} is not a wgmma (version 3) shape [16, N, K] with N a multiple of 8 up to 256 and K in 8, 16, 32",
                            self.instr_shape
                        ),
                    ));
                }
                if !saturating_product(&self.warps_per_cta).is_multiple_of(4) {
                    return Err(LayoutError::invalid(
                        Subject::Param("warpsPerCTA"),
                        "wgmma runs on groups of 4 warps: the product must be a multiple of 4",
                    ));
                }
            }
            v => {
                return Err(LayoutError::invalid(
                    Subject::Param("versionMajor"),
                    format!(
                        "{v} is not supported (2 = mma.sync, 3 = wgmma); version 1 (Volta) has no linear layout"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Rows of one instruction's tile: 16, or 8 for f64's m8n8k4.
    pub fn instr_m(&self) -> u32 {
        let matrix = if self.is_hopper() {
            &self.instr_shape[..]
        } else {
            &self.instr_shape[self.instr_shape.len().saturating_sub(2)..]
        };
        matrix.first().copied().unwrap_or(16)
    }

    /// The accumulator tile (`[16, 8]`, `[8, 8]`, or `[16, N]` for wgmma).
    fn tile_shape(&self) -> Vec<u32> {
        if self.is_hopper() {
            self.instr_shape[..2].to_vec()
        } else {
            self.instr_shape.clone()
        }
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("nvidia_mma", rank, shape)?;
        let order = matrix_order(rank, true);
        let cta = nvidia_mma_tile(&self.tile_shape(), 2, &order, &order)?;
        let out_order: Vec<DimName> = cta.out_dim_names().cloned().collect();
        let warps = identity_nd(
            WARP,
            &self.warps_per_cta,
            &matrix_order(rank, !self.is_hopper()),
        )?
        .transpose_outs(&out_order)?;
        combine_cta_cga_with_shape(cta.product(&warps)?, &self.cga, shape)
    }
}

impl std::fmt::Display for NvidiaMma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!(
            "versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}",
            self.version_major,
            self.version_minor,
            list(&self.warps_per_cta),
            cga_keys(&self.cga),
            list(&self.instr_shape)
        );
        write!(f, "#ttg.nvidia_mma<{{{keys}}}>")
    }
}

/// Reads `#ttg.nvidia_mma`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let warps = src.list(WARPS_PER_CTA.name, true);
    Encoding::NvidiaMma(NvidiaMma {
        version_major: src.uint("versionMajor", None),
        version_minor: src.uint("versionMinor", Some(0)),
        instr_shape: src.list("instrShape", true),
        cga: key_source::cga(src, warps.len()),
        warps_per_cta: warps,
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::NvidiaMma,
    read: from_keys,
    name: "nvidia_mma",
    doc: "the accumulator of NVIDIA's mma (version 2) or wgmma (version 3) instructions",
    keys: &[
        req(
            "versionMajor",
            Int,
            "the tensor-core generation: 2 (mma.sync, Ampere) or 3 (wgmma, Hopper)",
        ),
        WARPS_PER_CTA,
        req(
            "instrShape",
            Ints,
            "the tile one instruction computes, per dim (16x8 for mma, 16xN for wgmma)",
        ),
        opt(
            "versionMinor",
            Int,
            "the variant within the generation (0 on current GPUs)",
        ),
        CGA_LAYOUT,
        CTAS_PER_CGA,
        CTA_SPLIT_NUM,
        CTA_ORDER,
    ],
};
