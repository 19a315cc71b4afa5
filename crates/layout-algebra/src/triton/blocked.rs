//! `#ttg.blocked`.

use super::key_source::{self, KeySource};
use super::keys::KeyType::Ints;
use super::keys::{
    CGA_LAYOUT, CTA_ORDER, CTA_SPLIT_NUM, CTAS_PER_CGA, EncodingKind, EncodingTag, WARPS_PER_CTA,
    req,
};
use super::*;

/// `#ttg.blocked`: each thread holds a `sizePerThread` block, threads and
/// warps tile it following `order` (minor dim first).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub size_per_thread: Vec<u32>,
    pub threads_per_warp: Vec<u32>,
    pub warps_per_cta: Vec<u32>,
    pub order: Vec<usize>,
    pub cga: CgaLayout,
}

impl Blocked {
    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// Checks the parameters on their own (not against a target).
    pub fn validate(&self) -> Result<()> {
        let rank = self.rank();
        require_rank(
            Subject::Param("sizePerThread"),
            self.size_per_thread.len(),
            rank,
        )?;
        require_rank(
            Subject::Param("threadsPerWarp"),
            self.threads_per_warp.len(),
            rank,
        )?;
        require_rank(
            Subject::Param("warpsPerCTA"),
            self.warps_per_cta.len(),
            rank,
        )?;
        require_cta_rank("CTA placement", self.cga.rank(), rank)?;
        require_permutation(Subject::Param("order"), &self.order)?;
        require_pow2(|| Subject::Param("sizePerThread"), &self.size_per_thread)?;
        require_pow2(|| Subject::Param("threadsPerWarp"), &self.threads_per_warp)?;
        require_pow2(|| Subject::Param("warpsPerCTA"), &self.warps_per_cta)?;
        Ok(())
    }

    pub fn to_linear_layout(&self, shape: &[u32]) -> Result<LinearLayout> {
        self.validate()?;
        check_rank("blocked", self.rank(), shape)?;
        let cta = identity_nd(REGISTER, &self.size_per_thread, &self.order)?
            .product(&identity_nd(LANE, &self.threads_per_warp, &self.order)?)?
            .product(&identity_nd(WARP, &self.warps_per_cta, &self.order)?)?;
        combine_cta_cga_with_shape(cta, &self.cga, shape)
    }
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = format!(
            "sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}",
            list(&self.size_per_thread),
            list(&self.threads_per_warp),
            list(&self.warps_per_cta),
            list(&self.order),
            cga_keys(&self.cga)
        );
        write!(f, "#ttg.blocked<{{{keys}}}>")
    }
}

/// Reads `#ttg.blocked`'s keys.
pub(super) fn from_keys(src: &mut dyn KeySource) -> Encoding {
    let order = key_source::order(src);
    let blocked = Blocked {
        size_per_thread: src.list("sizePerThread", true),
        threads_per_warp: src.list("threadsPerWarp", true),
        warps_per_cta: src.list(WARPS_PER_CTA.name, true),
        cga: key_source::cga(src, order.len()),
        order,
    };
    key_source::require_rank(
        src,
        &[
            ("sizePerThread", blocked.size_per_thread.len()),
            ("threadsPerWarp", blocked.threads_per_warp.len()),
            (WARPS_PER_CTA.name, blocked.warps_per_cta.len()),
        ],
        blocked.order.len(),
    );
    Encoding::Blocked(blocked)
}

/// The kind's name and keys as TTGIR spells them (an entry of
/// [`super::keys::ENCODING_KINDS`]).
pub(super) const KIND: EncodingKind = EncodingKind {
    tag: EncodingTag::Blocked,
    read: from_keys,
    name: "blocked",
    doc: "each thread owns `sizePerThread` contiguous elements; threads and warps tile the rest in `order`",
    keys: &[
        req(
            "sizePerThread",
            Ints,
            "elements each thread holds, per dim (contiguous along the fastest dim)",
        ),
        req(
            "threadsPerWarp",
            Ints,
            "threads of a warp along each dim; multiplies to the warp size",
        ),
        WARPS_PER_CTA,
        req(
            "order",
            Ints,
            "the dims from fastest- to slowest-varying (a permutation)",
        ),
        CGA_LAYOUT,
        CTAS_PER_CGA,
        CTA_SPLIT_NUM,
        CTA_ORDER,
    ],
};
