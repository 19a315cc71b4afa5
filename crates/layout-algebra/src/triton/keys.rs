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

/// An encoding kind (`blocked` of `#ttg.blocked`) and its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodingKind {
    pub tag: EncodingTag,
    pub name: &'static str,
    /// One line: what the encoding lays out, and how.
    pub doc: &'static str,
    /// Required keys first, then optional ones, in the order Triton prints them.
    pub keys: &'static [Key],
}

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

const fn req(name: &'static str, ty: KeyType, doc: &'static str) -> Key {
    Key {
        name,
        ty,
        required: true,
        doc,
    }
}

const fn opt(name: &'static str, ty: KeyType, doc: &'static str) -> Key {
    Key {
        name,
        ty,
        required: false,
        doc,
    }
}

use KeyType::*;

// The CTA placement of a cluster, in either of Triton's notations: the
// older three lists, or (Triton 3.5+) `CGALayout`'s bases.
const CGA_LAYOUT: Key = opt(
    "CGALayout",
    Bases,
    "the CTA placement as bases: per bit of the CTA id, the tensor coordinates it moves to (Triton 3.5+)",
);
const CTAS_PER_CGA: Key = opt(
    "CTAsPerCGA",
    Ints,
    "CTAs of the cluster along each dim (with CTASplitNum and CTAOrder)",
);
const CTA_SPLIT_NUM: Key = opt(
    "CTASplitNum",
    Ints,
    "into how many pieces the CTAs split the tensor along each dim; the rest broadcast",
);
const CTA_ORDER: Key = opt(
    "CTAOrder",
    Ints,
    "the order of the CTAs' dims, fastest-varying first",
);

/// Every encoding layoutc models, with its keys.
/// The keys of the XOR-swizzled shared layouts (`swizzled_shared` and
/// AMD's `amd_rotating_shared` take the same).
const SWIZZLE_KEYS: &[Key] = &[
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
    EncodingKind {
        tag: EncodingTag::Blocked,
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
            req(
                "warpsPerCTA",
                Ints,
                "warps along each dim; multiplies to the number of warps",
            ),
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
    },
    EncodingKind {
        tag: EncodingTag::SwizzledShared,
        name: "swizzled_shared",
        doc: "shared memory with XOR swizzling: `vec` elements per phase step, `perPhase` rows per phase, `maxPhase` phases",
        keys: SWIZZLE_KEYS,
    },
    EncodingKind {
        tag: EncodingTag::NvmmaShared,
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
    },
    EncodingKind {
        tag: EncodingTag::NvidiaMma,
        name: "nvidia_mma",
        doc: "the accumulator of NVIDIA's mma (version 2) or wgmma (version 3) instructions",
        keys: &[
            req(
                "versionMajor",
                Int,
                "the tensor-core generation: 2 (mma.sync, Ampere) or 3 (wgmma, Hopper)",
            ),
            req(
                "warpsPerCTA",
                Ints,
                "warps along each dim; multiplies to the number of warps",
            ),
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
    },
    EncodingKind {
        tag: EncodingTag::AmdMfma,
        name: "amd_mfma",
        doc: "the accumulator of AMD's MFMA instructions (CDNA)",
        keys: &[
            req(
                "warpsPerCTA",
                Ints,
                "warps along each dim; multiplies to the number of warps",
            ),
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
    },
    EncodingKind {
        tag: EncodingTag::AmdWmma,
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
            opt(
                "warpsPerCTA",
                Ints,
                "warps along each dim; multiplies to the number of warps",
            ),
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
    },
    EncodingKind {
        tag: EncodingTag::AmdRotatingShared,
        name: "amd_rotating_shared",
        doc: "AMD's shared layout whose swizzle rotates with the row",
        keys: SWIZZLE_KEYS,
    },
    EncodingKind {
        tag: EncodingTag::SharedLinear,
        name: "shared_linear",
        doc: "a shared layout given by its bases: `offset` (and `block`) -> dims",
        keys: &[
            req(
                "offset",
                Bases,
                "per bit of the element offset, the tensor coordinates it moves to",
            ),
            req("alignment", Int, "the alignment of the buffer in bytes"),
            opt(
                "block",
                Bases,
                "per bit of the CTA id, the tensor coordinates it moves to",
            ),
        ],
    },
    // Pasted, the padding intervals are the `[32:+4]` before the braces;
    // as a call they are the key `intervals`.
    EncodingKind {
        tag: EncodingTag::PaddedShared,
        name: "padded_shared",
        doc: "a shared layout with padding inserted after every interval of elements",
        keys: &[
            req(
                "intervals",
                Intervals,
                "after every `interval` elements, `pad` elements of padding (powers of two)",
            ),
            opt(
                "order",
                Ints,
                "the dims from fastest- to slowest-varying (with `shape`: a row-major-like linear part)",
            ),
            opt(
                "shape",
                Ints,
                "the tensor shape the linear part is written for (with `order`)",
            ),
            opt(
                "offset",
                Bases,
                "the linear part as bases: per bit of the offset, the tensor coordinates",
            ),
            opt(
                "block",
                Bases,
                "per bit of the CTA id, the tensor coordinates it moves to",
            ),
        ],
    },
    EncodingKind {
        tag: EncodingTag::PartitionedShared,
        name: "partitioned_shared",
        doc: "shared memory split into partitions (not modelled for accesses)",
        keys: &[
            req("numPartitions", Int, "how many partitions"),
            req("numGroups", Int, "how many groups of partitions"),
            req("partitionDim", Int, "the dim the partitions split"),
            req(
                "partitionLayout",
                Encoding,
                "the shared layout of one partition",
            ),
        ],
    },
    EncodingKind {
        tag: EncodingTag::Slice,
        name: "slice",
        doc: "the parent layout without dimension `dim`",
        keys: &[
            req("dim", Int, "the dim the slice removes"),
            req(
                "parent",
                Encoding,
                "the layout sliced: an alias such as `#blocked` or a literal",
            ),
        ],
    },
    EncodingKind {
        tag: EncodingTag::DotOp,
        name: "dot_op",
        doc: "operand `opIdx` (0 = A, 1 = B) of a dot whose result has the parent layout",
        keys: &[
            req("opIdx", Int, "which operand of the dot: 0 for A, 1 for B"),
            req(
                "parent",
                Encoding,
                "the layout of the dot's result: an alias such as `#mma` or a literal",
            ),
            opt(
                "kWidth",
                Int,
                "consecutive K elements each thread holds (0 for a blocked parent)",
            ),
        ],
    },
    EncodingKind {
        tag: EncodingTag::Linear,
        name: "linear",
        doc: "a distributed layout given by its bases: `register`, `lane`, `warp`, `block` -> dims",
        keys: &[
            opt(
                "register",
                Bases,
                "per bit of the register index, the tensor coordinates it moves to",
            ),
            opt(
                "lane",
                Bases,
                "per bit of the lane id, the tensor coordinates it moves to",
            ),
            opt(
                "warp",
                Bases,
                "per bit of the warp id, the tensor coordinates it moves to",
            ),
            opt(
                "block",
                Bases,
                "per bit of the CTA id, the tensor coordinates it moves to",
            ),
            opt("shape", Ints, "the tensor shape the bases were written for"),
        ],
    },
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
