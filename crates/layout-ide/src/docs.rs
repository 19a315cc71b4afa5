//! What the editor says about the words of the language: keywords,
//! Triton encoding kinds and their keys, `solve` keys and target presets.
//! The keys each kind accepts come from layout-db's table (the one the
//! checker reads); this module adds the one-line explanations.

/// Item keywords and the other reserved words, with what they do.
pub const KEYWORDS: &[(&str, &str)] = &[
    ("layout", "`layout NAME = EXPR`: names a layout"),
    (
        "let",
        "`let NAME = EXPR`: names any value (integers, tuples, lists)",
    ),
    (
        "check",
        "`check EXPR`: a boolean that `layoutc check` evaluates; a false one is an error",
    ),
    (
        "convert",
        "`convert NAME = SRC -> DST`: Triton's convert_layout between two tensor types, analysed",
    ),
    (
        "solve",
        "`solve NAME { kind = swizzle ... }`: a search request that `layoutc solve` answers",
    ),
    (
        "target",
        "`target = sm90` or `target NAME { warp_size = 32, ... }`: the machine",
    ),
    (
        "module",
        "`module attributes {\"ttg.num-warps\" = 4 : i32, ...}`: Triton's module attributes",
    ),
    (
        "tensor",
        "`tensor<64x64xf16, #enc>`: a Triton encoding bound to a tensor shape",
    ),
    (
        "cute",
        "`cute (8,64):(64,1)`: a CuTe layout as cute::print prints it",
    ),
    (
        "xla",
        "`xla f32[3,5]{1,0:T(2,2)}`: an XLA shape with its layout, as HLO prints it",
    ),
    (
        "linear",
        "`linear { register: [[0, 1]], ... } -> [dim0: 4, ...]`: a linear layout by its bases",
    ),
    ("and", "boolean and"),
    ("or", "boolean or"),
    ("not", "boolean not"),
    ("in", "`x in [a, b]`: membership"),
    ("true", "the boolean true"),
    ("false", "the boolean false"),
];

/// What each Triton encoding kind is.
pub const KIND_DOCS: &[(&str, &str)] = &[
    (
        "blocked",
        "each thread owns `sizePerThread` contiguous elements; threads and warps tile the rest in `order`",
    ),
    (
        "swizzled_shared",
        "shared memory with XOR swizzling: `vec` elements per phase step, `perPhase` rows per phase, `maxPhase` phases",
    ),
    (
        "nvmma_shared",
        "the shared layout NVIDIA's wgmma/tcgen05 read: swizzles of 32, 64 or 128 bytes",
    ),
    (
        "nvidia_mma",
        "the accumulator of NVIDIA's mma (version 2) or wgmma (version 3) instructions",
    ),
    (
        "amd_mfma",
        "the accumulator of AMD's MFMA instructions (CDNA)",
    ),
    (
        "amd_wmma",
        "the accumulator of AMD's WMMA instructions (RDNA)",
    ),
    (
        "amd_rotating_shared",
        "AMD's shared layout whose swizzle rotates with the row",
    ),
    (
        "shared_linear",
        "a shared layout given by its bases: `offset` (and `block`) -> dims",
    ),
    (
        "padded_shared",
        "a shared layout with padding inserted after every interval of elements",
    ),
    (
        "partitioned_shared",
        "shared memory split into partitions (not modelled for accesses)",
    ),
    ("slice", "the parent layout without dimension `dim`"),
    (
        "dot_op",
        "operand `opIdx` (0 = A, 1 = B) of a dot whose result has the parent layout",
    ),
    (
        "linear",
        "a distributed layout given by its bases: `register`, `lane`, `warp`, `block` -> dims",
    ),
];

/// Each Triton attribute key: its type and meaning.
pub const KEY_DOCS: &[(&str, &str, &str)] = &[
    (
        "sizePerThread",
        "[int]",
        "elements each thread holds, per dim",
    ),
    (
        "threadsPerWarp",
        "[int]",
        "threads of a warp along each dim; multiplies to the warp size",
    ),
    (
        "warpsPerCTA",
        "[int]",
        "warps along each dim; multiplies to the number of warps",
    ),
    (
        "order",
        "[int]",
        "dims from fastest- to slowest-varying (a permutation)",
    ),
    ("CTAsPerCGA", "[int]", "CTAs of a cluster along each dim"),
    (
        "CTASplitNum",
        "[int]",
        "how many pieces the tensor is split into along each dim across CTAs",
    ),
    ("CTAOrder", "[int]", "the order of the CTAs"),
    (
        "CGALayout",
        "[[int]]",
        "the CTA placement as bases (Triton 3.5+)",
    ),
    ("vec", "int", "elements per swizzle step (a vector)"),
    (
        "perPhase",
        "int",
        "rows that share one phase of the swizzle",
    ),
    (
        "maxPhase",
        "int",
        "how many phases the swizzle cycles through",
    ),
    (
        "swizzlingByteWidth",
        "int",
        "0, 32, 64 or 128: the swizzle's width in bytes",
    ),
    ("transposed", "bool", "whether the buffer is K-major"),
    ("elementBitWidth", "int", "bits per element"),
    (
        "fp4Padded",
        "bool",
        "whether fp4 elements are padded to bytes",
    ),
    (
        "versionMajor",
        "int",
        "the MMA generation: 2 (mma.sync, Ampere) or 3 (wgmma, Hopper)",
    ),
    ("versionMinor", "int", "the MMA minor version"),
    ("version", "int", "the MFMA/WMMA generation"),
    (
        "instrShape",
        "[int]",
        "the shape of one MMA instruction's tile",
    ),
    (
        "isTransposed",
        "bool",
        "whether the MFMA result is transposed",
    ),
    (
        "isTranspose",
        "bool",
        "older spelling of `isTransposed` (AMD WMMA)",
    ),
    (
        "tilesPerWarp",
        "[int]",
        "MFMA tiles each warp repeats along each dim",
    ),
    ("dim", "int", "the dimension a slice removes"),
    (
        "parent",
        "encoding",
        "the layout this one derives from (an alias such as `#mma` or a literal)",
    ),
    ("opIdx", "int", "which dot operand: 0 for A, 1 for B"),
    ("kWidth", "int", "consecutive K elements each thread holds"),
    (
        "register",
        "[[int]]",
        "the bases of the register in-dim: one coordinate list per bit",
    ),
    ("lane", "[[int]]", "the bases of the lane in-dim"),
    ("warp", "[[int]]", "the bases of the warp in-dim"),
    ("block", "[[int]]", "the bases of the block (CTA) in-dim"),
    (
        "offset",
        "[[int]]",
        "the bases of the shared-memory offset in-dim",
    ),
    ("alignment", "int", "the buffer's alignment in bytes"),
    (
        "shape",
        "[int]",
        "the tensor shape the bases were written for",
    ),
    (
        "intervals",
        "[interval:+pad]",
        "padding: after every `interval` elements, `pad` elements",
    ),
    ("numPartitions", "int", "how many partitions"),
    ("numGroups", "int", "partition groups"),
    ("partitionDim", "int", "the dim that is partitioned"),
    ("partitionLayout", "encoding", "the layout of one partition"),
    ("rank", "int", "the tensor rank the encoding is written for"),
    ("ctaLayout", "[[int]]", "the CTA placement of a WMMA layout"),
];

/// The keys a `solve` block takes.
pub const SOLVE_KEYS: &[(&str, &str)] = &[
    (
        "kind",
        "`swizzle` (a shared-memory layout) or `tiling` (an XLA tiled layout)",
    ),
    (
        "write",
        "a tensor type stored into the buffer (one per access)",
    ),
    (
        "read",
        "a tensor type loaded from the buffer (one per access)",
    ),
    (
        "family",
        "`linear` (default), `triton`, `nvmma`, `cute` or `padded`",
    ),
    (
        "instructions",
        "`vector` (default), `matrix` (ldmatrix/stmatrix where legal) or `best`",
    ),
    (
        "target",
        "the machine: a GPU preset (`sm80`, `sm90`, `sm100`, `gfx942`, `gfx950`) for a swizzle, `tpu` for a tiling",
    ),
    ("array", "the XLA shape to tile (`xla bf16[1000,300]`)"),
    (
        "weights",
        "how much each access's wavefronts count, one integer per access in the order written (`[1, 4]`)",
    ),
    (
        "min_vector",
        "the narrowest access allowed, in bits per lane (8, 16, 32, 64 or 128)",
    ),
    (
        "budget",
        "the most bytes of shared memory the answer may use (padding counts)",
    ),
    (
        "timeout",
        "milliseconds Z3 may search before the best answer found is reported (default 2000)",
    ),
    ("minor_dim", "a tiling: the dim that must stay most minor"),
    (
        "max_padding",
        "a tiling: the most padded bytes an answer may have",
    ),
    (
        "tiles",
        "a tiling: candidate tilings instead of the TPU formats, `[[[8, 128], [2, 1]], [[16, 128]]]`",
    ),
    (
        "tile_multiple",
        "a tiling: search one-level tile sizes, each dim a multiple of its granule (the most minor last, `[8, 128]`); listed when few, Z3 otherwise",
    ),
    (
        "min_tile_elements",
        "a tile-size search: the fewest elements a tile may hold",
    ),
    (
        "max_tile_elements",
        "a tile-size search: the most elements a tile may hold",
    ),
    (
        "base",
        "the cute family's base instead of row- and column-major (`cute (64,64):(1,64)`); the answer is `Sw<B,M,S> o base`",
    ),
    (
        "fixed",
        "pins the first offset bases to these tensor coordinates (`[[0, 1], [0, 2]]`, as `#ttg.shared_linear` writes them)",
    ),
    (
        "answer",
        "the answer as `layoutc solve --write` recorded it; W0501 when the solver now finds another",
    ),
];

pub fn keyword_doc(word: &str) -> Option<&'static str> {
    KEYWORDS.iter().find(|(k, _)| *k == word).map(|(_, d)| *d)
}

pub fn kind_doc(kind: &str) -> Option<&'static str> {
    KIND_DOCS.iter().find(|(k, _)| *k == kind).map(|(_, d)| *d)
}

pub fn key_doc(key: &str) -> Option<(&'static str, &'static str)> {
    KEY_DOCS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, t, d)| (*t, *d))
}

/// The keys of an encoding kind: required, then optional.
pub fn kind_keys(kind: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    layout_db::ENCODING_KINDS
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map(|(_, req, opt)| (*req, *opt))
}

/// The machine presets (`target = sm90`).
pub fn presets() -> impl Iterator<Item = (&'static str, &'static str)> {
    layout_algebra::machine::PRESETS
        .iter()
        .map(|p| (p.name, p.description))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_solve_key_the_checker_accepts_is_explained() {
        let documented: Vec<&str> = SOLVE_KEYS.iter().map(|(k, _)| *k).collect();
        // `instruction` is an old spelling of `instructions`.
        let accepted: Vec<&str> = layout_db::solve::KEYS
            .iter()
            .copied()
            .filter(|k| *k != "instruction")
            .collect();
        let mut a = accepted.clone();
        let mut d = documented.clone();
        a.sort();
        d.sort();
        assert_eq!(a, d);
    }

    #[test]
    fn every_key_and_kind_the_checker_accepts_is_explained() {
        let mut missing = Vec::new();
        for (kind, req, opt) in layout_db::ENCODING_KINDS {
            if kind_doc(kind).is_none() {
                missing.push(format!("kind {kind}"));
            }
            for key in req.iter().chain(opt.iter()) {
                if key_doc(key).is_none() {
                    missing.push(format!("{kind}.{key}"));
                }
            }
        }
        assert_eq!(missing, Vec::<String>::new());
    }
}
