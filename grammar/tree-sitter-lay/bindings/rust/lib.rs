//! The tree-sitter grammar of `.lay` files, for editors and tools that use
//! tree-sitter. `grammar.js` is the source; `src/parser.c` is generated from
//! it by `tree-sitter generate` and committed.

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_lay() -> *const ();
}

/// The tree-sitter language of `.lay` files.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_lay) };

/// The node types, as `tree-sitter generate` describes them.
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");
