//! `#ttg.dot_op`.

use super::key_source::KeySource;
use super::keys::KeyType;
use super::keys::KeyType::Int;
use super::keys::{EncodingKind, EncodingTag, opt, req};
use super::*;

/// `#ttg.dot_op`: operand `op_idx` (0 = A, 1 = B) of a dot whose result has
/// the parent layout; each thread holds `k_width` consecutive K elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotOperand {
    pub op_idx: u32,
    pub k_width: u32,
    pub parent: Encoding,
}

impl DotOperand {
    pub fn validate(&self) -> Result<()> {
        if self.op_idx > 1 {
            return Err(LayoutError::invalid(
                Subject::Param("opIdx"),
                format!("must be 0 (A) or 1 (B), not {}", self.op_idx),
            ));
        }
        match &self.parent {
            Encoding::NvidiaMma(m) => {
                if !is_pow2(self.k_width as u64) {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        format!(
                            "an MMA operand needs a power-of-two kWidth, not {}",
                            self.k_width
                        ),
                    ));
                }
                if m.is_hopper() && self.op_idx == 1 {
                    return Err(LayoutError::invalid(
                        "#ttg.dot_op",
                        "wgmma (version 3) takes operand B from shared memory, not registers",
                    ));
                }
            }
            Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => {
                if !is_pow2(self.k_width as u64) {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        format!("must be a power of two, not {}", self.k_width),
                    ));
                }
            }
            Encoding::Blocked(_) => {
                if self.k_width != 0 {
                    return Err(LayoutError::invalid(
                        Subject::Param("kWidth"),
                        "a dot operand of a blocked (FMA) layout takes no kWidth (it must be 0)",
                    ));
                }
            }
            other => {
                return Err(LayoutError::invalid(
                    "#ttg.dot_op",
                    format!(
                        "the parent must be blocked, nvidia_mma, amd_mfma or amd_wmma, not {}",
                        other.kind()
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        if !(2..=3).contains(&shape.len()) {
            return Err(LayoutError::invalid_of(
                InvalidKind::Rank,
                "#ttg.dot_op",
                format!(
                    "a dot operand has rank 2 or 3 (with a batch dim), but the tensor {shape:?} has rank {}",
                    shape.len()
                ),
            ));
        }
        match &self.parent {
            Encoding::Blocked(b) => self.fma_operand(b, shape),
            Encoding::AmdMfma(m) => m.dot_operand(self.op_idx, self.k_width, shape),
            Encoding::AmdWmma(w) => w.dot_operand(self.op_idx, self.k_width, shape),
            Encoding::NvidiaMma(m) => self.nvidia_operand(m, shape),
            _ => unreachable!("validated"),
        }
    }

    /// FMA dot: each thread holds the whole K extent of its rows/columns.
    fn fma_operand(&self, blocked: &Blocked, shape: &[u32]) -> Result<LinearLayout> {
        blocked.validate()?;
        let rank = shape.len();
        check_rank("dot_op", blocked.rank(), shape)?;
        require_pow2(
            || format!("every dim of the tensor shape {shape:?}").into(),
            shape,
        )?;
        let k_idx = if self.op_idx == 0 { rank - 1 } else { rank - 2 };
        let mut thread_size = blocked.size_per_thread.clone();
        thread_size[k_idx] = shape[k_idx];
        let outs = names(rank);
        let rep: Vec<DimName> = blocked.order.iter().map(|&d| outs[d].clone()).collect();
        let regs = identity_nd(REGISTER, &thread_size, &blocked.order)?;
        let lanes =
            broadcasted_dot_operand(&blocked.threads_per_warp, &blocked.order, k_idx, LANE)?;
        let warps = broadcasted_dot_operand(&blocked.warps_per_cta, &blocked.order, k_idx, WARP)?;
        let cta = regs
            .transpose_outs(&rep)?
            .product(&lanes.transpose_outs(&rep)?)?
            .product(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(cta, &blocked.cga, shape)
    }

    fn nvidia_operand(&self, mma: &NvidiaMma, shape: &[u32]) -> Result<LinearLayout> {
        mma.validate()?;
        let rank = shape.len();
        check_rank("dot_op", mma.rank(), shape)?;
        let is_a = self.op_idx == 0;
        // One instruction's operand: M (16, or 8 for f64) rows by K, where
        // K holds 4 lanes of kWidth elements once per 8 rows of M.
        let m = mma.instr_m();
        let k = self.k_width * 4 * (m / 8);
        let mut tile = vec![1; rank];
        if is_a {
            tile[rank - 2] = m;
            tile[rank - 1] = k;
        } else {
            tile[rank - 2] = k;
            tile[rank - 1] = 8;
        }
        let order = dot_operand_order(self.op_idx, rank, true);
        let cta = nvidia_mma_tile(&tile, self.k_width, &order, &order)?;
        let k_dim = if is_a { rank - 1 } else { rank - 2 };
        let out_order: Vec<DimName> = cta.out_dim_names().cloned().collect();
        let warps = broadcasted_dot_operand(
            &mma.warps_per_cta,
            &matrix_order(rank, !mma.is_hopper()),
            k_dim,
            WARP,
        )?
        .transpose_outs(&out_order)?;
        // The operand's own CTA placement (`getCTALayout(dot)`), unlike
        // AMD's dot operands, which keep their parent's.
        combine_cta_cga_with_shape(
            cta.product(&warps)?,
            &mma.cga.of_dot_operand(self.op_idx),
            shape,
        )
    }
}

impl std::fmt::Display for DotOperand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = {
            let mut s = format!("opIdx = {}, parent = {}", self.op_idx, self.parent);
            if self.k_width != 0 {
                s += &format!(", kWidth = {}", self.k_width);
            }
            s
        };
        write!(f, "#ttg.dot_op<{{{keys}}}>")
    }
}

/// Reads `#ttg.dot_op`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    Encoding::DotOperand(Box::new(DotOperand {
        op_idx: src.uint("opIdx", None),
        k_width: src.uint("kWidth", Some(0)),
        parent: src.encoding("parent"),
    }))
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::DotOp,
    read: from_keys,
    name: "dot_op",
    doc: "operand `opIdx` (0 = A, 1 = B) of a dot whose result has the parent layout",
    keys: &[
        req("opIdx", Int, "which operand of the dot: 0 for A, 1 for B"),
        req(
            "parent",
            KeyType::Encoding,
            "the layout of the dot's result: an alias such as `#mma` or a literal",
        ),
        opt(
            "kWidth",
            Int,
            "consecutive K elements each thread holds (0 for a blocked parent)",
        ),
    ],
};
