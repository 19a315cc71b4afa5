//! What the editor says about the words of the language: keywords,
//! Triton encoding kinds and their keys, `solve` keys and target presets.
//! Encoding kinds and their keys are explained by layout-algebra's table
//! beside the encoding types (the one the checker reads); this module adds
//! the words of the language itself.

use layout_algebra::triton::keys::{EncodingKind, Key};

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

/// A Triton encoding kind and its keys, from layout-algebra's table (the
/// one the checker reads).
pub fn encoding_kind(kind: &str) -> Option<&'static EncodingKind> {
    layout_algebra::triton::keys::encoding_kind(kind)
}

pub fn kind_doc(kind: &str) -> Option<&'static str> {
    encoding_kind(kind).map(|k| k.doc)
}

/// A key of an encoding kind: its type, whether it is required, its meaning.
pub fn key_doc(kind: &str, key: &str) -> Option<&'static Key> {
    encoding_kind(kind)?.key(key)
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
    fn every_key_the_checker_accepts_is_explained_in_one_line() {
        let mut bad = Vec::new();
        for kind in layout_algebra::triton::keys::ENCODING_KINDS {
            let docs = std::iter::once((kind.name, kind.doc))
                .chain(kind.keys.iter().map(|k| (k.name, k.doc)));
            for (what, doc) in docs {
                if doc.is_empty() || doc.contains('\n') || doc.ends_with('.') {
                    bad.push(format!("{}.{what}", kind.name));
                }
            }
        }
        assert_eq!(bad, Vec::<String>::new());
    }
}
