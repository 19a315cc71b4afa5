//! `#ttg.amd_mfma`.

use super::key_source::{self, KeySource};
use super::keys::KeyType::{Bool, Int, Ints};
use super::keys::{
    CGA_LAYOUT, CTA_ORDER, CTA_SPLIT_NUM, CTAS_PER_CGA, EncodingKind, EncodingTag, WARPS_PER_CTA,
    opt, req,
};
use super::*;

/// `#ttg.amd_mfma`: CDNA matrix-core accumulators (64 lanes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdMfma {
    pub version: u32,
    pub warps_per_cta: Vec<u32>,
    pub instr_shape: Vec<u32>,
    pub is_transposed: bool,
    /// Empty means one tile per warp in every dim.
    pub tiles_per_warp: Vec<u32>,
    /// 0 means the default (32).
    pub element_bit_width: u32,
    pub cga: CgaLayout,
}

impl AmdMfma {
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    fn tiles_per_warp(&self) -> Vec<u32> {
        if self.tiles_per_warp.is_empty() {
            vec![1; self.rank()]
        } else {
            self.tiles_per_warp.clone()
        }
    }

    fn element_bits(&self) -> u32 {
        if self.element_bit_width == 0 {
            32
        } else {
            self.element_bit_width
        }
    }

    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        if !(2..=3).contains(&rank) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.amd_mfma",
                format!("rank must be 2 or 3, not {rank}"),
            ));
        }
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        require_rank(
            Subject::Param("tilesPerWarp"),
            self.tiles_per_warp().len(),
            rank,
        )?;
        require_pow2(|| Subject::Param("tilesPerWarp"), &self.tiles_per_warp())?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        let (m, n) = (
            self.instr_shape.first().copied().unwrap_or(0),
            self.instr_shape.get(1).copied().unwrap_or(0),
        );
        let ok = matches!((m, n), (32, 32) | (16, 16) | (4, 4) | (64, 4) | (4, 64));
        if !ok || self.instr_shape.len() != 3 {
            return Err(LayoutError::invalid(
                Subject::Param("instrShape"),
                format!(
                    "{:?} is not an MFMA shape: [32, 32, K], [16, 16, K], [4, 4, K], [64, 4, K] or [4, 64, K]",
                    self.instr_shape
                ),
            ));
        }
        if (m, n) == (64, 4) && !self.is_transposed {
            return Err(LayoutError::invalid(
                "#ttg.amd_mfma",
                "a 64x4 MFMA layout must be transposed",
            ));
        }
        if self.version > 4 {
            return Err(LayoutError::invalid(
                Subject::Param("version"),
                format!("MFMA versions are 0 to 4, not {}", self.version),
            ));
        }
        if ![32, 64].contains(&self.element_bits()) {
            return Err(LayoutError::invalid(
                Subject::Param("elementBitWidth"),
                format!("must be 32 or 64, not {}", self.element_bit_width),
            ));
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank("amd_mfma", rank, shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let batch = rank == 3;
        let (m_idx, n_idx) = (batch as usize, batch as usize + 1);
        let outs = names(rank);
        let order = matrix_order(rank, true);
        let (dim_m, dim_n) = (&outs[order[1]], &outs[order[0]]);
        let (m_dim, n_dim) = (self.instr_shape[0], self.instr_shape[1]);
        let height = if self.element_bits() == 64 { 1 } else { 4 };
        const WARP_SIZE: u32 = 64;
        let tiles = (m_dim * n_dim) / (WARP_SIZE * height);
        let mut tile = if !self.is_transposed {
            let regs = identity(height, REGISTER, dim_m)?;
            let lanes = identity(n_dim, LANE, dim_n)?.product(&identity(
                WARP_SIZE / n_dim,
                LANE,
                dim_m,
            )?)?;
            let mut t = regs.product(&lanes)?;
            if tiles > 0 {
                t = t.product(&identity(tiles, REGISTER, dim_m)?)?;
            }
            t
        } else {
            let regs = identity(height, REGISTER, dim_n)?;
            let lanes = identity(m_dim, LANE, dim_m)?.product(&identity(
                WARP_SIZE / m_dim,
                LANE,
                dim_n,
            )?)?;
            let mut t = regs.product(&lanes)?;
            if tiles > 0 {
                t = t.product(&identity(tiles, REGISTER, dim_n)?)?;
            }
            t
        };
        tile = tile.transpose_outs(&[dim_n.clone(), dim_m.clone()])?;
        let tpw = self.tiles_per_warp();
        let (tpw_m, tpw_n) = (tpw[m_idx], tpw[n_idx]);
        let (wpc_m, wpc_n) = (self.warps_per_cta[m_idx], self.warps_per_cta[n_idx]);
        tile = tile
            .product(&identity(tpw_n, REGISTER, dim_n)?)?
            .product(&identity(wpc_n, WARP, dim_n)?)?
            .product(&identity(
                // In u64: a huge warp count must not overflow.
                (shape[n_idx] as u64 / (n_dim as u64 * wpc_n as u64 * tpw_n as u64)) as u32,
                REGISTER,
                dim_n,
            )?)?
            .product(&identity(tpw_m, REGISTER, dim_m)?)?
            .product(&identity(wpc_m, WARP, dim_m)?)?;
        if batch {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?
                .product(&identity(self.warps_per_cta[0], WARP, b)?)?;
        }
        combine_cta_cga_with_shape(tile, &self.cga, shape)
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
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        require_pow2(|| Subject::Param("kWidth"), &[k_width])?;
        let batch = rank == 3;
        let non_k_idx = if op_idx == 0 { rank - 2 } else { rank - 1 };
        let k_idx = if op_idx == 0 { rank - 1 } else { rank - 2 };
        let tpw_non_k = self.tiles_per_warp()[non_k_idx];
        let (m_dim, n_dim) = (self.instr_shape[0], self.instr_shape[1]);
        let non_k_dim = if op_idx == 0 { m_dim } else { n_dim };
        const WARP_SIZE: u32 = 64;
        let k_size = shape[k_idx];
        let outs = names(rank);
        let order = dot_operand_order(op_idx, rank, true);
        let (dim_k, dim_non_k) = (&outs[order[0]], &outs[order[1]]);
        let regs = identity(k_width, REGISTER, dim_k)?;
        let lanes = identity(non_k_dim, LANE, dim_non_k)?.product(&identity(
            WARP_SIZE / non_k_dim,
            LANE,
            dim_k,
        )?)?;
        let mut tile = regs.product(&lanes)?;
        let mut k_tile = WARP_SIZE / non_k_dim * k_width;
        if (m_dim == 64 && n_dim == 4 && op_idx == 0) || (m_dim == 4 && n_dim == 64 && op_idx == 1)
        {
            tile = tile.product(&identity(16, REGISTER, dim_k)?)?;
            k_tile *= 16;
        }
        if k_size > k_tile {
            tile = tile.product(&identity(k_size / k_tile, REGISTER, dim_k)?)?;
        }
        tile = tile.product(&identity(tpw_non_k, REGISTER, dim_non_k)?)?;
        tile = tile.transpose_outs(&[dim_k.clone(), dim_non_k.clone()])?;
        if batch {
            let b = &outs[order[2]];
            tile = tile
                .product(&identity(1, REGISTER, b)?)?
                .product(&identity(1, LANE, b)?)?;
        }
        let warps = identity_nd(WARP, &self.warps_per_cta, &matrix_order(rank, true))?;
        combine_cta_cga_with_shape(tile.product(&warps)?, &self.cga, shape)?.transpose_outs(&outs)
    }
}

impl std::fmt::Display for AmdMfma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = {
            let mut s = format!(
                "version = {}, warpsPerCTA = {}, instrShape = {}, isTransposed = {}",
                self.version,
                list(&self.warps_per_cta),
                list(&self.instr_shape),
                self.is_transposed
            );
            if !self.tiles_per_warp.is_empty() {
                s += &format!(", tilesPerWarp = {}", list(&self.tiles_per_warp));
            }
            if self.element_bit_width != 0 {
                s += &format!(", elementBitWidth = {}", self.element_bit_width);
            }
            s + &cga_keys(&self.cga)
        };
        write!(f, "#ttg.amd_mfma<{{{keys}}}>")
    }
}

/// Reads `#ttg.amd_mfma`'s keys (`version`, or the older `versionMajor`).
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let warps = src.list(WARPS_PER_CTA.name, true);
    let version = if src.has("version") {
        src.uint("version", None)
    } else {
        src.uint("versionMajor", Some(3))
    };
    Encoding::AmdMfma(AmdMfma {
        version,
        instr_shape: src.list("instrShape", true),
        is_transposed: src.flag("isTransposed"),
        tiles_per_warp: src.list("tilesPerWarp", false),
        element_bit_width: src.uint("elementBitWidth", Some(0)),
        cga: key_source::cga(src, warps.len()),
        warps_per_cta: warps,
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::AmdMfma,
    read: from_keys,
    name: "amd_mfma",
    doc: "the accumulator of AMD's MFMA instructions (CDNA)",
    keys: &[
        WARPS_PER_CTA,
        req(
            "instrShape",
            Ints,
            "the M x N tile of one MFMA instruction (32x32 or 16x16)",
        ),
        opt(
            "version",
            Int,
            "the MFMA generation: 1 to 4 (CDNA1 to CDNA4)",
        ),
        opt(
            "versionMajor",
            Int,
            "older spelling of `version` (Triton before 3.4)",
        ),
        opt("versionMinor", Int, "older minor version; ignored"),
        opt(
            "isTransposed",
            Bool,
            "whether the result is transposed, so each thread holds consecutive elements of a row",
        ),
        opt(
            "tilesPerWarp",
            Ints,
            "MFMA tiles each warp repeats along each dim before the next warp",
        ),
        opt(
            "elementBitWidth",
            Int,
            "bits per result element (64 for f64 MFMA)",
        ),
        CGA_LAYOUT,
        CTAS_PER_CGA,
        CTA_SPLIT_NUM,
        CTA_ORDER,
    ],
};
