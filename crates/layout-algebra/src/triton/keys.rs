//! The parameters of each Triton encoding as Triton's attributes write them
//! (`#ttg.blocked<{sizePerThread = [1, 4], ...}>`, TritonGPUAttrDefs.td):
//! per kind its keys, each with its type, whether it is required, and what
//! it means. The checker accepts exactly these keys, and the editor explains
//! them from here, so the two cannot drift.

/// What a key's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// An unsigned integer (`vec = 8`).
    Int,
    /// One unsigned integer per dim (`order = [1, 0]`).
    Ints,
    /// `true` or `false`.
    Bool,
    /// Bases: per bit, the coordinates it moves to (`register = [[0, 1], [0, 2]]`).
    Bases,
    /// Another encoding: an alias such as `#mma` or a literal.
    Encoding,
    /// Padding after every interval of elements (`[32:+4, 64:+8]`).
    Intervals,
}

impl KeyType {
    /// How the type is written in signatures and hovers.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::Int => "int",
            KeyType::Ints => "[int]",
            KeyType::Bool => "bool",
            KeyType::Bases => "[[int]]",
            KeyType::Encoding => "encoding",
            KeyType::Intervals => "[interval:+pad]",
        }
    }
}

/// One key of an encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    pub ty: KeyType,
    pub required: bool,
    /// One line: what the value means.
    pub doc: &'static str,
}

/// Which encoding a kind is, as a value a reader can match on exhaustively
/// (one variant per entry of [`ENCODING_KINDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodingTag {
    Blocked,
    SwizzledShared,
    NvmmaShared,
    NvidiaMma,
    AmdMfma,
    AmdWmma,
    AmdRotatingShared,
    SharedLinear,
    PaddedShared,
    PartitionedShared,
    Slice,
    DotOp,
    Linear,
}

/// An encoding kind (`blocked` of `#ttg.blocked`), its keys, and how the
/// keys make the encoding.
#[derive(Clone, Copy, Debug)]
pub struct EncodingKind {
    pub tag: EncodingTag,
    /// Reads the encoding from a source of key values (the kind's module's
    /// `from_keys`).
    pub read: fn(&mut dyn super::KeySource) -> super::Encoding,
    pub name: &'static str,
    /// One line: what the encoding lays out, and how.
    pub doc: &'static str,
    /// Required keys first, then optional ones, in the order Triton prints them.
    pub keys: &'static [Key],
}

impl PartialEq for EncodingKind {
    fn eq(&self, other: &Self) -> bool {
        self.tag == other.tag
    }
}

impl Eq for EncodingKind {}

impl EncodingKind {
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }

    pub fn required(&self) -> impl Iterator<Item = &'static Key> {
        self.keys.iter().filter(|k| k.required)
    }

    pub fn optional(&self) -> impl Iterator<Item = &'static Key> {
        self.keys.iter().filter(|k| !k.required)
    }
}

/// The kind named `name` (without `#ttg.`).
pub fn encoding_kind(name: &str) -> Option<&'static EncodingKind> {
    ENCODING_KINDS.iter().find(|k| k.name == name)
}

pub(super) const fn req(name: &'static str, ty: KeyType, doc: &'static str) -> Key {
    Key {
        name,
        ty,
        required: true,
        doc,
    }
}

pub(super) const fn opt(name: &'static str, ty: KeyType, doc: &'static str) -> Key {
    Key {
        name,
        ty,
        required: false,
        doc,
    }
}

use KeyType::*;

// The warps of a distributed encoding, as blocked and the MMA accumulators
// write them.
pub(super) const WARPS_PER_CTA: Key = req(
    "warpsPerCTA",
    Ints,
    "warps along each dim; multiplies to the number of warps",
);

// The CTA placement of a cluster, in either of Triton's notations: the
// older three lists, or (Triton 3.5+) `CGALayout`'s bases.
pub(super) const CGA_LAYOUT: Key = opt(
    "CGALayout",
    Bases,
    "the CTA placement as bases: per bit of the CTA id, the tensor coordinates it moves to (Triton 3.5+)",
);
pub(super) const CTAS_PER_CGA: Key = opt(
    "CTAsPerCGA",
    Ints,
    "CTAs of the cluster along each dim (with CTASplitNum and CTAOrder)",
);
pub(super) const CTA_SPLIT_NUM: Key = opt(
    "CTASplitNum",
    Ints,
    "into how many pieces the CTAs split the tensor along each dim; the rest broadcast",
);
pub(super) const CTA_ORDER: Key = opt(
    "CTAOrder",
    Ints,
    "the order of the CTAs' dims, fastest-varying first",
);

/// Every encoding layoutc models, with its keys.
/// The keys of the XOR-swizzled shared layouts (`swizzled_shared` and
/// AMD's `amd_rotating_shared` take the same).
pub(super) const SWIZZLE_KEYS: &[Key] = &[
    req(
        "vec",
        Int,
        "elements moved together by the swizzle (one vector)",
    ),
    req("perPhase", Int, "consecutive rows that share one phase"),
    req(
        "maxPhase",
        Int,
        "how many phases the swizzle cycles through",
    ),
    req(
        "order",
        Ints,
        "the dims from fastest- to slowest-varying in memory (a permutation)",
    ),
    CGA_LAYOUT,
    CTAS_PER_CGA,
    CTA_SPLIT_NUM,
    CTA_ORDER,
];

pub const ENCODING_KINDS: &[EncodingKind] = &[
    super::blocked::KIND,
    super::swizzled_shared::KIND,
    super::nvmma_shared::KIND,
    super::nvidia_mma::KIND,
    super::amd_mfma::KIND,
    super::amd_wmma::KIND,
    super::amd_rotating_shared::KIND,
    super::shared_linear::KIND,
    super::padded_shared::KIND,
    super::partitioned_shared::KIND,
    super::slice::KIND,
    super::dot_operand::KIND,
    super::linear_encoding::KIND,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tag names one kind, and each kind's name is the one its
    /// encoding prints (`Encoding::kind`).
    #[test]
    fn every_tag_is_one_kind() {
        let tags: std::collections::HashSet<EncodingTag> =
            ENCODING_KINDS.iter().map(|k| k.tag).collect();
        assert_eq!(tags.len(), ENCODING_KINDS.len(), "a tag twice");
        let names: Vec<&str> = ENCODING_KINDS.iter().map(|k| k.name).collect();
        for (tag, name) in ENCODING_KINDS.iter().map(|k| (k.tag, k.name)) {
            let snake: String = format!("{tag:?}")
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_ascii_uppercase()).then_some('_');
                    sep.into_iter()
                        .chain(std::iter::once(c.to_ascii_lowercase()))
                })
                .collect();
            assert_eq!(snake, name, "{names:?}");
        }
    }

    #[test]
    fn keys_are_unique_and_required_ones_come_first() {
        for kind in ENCODING_KINDS {
            let mut names: Vec<&str> = kind.keys.iter().map(|k| k.name).collect();
            let required = kind.required().count();
            assert!(
                kind.keys[..required].iter().all(|k| k.required),
                "{}: required keys first",
                kind.name
            );
            names.sort();
            names.dedup();
            assert_eq!(names.len(), kind.keys.len(), "{}: a key twice", kind.name);
        }
    }
}
