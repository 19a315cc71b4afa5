//! Reading an encoding from its keys. Each encoding's module says how its
//! keys make the encoding (`from_keys`, listed in its [`EncodingKind`] row);
//! a front end says where the values come from and where a problem is
//! reported by implementing [`KeySource`] (the checker reads the pasted
//! attribute's values and reports at their spans).
//!
//! Reads never fail: a source reports a missing or mistyped key itself and
//! answers a neutral value (0, an empty list), so that one pass reports
//! every problem of an attribute; the caller discards the encoding when
//! anything was reported.
//!
//! [`EncodingKind`]: super::keys::EncodingKind

use super::{CgaLayout, Encoding};
use crate::error::LayoutError;

/// Where an encoding's key values come from.
pub trait KeySource {
    /// Whether the attribute gives `key`.
    fn has(&self, key: &str) -> bool;
    /// An unsigned integer; `default` when absent (absent and no default:
    /// reported missing).
    fn uint(&mut self, key: &'static str, default: Option<u32>) -> u32;
    /// A list of unsigned integers; empty when absent (reported missing
    /// when `required`).
    fn list(&mut self, key: &'static str, required: bool) -> Vec<u32>;
    /// `true` or `false`; absent is `false`.
    fn flag(&mut self, key: &'static str) -> bool;
    /// A list of bases; empty when absent.
    fn bases(&mut self, key: &'static str) -> Vec<Vec<u32>>;
    /// An encoding (`parent`, `partitionLayout`); required.
    fn encoding(&mut self, key: &'static str) -> Encoding;
    /// `(interval, padding)` pairs (`intervals = [32:+4, ...]`); required.
    fn intervals(&mut self, key: &'static str) -> Vec<(u32, u32)>;
    /// Bases by name inside `key` (`ctaLayout = {register = [...], warp =
    /// [...]}`), in the order of `names`; `None` when `key` is absent.
    fn named_bases(
        &mut self,
        key: &'static str,
        names: &[&'static str],
    ) -> Option<Vec<Vec<Vec<u32>>>>;
    /// The length of the first entry of `key`'s list of lists (the rank a
    /// `CGALayout` implies), when it is one.
    fn first_entry_len(&self, key: &str) -> Option<usize>;
    /// Reports that `key` is required and absent.
    fn missing(&mut self, key: &'static str);
    /// Reports what is wrong with `key`'s value.
    fn reject(&mut self, key: &'static str, fault: KeyFault);
    /// Whether nothing has been reported so far.
    fn ok(&self) -> bool;
}

/// What an encoding finds wrong with the values of its keys (as opposed to
/// a value of the wrong type, which the source reports while reading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyFault {
    /// An order that is not a permutation of the dims.
    NotPermutation { order: Vec<u32> },
    /// A per-dim list whose length is not the rank `order` gives.
    RankMismatch {
        key: &'static str,
        len: usize,
        rank: usize,
    },
    /// Keys of two alternative forms given together (the key is the first
    /// of the second form).
    ConflictingForms { message: &'static str },
    /// A placement of CTAs that does not fit.
    CtaPlacement(LayoutError),
}

impl std::fmt::Display for KeyFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyFault::NotPermutation { order } => write!(
                f,
                "order {order:?} is not a permutation of 0..{}",
                order.len()
            ),
            KeyFault::RankMismatch { key, len, rank } => {
                write!(f, "`{key}` has {len} entries but `order` has {rank}")
            }
            KeyFault::ConflictingForms { message } => f.write_str(message),
            KeyFault::CtaPlacement(e) => write!(f, "{e}"),
        }
    }
}

/// `order`: a permutation of the dims, fastest-varying first.
pub(super) fn order(src: &mut dyn KeySource) -> Vec<usize> {
    let order = src.list("order", true);
    let mut seen = vec![false; order.len()];
    let is_permutation = order
        .iter()
        .all(|&d| (d as usize) < seen.len() && !std::mem::replace(&mut seen[d as usize], true));
    if !is_permutation && src.ok() {
        src.reject(
            "order",
            KeyFault::NotPermutation {
                order: order.clone(),
            },
        );
    }
    order.into_iter().map(|d| d as usize).collect()
}

/// Per-dim lists must have one entry per dim of `order`.
pub(super) fn require_rank(src: &mut dyn KeySource, lists: &[(&'static str, usize)], rank: usize) {
    for &(key, len) in lists {
        if src.ok() && len != rank {
            src.reject(key, KeyFault::RankMismatch { key, len, rank });
        }
    }
}

/// The placement of CTAs in a cluster, in either of Triton's forms:
/// `CGALayout` bases, or `CTAsPerCGA`/`CTASplitNum`/`CTAOrder`.
pub(super) fn cga(src: &mut dyn KeySource, rank: usize) -> CgaLayout {
    if src.has("CGALayout") {
        let bases = src.bases("CGALayout");
        return CgaLayout::from_bases(rank, bases).unwrap_or_else(|e| {
            src.reject("CGALayout", KeyFault::CtaPlacement(e));
            CgaLayout::single(rank)
        });
    }
    if src.has("CTAsPerCGA") {
        let per = src.list("CTAsPerCGA", true);
        let split = src.list("CTASplitNum", true);
        let order: Vec<usize> = src
            .list("CTAOrder", true)
            .into_iter()
            .map(|d| d as usize)
            .collect();
        if !src.ok() {
            return CgaLayout::single(rank);
        }
        return CgaLayout::from_split(&per, &split, &order).unwrap_or_else(|e| {
            src.reject("CTASplitNum", KeyFault::CtaPlacement(e));
            CgaLayout::single(rank)
        });
    }
    CgaLayout::single(rank)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::keys::encoding_kind;
    use super::*;

    /// Key values in memory; problems are collected as text.
    #[derive(Default)]
    struct Keys {
        lists: HashMap<&'static str, Vec<u32>>,
        faults: Vec<(&'static str, KeyFault)>,
        missing: Vec<&'static str>,
    }

    impl KeySource for Keys {
        fn has(&self, key: &str) -> bool {
            self.lists.contains_key(key)
        }
        fn uint(&mut self, key: &'static str, default: Option<u32>) -> u32 {
            match (self.lists.get(key), default) {
                (Some(v), _) => v[0],
                (None, Some(d)) => d,
                (None, None) => {
                    self.missing(key);
                    0
                }
            }
        }
        fn list(&mut self, key: &'static str, required: bool) -> Vec<u32> {
            if required && !self.has(key) {
                self.missing(key);
            }
            self.lists.get(key).cloned().unwrap_or_default()
        }
        fn flag(&mut self, key: &'static str) -> bool {
            self.lists.get(key).is_some_and(|v| v[0] != 0)
        }
        fn bases(&mut self, _: &'static str) -> Vec<Vec<u32>> {
            Vec::new()
        }
        fn encoding(&mut self, key: &'static str) -> Encoding {
            self.missing(key);
            Encoding::Linear(super::super::LinearEncoding {
                register: Vec::new(),
                lane: Vec::new(),
                warp: Vec::new(),
                block: Vec::new(),
                shape: None,
            })
        }
        fn intervals(&mut self, key: &'static str) -> Vec<(u32, u32)> {
            let v = self.lists.get(key).cloned().unwrap_or_default();
            v.chunks(2).map(|c| (c[0], c[1])).collect()
        }
        fn named_bases(
            &mut self,
            _: &'static str,
            _: &[&'static str],
        ) -> Option<Vec<Vec<Vec<u32>>>> {
            None
        }
        fn first_entry_len(&self, _: &str) -> Option<usize> {
            None
        }
        fn missing(&mut self, key: &'static str) {
            self.missing.push(key);
        }
        fn reject(&mut self, key: &'static str, fault: KeyFault) {
            self.faults.push((key, fault));
        }
        fn ok(&self) -> bool {
            self.faults.is_empty() && self.missing.is_empty()
        }
    }

    fn keys(entries: &[(&'static str, &[u32])]) -> Keys {
        Keys {
            lists: entries.iter().map(|(k, v)| (*k, v.to_vec())).collect(),
            ..Keys::default()
        }
    }

    fn read(kind: &str, src: &mut Keys) -> Encoding {
        (encoding_kind(kind).expect("a kind").read)(src)
    }

    /// An encoding read from keys prints those keys back as TTGIR does.
    #[test]
    fn a_blocked_layout_read_from_keys_prints_them_back() {
        let mut src = keys(&[
            ("sizePerThread", &[1, 8]),
            ("threadsPerWarp", &[4, 8]),
            ("warpsPerCTA", &[4, 1]),
            ("order", &[1, 0]),
        ]);
        let enc = read("blocked", &mut src);
        assert!(src.ok());
        assert_eq!(
            enc.to_string(),
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
        );
        assert_eq!(enc.validate_params(), Ok(()));
    }

    #[test]
    fn faults_name_the_key_they_are_about() {
        let mut src = keys(&[
            ("sizePerThread", &[1, 8, 1]),
            ("threadsPerWarp", &[4, 8]),
            ("warpsPerCTA", &[4, 1]),
            ("order", &[1, 0]),
        ]);
        read("blocked", &mut src);
        assert_eq!(
            src.faults,
            [(
                "sizePerThread",
                KeyFault::RankMismatch {
                    key: "sizePerThread",
                    len: 3,
                    rank: 2
                }
            )]
        );
        let mut src = keys(&[
            ("vec", &[8]),
            ("perPhase", &[1]),
            ("maxPhase", &[8]),
            ("order", &[1, 1]),
        ]);
        read("swizzled_shared", &mut src);
        assert_eq!(src.faults[0].0, "order");
        assert_eq!(
            src.faults[0].1.to_string(),
            "order [1, 1] is not a permutation of 0..2"
        );
        let mut src = keys(&[
            ("intervals", &[32, 4]),
            ("order", &[1, 0]),
            ("shape", &[64, 64]),
            ("block", &[]),
        ]);
        read("padded_shared", &mut src);
        assert!(matches!(
            src.faults[..],
            [("block", KeyFault::ConflictingForms { .. })]
        ));
    }

    #[test]
    fn a_missing_required_key_is_reported_once_per_key() {
        let mut src = keys(&[("versionMajor", &[2]), ("instrShape", &[16, 8])]);
        read("nvidia_mma", &mut src);
        assert_eq!(src.missing, ["warpsPerCTA"]);
    }
}
