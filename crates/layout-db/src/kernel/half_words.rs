//! Halves and bytes that LLVM moves through shared memory as wider words on
//! NVIDIA.
//!
//! Triton's lowering stores and loads a vector of two or four 16-bit
//! elements as `<2 x half>` / `<4 x half>` (`st.shared.v2.b16`,
//! `.v4.b16`). LLVM retypes the vector as 32-bit words where the halves
//! live in words on either side of the round trip:
//!
//! - the store, where the halves were made in words: loaded from global
//!   memory in vectors (`ld.global.v2.b32` and wider), or converted from f32
//!   by `arith.truncf` on a target that converts two at a time into one
//!   register (`cvt.rn.f16x2.f32`, [`TritonTarget::packed_half_conversion`]),
//!   directly or through 16-bit float arithmetic with constants:
//!   `st.shared.b32` / `.v2.b32`; this holds for a conversion's store and
//!   for `ttg.local_alloc` / `ttg.local_store` alike;
//! - the load, where the converted value only goes to `tt.store`s that
//!   write global memory in vectors (Triton's store packs two halves per
//!   32-bit word, and LLVM folds that packing into the load):
//!   `ld.shared.b32` / `.v2.b32`;
//! - and bytes: a load of two 8-bit floats that only go to `tt.fp_to_fp`
//!   to a 16-bit float (converted from one packed register) reads one
//!   16-bit word,
//!   `ld.shared.b16`, a conversion's load and a `ttg.local_load`'s alike.
//!
//! [`TritonTarget::packed_half_conversion`]: layout_algebra::machine::TritonTarget

use layout_algebra::machine::Vendor;
use layout_algebra::triton::Encoding;

use super::mlir::{self, Function};
use super::{ModuleFacts, encoding_named, pointers_aligned, scratch};
use crate::SourceFile;

/// Which sides of a conversion move its halves as 32-bit words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WordSides {
    pub store: bool,
    pub load: bool,
}

/// The `ttg.convert_layout`s (result, operand, sides) of an NVIDIA dump
/// whose 16-bit elements LLVM moves as 32-bit words on some side. Keyed by
/// names, as `vector_loaded_conversions` is.
#[salsa::tracked(returns(ref))]
pub fn half_word_conversions(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Vec<(String, String, WordSides)> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let Some(target) = nvidia_target(text) else {
        return Vec::new();
    };
    let packed = layout_algebra::machine::packed_half_conversion(&target);
    let mut found: Vec<(String, String, WordSides)> = Vec::new();
    for f in mlir::functions(text) {
        for op in f.ops.iter().filter(|o| {
            matches!(
                o.name.as_str(),
                "ttg.convert_layout" | "triton_gpu.convert_layout"
            )
        }) {
            let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) else {
                continue;
            };
            let Some(converted) = scratch::parse_type(op.result_types()) else {
                continue;
            };
            let sides = match scratch::element_bits(&converted.element) {
                Some(16) => WordSides {
                    store: made_in_words(db, file, text, &f, operand, packed, 0),
                    load: stored_in_words(db, file, text, &f, result, &converted),
                },
                Some(8) => WordSides {
                    store: false,
                    load: upcast_in_pairs(&f, result, &converted),
                },
                _ => continue,
            };
            found.push((result.clone(), operand.clone(), sides));
        }
    }
    // Each function numbers its values afresh: a name two conversions of
    // the file share counts only where both agree.
    found
        .iter()
        .filter(|(r, o, sides)| {
            *sides != WordSides::default()
                && found
                    .iter()
                    .filter(|(r2, o2, _)| r2 == r && o2 == o)
                    .all(|(_, _, s)| s == sides)
        })
        .cloned()
        .collect()
}

/// The `ttg.local_alloc`s and `ttg.local_store`s of an NVIDIA dump whose
/// stored halves were made in 32-bit words: their stored value's names.
/// Keyed by names, as `half_word_conversions` is.
#[salsa::tracked(returns(ref))]
pub fn half_word_stores(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let Some(target) = nvidia_target(text) else {
        return Vec::new();
    };
    let packed = layout_algebra::machine::packed_half_conversion(&target);
    let mut found: Vec<(String, bool)> = Vec::new();
    for f in mlir::functions(text) {
        for op in f.ops.iter().filter(|o| {
            matches!(
                o.name.as_str(),
                "ttg.local_alloc"
                    | "ttg.local_store"
                    | "triton_gpu.local_alloc"
                    | "triton_gpu.local_store"
            )
        }) {
            if let Some(value) = op.operands.first() {
                found.push((
                    value.clone(),
                    made_in_words(db, file, text, &f, value, packed, 0),
                ));
            }
        }
    }
    found
        .iter()
        .filter(|(v, words)| *words && found.iter().filter(|(v2, _)| v2 == v).all(|(_, w)| *w))
        .map(|(v, _)| v.clone())
        .collect()
}

/// The `ttg.local_load`s of an NVIDIA dump whose loaded bytes LLVM reads
/// as 16-bit words: their results' names (see [`upcast_in_pairs`]).
#[salsa::tracked(returns(ref))]
pub fn byte_pair_loads(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    if nvidia_target(text).is_none() {
        return Vec::new();
    }
    let mut found: Vec<(String, bool)> = Vec::new();
    for f in mlir::functions(text) {
        for op in f
            .ops
            .iter()
            .filter(|o| matches!(o.name.as_str(), "ttg.local_load" | "triton_gpu.local_load"))
        {
            let (Some(result), Some(loaded)) =
                (op.results.first(), scratch::parse_types(&op.types).pop())
            else {
                continue;
            };
            found.push((result.clone(), upcast_in_pairs(&f, result, &loaded)));
        }
    }
    found
        .iter()
        .filter(|(v, words)| *words && found.iter().filter(|(v2, _)| v2 == v).all(|(_, w)| *w))
        .map(|(v, _)| v.clone())
        .collect()
}

/// Whether `value`, a tensor of 8-bit floats, only goes to `tt.fp_to_fp`s
/// to f16 or bf16: Triton converts those two at a time from one packed
/// register (`cvt.rn.f16x2.e4m3x2` and the like), so LLVM reads two bytes
/// as one 16-bit word (`ld.shared.b16` for `ld.shared.v2.b8`); to f32 they
/// stay bytes, as the compiled kernels show.
fn upcast_in_pairs(f: &Function, value: &str, loaded: &scratch::TypeText) -> bool {
    if !loaded.element.starts_with("f8") {
        return false;
    }
    let uses: Vec<&mlir::Op> = f
        .ops
        .iter()
        .filter(|o| o.operands.iter().any(|v| v == value))
        .collect();
    !uses.is_empty()
        && uses.iter().all(|o| {
            o.name == "tt.fp_to_fp"
                && scratch::parse_types(&o.types)
                    .last()
                    .is_some_and(|t| matches!(t.element.as_str(), "f16" | "bf16"))
        })
}

/// The module's `ttg.target` where it is an NVIDIA one.
fn nvidia_target(text: &str) -> Option<String> {
    let target = ModuleFacts::read(text).target?;
    layout_algebra::machine::preset_for_triton_target(&target)
        .is_some_and(|p| p.vendor == Vendor::Nvidia)
        .then_some(target)
}

/// Whether `value`'s halves were made in 32-bit words: loaded from global
/// memory two or more at a time, by `arith.truncf` of f32 to a 16-bit
/// float where the target converts in pairs (`packed`), or by 16-bit float
/// arithmetic on such values and constants (packed `mul.f16x2` and the
/// like keep them in words).
fn made_in_words(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    value: &str,
    packed: bool,
    depth: usize,
) -> bool {
    let Some(producer) = f.ops.iter().find(|o| o.results.iter().any(|r| r == value)) else {
        return false;
    };
    let types = scratch::parse_types(&producer.types);
    let half = |t: Option<&scratch::TypeText>| {
        t.is_some_and(|t| matches!(t.element.as_str(), "f16" | "bf16"))
    };
    match producer.name.as_str() {
        // `tt.load %ptrs : tensor<...x!tt.ptr<f16>, #blocked>`: the pointers' type.
        "tt.load" => {
            types.first().is_some_and(|t| {
                let pointee = t
                    .element
                    .strip_prefix("!tt.ptr<")
                    .and_then(|e| e.strip_suffix('>'));
                pointee.and_then(scratch::element_bits) == Some(16)
                    && two_along_fastest_dim(db, file, t)
            }) && pointers_aligned(text, f, producer)
        }
        "arith.truncf" => {
            packed && types.first().is_some_and(|t| t.element == "f32") && half(types.get(1))
        }
        "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.negf"
        | "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf"
            if depth < 16 && half(types.last()) =>
        {
            let made: Vec<bool> = producer
                .operands
                .iter()
                .filter(|v| !is_constant(f, v))
                .map(|v| made_in_words(db, file, text, f, v, packed, depth + 1))
                .collect();
            !made.is_empty() && made.iter().all(|&m| m)
        }
        _ => false,
    }
}

/// Whether a tensor type's blocked layout holds two or more elements of a
/// thread along its fastest dim: the vector Triton's coalescing gives a
/// global access from its pointers' contiguity and alignment, whose
/// halves travel in 32-bit words.
fn two_along_fastest_dim(
    db: &dyn salsa::Database,
    file: SourceFile,
    t: &scratch::TypeText,
) -> bool {
    t.encoding
        .as_deref()
        .and_then(|e| encoding_named(db, file, e))
        .is_some_and(|e| match e {
            Encoding::Blocked(b) => b
                .order
                .first()
                .and_then(|&d| b.size_per_thread.get(d))
                .is_some_and(|&n| n >= 2),
            _ => false,
        })
}

fn is_constant(f: &Function, value: &str) -> bool {
    f.ops
        .iter()
        .find(|o| o.results.iter().any(|r| r == value))
        .is_some_and(|o| o.name == "arith.constant")
}

/// Whether every use of `value` is a `tt.store` of it that writes global
/// memory at least two elements at a time: its pointers aligned (their
/// argument's `tt.divisibility`) and its blocked layout holding two or more
/// elements along its fastest dim, as Triton's coalescing sizes it from
/// the pointers' contiguity and alignment.
fn stored_in_words(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    value: &str,
    converted: &scratch::TypeText,
) -> bool {
    let uses: Vec<&mlir::Op> = f
        .ops
        .iter()
        .filter(|o| o.operands.iter().any(|v| v == value))
        .collect();
    let vectorised = two_along_fastest_dim(db, file, converted);
    vectorised
        && !uses.is_empty()
        && uses.iter().all(|o| {
            o.name == "tt.store"
                && o.operands.get(1).is_some_and(|v| v == value)
                && o.operands.first() != Some(&value.to_string())
                && pointers_aligned(text, f, o)
        })
}
