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
    (
        "gluon",
        "`gluon BlockedLayout(...)`: a Gluon layout object as Python prints or writes it, read as its `#ttg` attribute",
    ),
    ("and", "boolean and"),
    ("or", "boolean or"),
    ("not", "boolean not"),
    ("in", "`x in [a, b]`: membership"),
    ("true", "the boolean true"),
    ("false", "the boolean false"),
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
    #[test]
    fn every_solve_key_is_in_the_language_reference() {
        // Reading a block, completion and hover share layout-db's table;
        // docs/language.md's table of solve keys is written by hand.
        let reference = include_str!("../../../docs/language.md");
        for k in layout_db::solve::SOLVE_KEYS {
            assert!(
                reference.contains(&format!("`{}`", k.name)),
                "docs/language.md does not explain `{}`",
                k.name
            );
            assert!(!k.doc.is_empty() && !k.doc.contains('\n'));
        }
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
