//! `#ttg.nvmma_shared`.

use super::key_source::{self, KeySource};
use super::keys::KeyType::{Bool, Int};
use super::keys::{
    CGA_LAYOUT, CTA_ORDER, CTA_SPLIT_NUM, CTAS_PER_CGA, EncodingKind, EncodingTag, opt, req,
};
use super::*;

/// `#ttg.nvmma_shared`: the TMA / wgmma shared layout with a 0, 32, 64 or
/// 128-byte swizzle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvmmaShared {
    pub swizzling_byte_width: u32,
    pub transposed: bool,
    pub element_bit_width: u32,
    pub fp4_padded: bool,
    pub cga: CgaLayout,
}

impl NvmmaShared {
    /// Elements per 16-byte vector.
    pub fn vec(&self) -> u32 {
        128 / self.element_bit_width
    }

    /// (perPhase, maxPhase) of the swizzle.
    pub fn phases(&self) -> (u32, u32) {
        match self.swizzling_byte_width {
            32 => (4, 2),
            64 => (2, 4),
            128 => (1, 8),
            _ => (1, 1),
        }
    }

    pub fn validate(&self) -> Result<()> {
        if ![0, 32, 64, 128].contains(&self.swizzling_byte_width) {
            return Err(LayoutError::invalid(
                Subject::Param("swizzlingByteWidth"),
                format!(
                    "must be 0, 32, 64 or 128, not {}",
                    self.swizzling_byte_width
                ),
            ));
        }
        if ![4, 8, 16, 32, 64].contains(&self.element_bit_width) {
            return Err(LayoutError::invalid(
                Subject::Param("elementBitWidth"),
                format!(
                    "must be 8, 16, 32 or 64 (or 4), not {}",
                    self.element_bit_width
                ),
            ));
        }
        Ok(())
    }

    /// One 8-row core matrix of the swizzle (`getCoreMatrixLinearLayout`).
    fn core_matrix(&self) -> Result<LinearLayout> {
        let tile_cols =
            8 * self.swizzling_byte_width.max(16) as i64 / self.element_bit_width as i64;
        let (per_phase, max_phase) = self.phases();
        let vec = self.vec() as i64;
        let pack = |c: i64| {
            if self.fp4_padded {
                c / 16 * 8 + c % 8
            } else {
                c
            }
        };
        let mut bases = Vec::new();
        let mut col = 1;
        while col < tile_cols {
            bases.push(vec![0, pack(col)]);
            col *= 2;
        }
        let mut row = 1i64;
        while row < 8 {
            bases.push(vec![
                row,
                pack(vec * ((row / per_phase as i64) % max_phase as i64)),
            ]);
            row *= 2;
        }
        layout_from(vec![(OFFSET, bases)], names(2))
    }

    /// `getTMABlockShape`: the box one TMA copy moves.
    fn tma_block_shape(&self, per_cta: &[u32]) -> Result<Vec<u32>> {
        let mut block: Vec<u32> = per_cta.to_vec();
        let contig = if self.transposed { 0 } else { block.len() - 1 };
        if self.fp4_padded {
            block[contig] *= 2;
        }
        for s in &mut block {
            *s = (*s).min(256);
        }
        if self.swizzling_byte_width != 0 {
            let contig_size = 8 * self.swizzling_byte_width / self.element_bit_width;
            if block[contig] < contig_size {
                return Err(LayoutError::invalid(
                    "#ttg.nvmma_shared",
                    format!(
                        "the contiguous dim holds {} elements, fewer than one {}-byte swizzle row ({contig_size})",
                        per_cta[contig], self.swizzling_byte_width
                    ),
                ));
            }
            block[contig] = contig_size;
        }
        if self.fp4_padded {
            block[contig] /= 2;
        }
        Ok(block)
    }

    /// The TMA messages one copy of a `shape` tile into or out of this
    /// layout takes: Triton clamps the box to 256 elements per dim and its
    /// contiguous dim to one swizzle row, and issues a copy per box of the
    /// CTA's share (`cp.async.bulk.tensor` twice for 64 f32 under a
    /// 128-byte swizzle).
    pub fn tma_messages(&self, shape: &[u32]) -> Result<u64> {
        self.validate()?;
        require_cta_rank("CTA placement", self.cga.rank(), shape.len())?;
        let per_cta = self.cga.shape_per_cta(shape)?;
        let block = self.tma_block_shape(&per_cta)?;
        Ok(per_cta
            .iter()
            .zip(&block)
            .map(|(&s, &b)| u64::from(s.div_ceil(b.max(1))))
            .product())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let per_cta = self.cga.shape_per_cta(shape)?;
        let outs = names(rank);
        if rank == 1 {
            return combine_cta_cga_with_shape(
                identity(per_cta[0], OFFSET, &outs[0])?,
                &self.cga,
                shape,
            );
        }
        let tma = self.tma_block_shape(&per_cta)?;
        let per_cta64: Vec<u64> = per_cta.iter().map(|&s| s as u64).collect();
        if self.swizzling_byte_width == 0 {
            // Unswizzled: plain row-major tiles, the contiguous dim fastest
            // (the last dim, or dim 0 when transposed).
            let order: Vec<usize> = if self.transposed {
                std::iter::once(0).chain((1..rank).rev()).collect()
            } else {
                (0..rank).rev().collect()
            };
            let mut layout = LinearLayout::empty();
            for &d in &order {
                layout = layout.product(&identity(tma[d], OFFSET, &outs[d])?)?;
            }
            let layout = ensure_not_smaller(layout, &outs, &per_cta64)?;
            return combine_cta_cga_with_shape(layout, &self.cga, shape);
        }
        let mut collapsed = [
            tma[..rank - 1].iter().map(|&s| s as u64).product::<u64>(),
            tma[rank - 1] as u64,
        ];
        if self.transposed {
            collapsed.swap(0, 1);
        }
        let tile = self.core_matrix()?;
        let two = names(2);
        let (tile_rows, tile_cols) = (tile.out_dim_size(&two[0]), tile.out_dim_size(&two[1]));
        let packing = if self.fp4_padded { 2 } else { 1 };
        if collapsed[1] * packing < tile_cols || collapsed[0] < tile_rows {
            return Err(LayoutError::invalid(
                "#ttg.nvmma_shared",
                format!(
                    "the tensor tile must be at least [{tile_rows}, {}] for this swizzle, but is {:?}",
                    tile_cols / packing,
                    collapsed
                ),
            ));
        }
        let layout = ensure_not_smaller(tile, &two, &collapsed)?;
        let mut target: Vec<u32> = tma.clone();
        if self.transposed {
            target.rotate_left(1);
        }
        let mut reshaped = reshape_row_major(&layout, &target)?;
        if self.transposed {
            let mut order = vec![rank - 1];
            order.extend(0..rank - 1);
            reshaped = permute_coordinates(&reshaped, &order)?;
        }
        let reshaped = ensure_not_smaller(reshaped, &outs, &per_cta64)?;
        combine_cta_cga_with_shape(reshaped, &self.cga, shape)
    }
}

impl std::fmt::Display for NvmmaShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!(
            "swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}{}{}",
            self.swizzling_byte_width,
            self.transposed,
            self.element_bit_width,
            if self.fp4_padded {
                ", fp4Padded = true"
            } else {
                ""
            },
            cga_keys(&self.cga)
        );
        write!(f, "#ttg.nvmma_shared<{{{keys}}}>")
    }
}

/// Reads `#ttg.nvmma_shared`'s keys. Its rank is `rank`, else the length
/// of `CTAOrder` or of a `CGALayout` basis, else 2.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let rank = match src.uint("rank", Some(0)) as usize {
        0 if src.has("CTAOrder") => src.list("CTAOrder", false).len(),
        0 if src.has("CGALayout") => src.first_entry_len("CGALayout").unwrap_or(2),
        0 => 2,
        rank => rank,
    };
    Encoding::NvmmaShared(NvmmaShared {
        swizzling_byte_width: src.uint("swizzlingByteWidth", None),
        transposed: src.flag("transposed"),
        element_bit_width: src.uint("elementBitWidth", None),
        fp4_padded: src.flag("fp4Padded"),
        cga: key_source::cga(src, rank),
    })
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::NvmmaShared,
    read: from_keys,
    name: "nvmma_shared",
    doc: "the shared layout NVIDIA's wgmma/tcgen05 read: swizzles of 32, 64 or 128 bytes",
    keys: &[
        req(
            "swizzlingByteWidth",
            Int,
            "0, 32, 64 or 128: the width of the swizzle pattern in bytes",
        ),
        req("elementBitWidth", Int, "bits per element"),
        opt(
            "transposed",
            Bool,
            "whether the buffer is stored transposed (its first dim fastest)",
        ),
        opt(
            "fp4Padded",
            Bool,
            "whether packed fp4 elements are padded as the mma's operand expects",
        ),
        opt(
            "rank",
            Int,
            "the tensor rank the encoding is written for (default 2)",
        ),
        CGA_LAYOUT,
        CTAS_PER_CGA,
        CTA_SPLIT_NUM,
        CTA_ORDER,
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn nvmma(swizzle: u32, bits: u32, transposed: bool) -> NvmmaShared {
        NvmmaShared {
            swizzling_byte_width: swizzle,
            transposed,
            element_bit_width: bits,
            fp4_padded: false,
            cga: CgaLayout::single(2),
        }
    }

    /// Triton's box: at most 256 elements a dim, the contiguous dim one
    /// swizzle row; a copy takes one message per box (the compiled
    /// kernels' `cp.async.bulk.tensor` counts, `matmul_ws_f32_one_warp`,
    /// `persistent_descriptors_ws_256` in the kernel corpus).
    #[test]
    fn a_tma_copy_takes_a_message_per_box() {
        assert_eq!(nvmma(128, 16, false).tma_messages(&[128, 64]).unwrap(), 1);
        assert_eq!(nvmma(128, 32, false).tma_messages(&[128, 64]).unwrap(), 2);
        assert_eq!(nvmma(128, 32, false).tma_messages(&[128, 128]).unwrap(), 4);
        assert_eq!(nvmma(128, 16, false).tma_messages(&[128, 256]).unwrap(), 4);
        assert_eq!(nvmma(64, 16, false).tma_messages(&[64, 64]).unwrap(), 2);
        // Transposed: dim 0 is the contiguous one.
        assert_eq!(nvmma(128, 16, true).tma_messages(&[128, 64]).unwrap(), 2);
        // Unswizzled: only the 256-element bound splits.
        assert_eq!(nvmma(0, 16, false).tma_messages(&[512, 64]).unwrap(), 2);
        assert_eq!(nvmma(0, 8, false).tma_messages(&[64, 512]).unwrap(), 2);
        // Fewer elements than one swizzle row is not a TMA layout.
        assert!(nvmma(128, 16, false).tma_messages(&[64, 32]).is_err());
    }
}
