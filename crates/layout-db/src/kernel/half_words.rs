//! Halves and bytes that LLVM moves through shared memory as wider words on
//! NVIDIA, booleans it reads bytes apart there, and AMD's halves made two
//! to a register that it stores from the high half (`_d16_hi`).
//!
//! Triton's lowering stores and loads a vector of two or four 16-bit
//! elements as `<2 x half>` / `<4 x half>` (`st.shared.v2.b16`,
//! `.v4.b16`). LLVM retypes the vector as 32-bit words where the halves
//! live in words on either side of the round trip:
//!
//! - the store, where the halves were made in words: loaded from global
//!   memory in vectors (`ld.global.v2.b32` and wider), or converted from f32
//!   by `arith.truncf` on a target that converts two at a time into one
//!   register (`cvt.rn.f16x2.f32`, [`TritonTarget::half_conversion`]),
//!   directly (on sm80 not the result of a loop that may run no times) or,
//!   from sm86 on, through 16-bit float arithmetic with constants; and,
//!   from sm86 on, any 16-bit float arithmetic's result (the vectoriser
//!   pairs it) and any value branches or a loop join (one vector to LLVM):
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
//! [`TritonTarget::half_conversion`]: layout_algebra::machine::TritonTarget

use layout_algebra::machine::{HalfAtomicAdd, HalfConversion, Vendor};
use layout_algebra::triton::Encoding;

use super::mlir::{self, Function};
use super::{
    ArgumentAlignment, ModuleFacts, agreed, argument_divisibility, contiguity, encoding_named,
    is_ttg, pointer_alignment, pointers_aligned, scratch,
};
use crate::SourceFile;

/// Which sides of a conversion move its narrow elements as words, and up
/// to how many elements one instruction may move for LLVM to keep them so
/// (a vector within one global access's; 0: that side does not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WordSides {
    pub store: u32,
    pub load: u32,
    /// The converted value is an `scf.if`'s or `scf.for`'s result that
    /// arithmetic made on some path, or arithmetic LLVM folds into a loop
    /// exit: the branches or the loop joined it as one vector
    /// (`Machine::joined_halves_in_64_bit_words`).
    pub joined: bool,
}

impl WordSides {
    /// Whether a side moving `elements` at a time moves them as words.
    pub fn keeps(group: u32, elements: u32) -> bool {
        elements >= 2 && elements <= group
    }
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
    let conversion = layout_algebra::machine::half_conversion(&target);
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f.ops.iter().filter(|o| is_ttg(o, "convert_layout")) {
            let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) else {
                continue;
            };
            let Some(converted) = scratch::parse_type(op.result_types()) else {
                continue;
            };
            let joined = || {
                joined_at(f, operand).is_some_and(|join| join.computed(f))
                    || folded_into_loop_exit(f, operand)
            };
            let sides = match scratch::element_bits(&converted.element) {
                Some(16) if shuffled(f, operand) => WordSides {
                    store: u32::MAX,
                    load: stored_in_words(db, file, text, f, result),
                    joined: false,
                },
                Some(16) => WordSides {
                    joined: joined(),
                    store: made_in_words(
                        db,
                        file,
                        text,
                        f,
                        operand,
                        Made::InWords { conversion },
                        &mut 64,
                    ),
                    load: if taken_by_nvidia_mma(db, file, f, result, &mut 64) {
                        u32::MAX
                    } else {
                        stored_in_words(db, file, text, f, result)
                    },
                },
                Some(8) => WordSides {
                    joined: joined(),
                    store: if narrowed_in_pairs(f, text, &target, operand) {
                        u32::MAX
                    } else {
                        bytes_loaded_in_vectors(db, file, text, f, operand)
                    },
                    // Bytes only `tt.store`s write two at a time: NVIDIA's
                    // store packs each pair into a 16-bit word, and LLVM
                    // folds the packing into the shared-memory load of the
                    // pair. Wider stores pack 32-bit words, which a pair
                    // does not fill: its load stays bytes.
                    load: if upcast_in_pairs(f, &target, result, &converted)
                        || stored_in_words(db, file, text, f, result) == 2
                    {
                        2
                    } else {
                        0
                    },
                },
                Some(32) => WordSides {
                    joined: joined(),
                    store: 0,
                    load: 0,
                },
                _ => continue,
            };
            let some = sides.store > 0 || sides.load > 0 || sides.joined;
            found.push(((result.clone(), operand.clone()), some.then_some(sides)));
        }
    }
    agreed(&found)
        .into_iter()
        .map(|((r, o), sides)| (r, o, sides))
        .collect()
}

/// Where control flow joins a value: the `scf.if` or `scf.for` whose
/// result it is (through `tt.trans`, which moves dims, not registers),
/// and which result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Join<'a> {
    Branches { op: &'a mlir::Op, index: usize },
    Loop { op: &'a mlir::Op, index: usize },
}

fn joined_at<'a>(f: &'a Function, value: &'a str) -> Option<Join<'a>> {
    let (op, result) = beyond_transposes(f, value)?;
    let index = op.results.iter().position(|r| r == result)?;
    match op.name.as_str() {
        "scf.if" => Some(Join::Branches { op, index }),
        "scf.for" => Some(Join::Loop { op, index }),
        _ => None,
    }
}

/// Whether LLVM makes `value` a loop's join of its own: arithmetic of
/// one loop result with constants only, each step the only use of the
/// value before it, where the loop may run no times and starts from a
/// constant, or from a value `arith.extf` widened that the chain's first
/// step, an `arith.truncf`, narrows back. On the path that skips the loop
/// the whole chain folds (to a constant, or to the value before it was
/// widened), so instcombine moves the chain into the loop exit's phi
/// (`foldOpIntoPhi`) and the value reaches its user joined, as a loop's
/// own result does.
fn folded_into_loop_exit(f: &Function, value: &str) -> bool {
    let mut current = value;
    let mut applied: Option<&mlir::Op> = None;
    for _ in 0..f.ops.len() {
        let Some((op, result)) = beyond_transposes(f, current) else {
            return false;
        };
        if op.name == "scf.for" {
            // Operands: `%lb, %ub, %step, %init...`.
            let index = op.results.iter().position(|r| r == result);
            let Some(init) = index.and_then(|i| op.operands.get(3 + i)) else {
                return false;
            };
            let folds =
                |first: &mlir::Op| is_constant(f, init) || narrowed_back(f.producer(init), first);
            return applied.is_some_and(folds) && may_run_no_times(f, op);
        }
        if !op.name.starts_with("arith.") || op.name == "arith.constant" || op.results.len() != 1 {
            return false;
        }
        // instcombine moves an op into a phi that op alone uses.
        let mut varying = op.operands.iter().filter(|o| !is_constant(f, o));
        match (varying.next(), varying.next()) {
            (Some(only), None) if f.uses(only).count() == 1 => current = only,
            _ => return false,
        }
        applied = Some(op);
    }
    false
}

/// Whether the `scf.for` `op` may run no times, as far as LLVM knows:
/// its bounds are not both constants. Where they are, LLVM drops the path
/// that skips the loop, and the loop's results flow straight on.
pub(super) fn may_run_no_times(f: &Function, op: &mlir::Op) -> bool {
    !(op.operands.len() >= 2 && op.operands[..2].iter().all(|b| is_constant(f, b)))
}

/// Whether the result `value` of the `scf.for` `op` starts from a
/// constant: its initial value (the operand after the bounds and step at
/// the result's position) is one. Unknown positions count as constant.
fn starts_from_constant(f: &Function, op: &mlir::Op, value: &str) -> bool {
    let position = op.results.iter().position(|r| r == value);
    position
        .and_then(|i| op.operands.get(3 + i))
        .is_none_or(|init| is_constant(f, init))
}

/// Whether the result `value` of the `scf.for` `op` starts from a value
/// `arith.extf` widened that `narrowing` narrows back, which LLVM folds to
/// the value before its widening.
fn starts_narrowed_back(f: &Function, op: &mlir::Op, value: &str, narrowing: &mlir::Op) -> bool {
    let position = op.results.iter().position(|r| r == value);
    position
        .and_then(|i| op.operands.get(3 + i))
        .is_some_and(|init| narrowed_back(f.producer(init), narrowing))
}

/// Whether `narrowing` (an `arith.truncf`) gives back the elements
/// `widening` (an `arith.extf`) widened, which LLVM folds to them.
fn narrowed_back(widening: Option<&mlir::Op>, narrowing: &mlir::Op) -> bool {
    let element = |t: Option<&scratch::TypeText>| t.map(|t| t.element.clone());
    widening.is_some_and(|w| {
        let widened_from = element(scratch::parse_types(&w.types).first());
        let narrowed_to = element(scratch::parse_types(&narrowing.types).last());
        w.name == "arith.extf"
            && narrowing.name == "arith.truncf"
            && widened_from.is_some()
            && widened_from == narrowed_to
    })
}

impl<'a> Join<'a> {
    /// Whether arithmetic made some value that flows into the join (a
    /// branch's yield, the loop body's), not only loads and transposes.
    fn computed(&self, f: &Function) -> bool {
        self.yielded(f).iter().any(|v| made_by_arithmetic(f, v))
    }

    /// The values that flow into the join: each branch's yield, the loop
    /// body's.
    fn yielded(&self, f: &'a Function) -> Vec<&'a str> {
        let (Join::Branches { op, index } | Join::Loop { op, index }) = *self;
        op.regions
            .iter()
            .filter_map(|region| {
                region
                    .last()
                    .and_then(|&block| f.blocks[block].ops.last())
                    .map(|&last| &f.ops[last])
                    .filter(|o| o.name == "scf.yield")
                    .and_then(|o| o.operands.get(index))
                    .map(String::as_str)
            })
            .collect()
    }
}

/// Whether `value` (through `tt.trans`) is the result of arithmetic.
fn made_by_arithmetic(f: &Function, value: &str) -> bool {
    beyond_transposes(f, value)
        .is_some_and(|(p, _)| p.name.starts_with("arith.") && p.name != "arith.constant")
}

/// The operation that made `value`, through any `tt.trans` (which moves
/// dims, not registers), and which of its results that is; `None` for an
/// argument. Bounded: a malformed dump may name a value by itself.
pub(super) fn beyond_transposes<'a>(
    f: &'a Function,
    value: &'a str,
) -> Option<(&'a mlir::Op, &'a str)> {
    let mut result = value;
    for _ in 0..f.ops.len() {
        let producer = f.producer(result)?;
        if producer.name != "tt.trans" {
            return Some((producer, result));
        }
        result = producer.operands.first()?;
    }
    None
}

/// The `ttg.local_alloc`s and `ttg.local_store`s of an NVIDIA dump whose
/// stored halves were made in 32-bit words: their stored value's names,
/// each with the most elements a store may move for LLVM to keep them
/// words ([`WordSides`]). Keyed by names, as `half_word_conversions` is.
#[salsa::tracked(returns(ref))]
pub fn half_word_stores(db: &dyn salsa::Database, file: SourceFile) -> Vec<(String, u32)> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let Some(target) = nvidia_target(text) else {
        return Vec::new();
    };
    let conversion = layout_algebra::machine::half_conversion(&target);
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f
            .ops
            .iter()
            .filter(|o| is_ttg(o, "local_alloc") || is_ttg(o, "local_store"))
        {
            if let Some(value) = op.operands.first() {
                let group = made_in_words(
                    db,
                    file,
                    text,
                    f,
                    value,
                    Made::InWords { conversion },
                    &mut 64,
                );
                found.push((value.clone(), (group > 0).then_some(group)));
            }
        }
    }
    agreed(&found)
}

/// The `ttg.local_load`s of an NVIDIA dump whose narrow elements LLVM
/// reads as words: their results' names (bytes two to a 16-bit word, see
/// [`upcast_in_pairs`]; halves of an mma operand two to a 32-bit word,
/// [`halves_for_nvidia_mma`]). The access moves a word as one only where
/// its elements are consecutive registers.
#[salsa::tracked(returns(ref))]
pub fn byte_pair_loads(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let Some(target) = nvidia_target(&file.analysed_text(db)) else {
        return Vec::new();
    };
    vendor_results_where(
        db,
        file,
        Vendor::Nvidia,
        &["local_load"],
        |f, result, loaded| {
            // Where no vectoriser works (sm80), the halves a loop carries
            // stay halves in its phi: read as such (`ld.shared.v4.b16`).
            let carried_as_halves =
                !layout_algebra::machine::vectorises(&target) && loop_partner(f, result).is_some();
            upcast_in_pairs(f, &target, result, loaded)
                || (halves_for_nvidia_mma(db, file, loaded) && !carried_as_halves)
        },
    )
}

/// The `ttg.local_load`s and `ttg.convert_layout`s whose narrow elements
/// LLVM reads sign-extended, folding the extension into the load that
/// reads one element ([`Mnemonic::sign_extending`]). Their results' names:
///
/// - an `i8` result only sign extensions take (`arith.sitofp`,
///   `arith.extsi`), but for one a loop carries as bytes
///   ([`extension_carried_as_bytes`]): `ld.shared.s8` on NVIDIA,
///   `ds_read_i8` on AMD (an int8 weight read a byte at a time);
/// - AMD: an 8- or 16-bit result only a `tt.gather` within warps
///   (`efficient_layout`) takes as its source. Triton's AMD shuffles
///   sign-extend a narrow value to the 32 bits `ds_bpermute_b32` moves and
///   truncate it after, so each element is read with `ds_read_i16`
///   (`ds_read_i8`).
///
/// [`Mnemonic::sign_extending`]: layout_algebra::bank::Mnemonic::sign_extending
#[salsa::tracked(returns(ref))]
pub fn sign_extended_loads(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let ops = ["local_load", "convert_layout"];
    let only_sign_extended = |f: &Function, result: &str, loaded: &scratch::TypeText| {
        let uses: Vec<&mlir::Op> = f.uses(result).collect();
        loaded.element == "i8"
            && !uses.is_empty()
            && uses
                .iter()
                .all(|o| matches!(o.name.as_str(), "arith.sitofp" | "arith.extsi"))
            && !uses.iter().all(|o| {
                o.results
                    .first()
                    .is_some_and(|v| extension_carried_as_bytes(f, v))
            })
    };
    let mut found = vendor_results_where(db, file, Vendor::Nvidia, &ops, only_sign_extended);
    found.extend(vendor_results_where(
        db,
        file,
        Vendor::Amd,
        &ops,
        |f, result, loaded| {
            let mut uses = f.uses(result).peekable();
            let gathered = matches!(scratch::element_bits(&loaded.element), Some(8 | 16))
                && uses.peek().is_some()
                && uses.all(|u| {
                    u.operands.first().is_some_and(|s| s == result)
                        && u.operands[1..].iter().all(|o| o != result)
                        && gathers_within_warps(u)
                });
            gathered || only_sign_extended(f, result, loaded)
        },
    ));
    found
}

/// Whether LLVM carries `value`, a sign extension of bytes, around a
/// loop as the bytes themselves: its one use carries it into an
/// `scf.for`, and the loop's other incoming value for that argument is
/// the same extension. instcombine turns a phi of like casts into one
/// cast of a phi of their operands (`foldPHIArgOpIntoPHI`), so the loads
/// feed the phi as plain bytes (`ld.shared.b8`) and the extension moves
/// after it: an int8 operand a pipelined K loop upcasts, read before the
/// loop and for the next iteration, as the PTX of such kernels has it.
fn extension_carried_as_bytes(f: &Function, value: &str) -> bool {
    let extension = f.producer(value);
    loop_partner(f, value)
        .and_then(|o| f.producer(o))
        .is_some_and(|o| extension.is_some_and(|e| e.name == o.name && e.types == o.types))
}

/// The other value the loop's phi takes where `value`'s one use carries
/// it into an `scf.for`: the body's yield for the loop's initial value,
/// the initial value for what the body yields. `None` where `value` has
/// other uses, or goes elsewhere.
fn loop_partner<'a>(f: &'a Function, value: &str) -> Option<&'a str> {
    let mut uses = f.uses(value);
    let (Some(carrier), None) = (uses.next(), uses.next()) else {
        return None;
    };
    let mut found = carrier
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| *o == value)
        .map(|(i, _)| i);
    let (Some(at), None) = (found.next(), found.next()) else {
        return None;
    };
    let partner = match carrier.name.as_str() {
        // Operands: `%lb, %ub, %step, %init...`.
        "scf.yield" => carrier
            .block
            .map(|b| &f.ops[f.blocks[b].owner])
            .filter(|owner| owner.name == "scf.for")
            .and_then(|owner| owner.operands.get(3 + at)),
        "scf.for" => at.checked_sub(3).and_then(|i| {
            carrier
                .regions
                .first()
                .and_then(|r| f.region_yield(r))
                .and_then(|y| y.operands.get(i))
        }),
        _ => None,
    };
    partner.map(String::as_str)
}

/// Whether `op` is a `tt.gather` Triton lowers with warp shuffles
/// (`efficient_layout`), not through shared memory.
pub(super) fn gathers_within_warps(op: &mlir::Op) -> bool {
    op.name == "tt.gather"
        && op
            .attributes
            .split(',')
            .any(|a| a.trim() == "efficient_layout")
}

/// The results of the `ttg` ops named in `ops` (`local_load`) of a dump
/// for `vendor`'s machines for which `keep` holds of the function, the
/// result's name and its type, wherever that name is defined (agreed
/// across functions); none for another vendor's dump.
fn vendor_results_where(
    db: &dyn salsa::Database,
    file: SourceFile,
    vendor: Vendor,
    ops: &[&str],
    keep: impl Fn(&Function, &str, &scratch::TypeText) -> bool,
) -> Vec<String> {
    if dump_vendor(&file.analysed_text(db)) != Some(vendor) {
        return Vec::new();
    }
    results_where(db, file, ops, keep)
}

/// The results of a dump's `ttg` ops named in `ops` for which `keep`
/// holds, agreed across functions (see [`vendor_results_where`]).
fn results_where(
    db: &dyn salsa::Database,
    file: SourceFile,
    ops: &[&str],
    keep: impl Fn(&Function, &str, &scratch::TypeText) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f.ops.iter().filter(|o| ops.iter().any(|n| is_ttg(o, n))) {
            let (Some(result), Some(loaded)) =
                (op.results.first(), scratch::parse_type(op.result_types()))
            else {
                continue;
            };
            found.push((result.clone(), keep(f, result, &loaded).then_some(())));
        }
    }
    agreed(&found).into_iter().map(|(v, ())| v).collect()
}

/// Whether `loaded` holds 16-bit floats as an operand of an NVIDIA mma
/// (`#ttg.dot_op<{..., parent = #mma}>` of a `#ttg.nvidia_mma`), which
/// takes them two to a 32-bit register (`.f16x2`): where Triton reads them
/// with `ld.shared` rather than `ldmatrix` (a `kWidth` of 4 beside an
/// integer operand), LLVM reads the pairs as words (`ld.shared.v2.b32`).
fn halves_for_nvidia_mma(
    db: &dyn salsa::Database,
    file: SourceFile,
    loaded: &scratch::TypeText,
) -> bool {
    let Some(encoding) = loaded.encoding.as_deref() else {
        return false;
    };
    let parent = encoding
        .strip_prefix("#ttg.dot_op<{")
        .and_then(|inner| inner.split_once("parent = "))
        .map(|(_, rest)| rest.split([',', '}']).next().unwrap_or("").trim());
    matches!(loaded.element.as_str(), "f16" | "bf16")
        && parent
            .is_some_and(|p| matches!(encoding_named(db, file, p), Some(Encoding::NvidiaMma(_))))
}

/// Whether every use of `value`, through `tt.trans`s, is an operand of
/// an NVIDIA mma that takes 16-bit floats two to a register
/// ([`halves_for_nvidia_mma`]): a conversion that makes such an operand
/// (a `tt.trans`'s operand, for a transposed B) has LLVM read its pairs
/// as words, as a `ttg.local_load` of one does. Bounded by `visits`.
fn taken_by_nvidia_mma(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    value: &str,
    visits: &mut u32,
) -> bool {
    if !spend(visits) {
        return false;
    }
    let mut uses = f.uses(value).peekable();
    uses.peek().is_some()
        && uses.all(|u| {
            u.name == "tt.trans"
                && u.results.first().is_some_and(|r| {
                    scratch::parse_type(u.result_types())
                        .is_some_and(|t| halves_for_nvidia_mma(db, file, &t))
                        || taken_by_nvidia_mma(db, file, f, r, visits)
                })
        })
}

/// Whether LLVM reads two bytes of `value` as one 16-bit word
/// (`ld.shared.b16` for `ld.shared.v2.b8`) on NVIDIA's `target`, as the
/// compiled kernels show: 8-bit floats that only go to `tt.fp_to_fp`s to
/// f16 or bf16 that Triton converts two at a time from one 16-bit register
/// (`cvt.rn.f16x2.e4m3x2` and the like, [`fp8_upcast_register_bits`]; to
/// f32, or four at a time from a 32-bit register, they stay bytes), and
/// booleans that only go to `arith.extui` to bytes (the truncation to `i1`
/// and the extension fold into a mask of the loaded word).
///
/// [`fp8_upcast_register_bits`]: layout_algebra::machine::fp8_upcast_register_bits
fn upcast_in_pairs(f: &Function, target: &str, value: &str, loaded: &scratch::TypeText) -> bool {
    let boolean = loaded.element == "i1";
    if !boolean && !loaded.element.starts_with("f8") {
        return false;
    }
    let widened_in_pairs = |to: &str| {
        if boolean {
            to == "i8"
        } else {
            layout_algebra::machine::fp8_upcast_register_bits(target, &loaded.element, to)
                == Some(16)
        }
    };
    let conversion = if boolean {
        "arith.extui"
    } else {
        "tt.fp_to_fp"
    };
    let uses: Vec<&mlir::Op> = f.uses(value).collect();
    !uses.is_empty()
        && uses.iter().all(|o| {
            o.name == conversion
                && scratch::parse_types(&o.types)
                    .last()
                    .is_some_and(|t| widened_in_pairs(&t.element))
        })
}

/// The 8- and 16-bit values of an AMD dump that live packed in 32-bit
/// registers in register order, and that a conversion, `local_alloc` or
/// `local_store` stores: their names. A store of one element (or one pair
/// of bytes) at a time moves what sits at bit 16 of a register with the
/// `_d16_hi` form (`ds_write_b16_d16_hi`). They are the halves
/// `arith.truncf` made on a target that converts in pairs
/// (`v_cvt_pk_bf16_f32`, [`TritonTarget::half_conversion`]), directly or
/// through 16-bit float arithmetic with constants, and on every AMD target
/// an `scf.if`'s results: LLVM joins the branches' values as one vector,
/// packed in its registers, where straight-line code keeps each arithmetic
/// result in a register of its own. On a machine with half registers
/// (gfx1250) a reduction's 16-bit results sit two to a register too.
///
/// [`TritonTarget::half_conversion`]: layout_algebra::machine::TritonTarget
#[salsa::tracked(returns(ref))]
pub fn packed_narrow_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let Some(target) = ModuleFacts::read(text).target else {
        return Vec::new();
    };
    let Some(preset) = layout_algebra::machine::preset_for_triton_target(&target)
        .filter(|p| p.vendor == Vendor::Amd)
    else {
        return Vec::new();
    };
    let converts_in_pairs =
        layout_algebra::machine::half_conversion(&target) == HalfConversion::Pairs;
    stored_values_where(db, file, |f, op, value| {
        let bits = scratch::parse_types(op.operand_types())
            .first()
            .and_then(|t| scratch::element_bits(&t.element));
        // Halves joined by branches or a loop; bytes by branches, and by a
        // loop where byte arithmetic stays packed (elsewhere a loop's bytes
        // stay packed only where its arithmetic does, which the TTGIR does
        // not say).
        let joined = match (joined_at(f, value), bits) {
            (Some(Join::Branches { .. }), Some(8 | 16)) => true,
            (Some(Join::Loop { .. }), Some(16)) => true,
            (Some(Join::Loop { .. }), Some(8)) => preset.packed_byte_arithmetic,
            _ => false,
        };
        // In half registers (gfx1250's true16) a reduction across warps
        // reads its 16-bit partials back in vectors, and its results stay
        // two to a register.
        let reduced_in_half_registers = preset.lds.half_registers
            && bits == Some(16)
            && f.producer(value)
                .is_some_and(|p| reduces_across_warps(db, file, text, p));
        // 8-bit floats a conversion packs four to a register (gfx950).
        let narrowed_in_fours =
            bits == Some(8) && narrowed_to_fp8_in(f, text, &target, value) == Some(32);
        let shuffled = matches!(bits, Some(8 | 16))
            && !super::loaded_in_vectors(db, file, f, value)
            && shuffled_from_vector_loads(db, file, f, value, &mut 16);
        joined
            || reduced_in_half_registers
            || narrowed_in_fours
            || shuffled
            || converts_in_pairs
                && made_in_words(db, file, text, f, value, Made::ByConversion, &mut 64) > 0
    })
}

/// Whether `value` is what `tt.reshape`, `tt.split`, `tt.join` and
/// `tt.trans` made of narrow values a global load read in vectors: LLVM
/// keeps the vectors packed in its registers as it shuffles their elements
/// (`v_perm_b32`), in the result's register order. Bounded by `visits`.
fn shuffled_from_vector_loads(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    value: &str,
    visits: &mut u32,
) -> bool {
    if !spend(visits) {
        return false;
    }
    f.producer(value).is_some_and(|p| {
        matches!(
            p.name.as_str(),
            "tt.reshape" | "tt.split" | "tt.join" | "tt.trans"
        ) && !p.operands.is_empty()
            && p.operands.iter().all(|o| {
                super::loaded_in_vectors(db, file, f, o)
                    || shuffled_from_vector_loads(db, file, f, o, visits)
            })
    })
}

/// Whether `op` is a `tt.reduce` whose axis runs across warps (it
/// combines the warps' partials through shared memory).
fn reduces_across_warps(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    op: &mlir::Op,
) -> bool {
    if op.name != "tt.reduce" {
        return false;
    }
    let line = &text[op.span.start..op.span.end];
    let (Some(t), Some(axis)) = (
        scratch::parse_types(op.operand_types()).into_iter().next(),
        scratch::axis(line),
    ) else {
        return false;
    };
    let Some(layout) = t
        .encoding
        .as_deref()
        .and_then(|e| encoding_named(db, file, e))
        .and_then(|e| e.to_linear_layout(&t.shape).ok())
    else {
        return false;
    };
    (0..layout.in_dim_size_log2("warp") as usize).any(|i| {
        layout
            .basis("warp", i)
            .is_ok_and(|b| b.get(axis).is_some_and(|&c| c != 0))
    })
}

/// The values a conversion, `local_alloc` or `local_store` of `file`
/// stores for which `holds` (given the function, the storing op and the
/// value) is true wherever the value is stored: their names.
fn stored_values_where(
    db: &dyn salsa::Database,
    file: SourceFile,
    mut holds: impl FnMut(&Function, &mlir::Op, &str) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f.ops.iter().filter(|o| {
            ["local_alloc", "local_store", "convert_layout"]
                .iter()
                .any(|name| is_ttg(o, name))
        }) {
            if let Some(value) = op.operands.first() {
                let yes = holds(f, op, value);
                found.push((value.clone(), yes.then_some(())));
            }
        }
    }
    agreed(&found).into_iter().map(|(v, ())| v).collect()
}

/// The constant tensors (`arith.constant dense<...>`) an NVIDIA dump's
/// `local_alloc`s and `local_store`s store: their names. LLVM stores a
/// constant vector of narrow elements as whole words (`st.shared.b16` for
/// two bytes, `.v2.b32` for four halves), and on a target that keeps
/// joined halves in 64-bit registers, eight halves or bytes or more as
/// 64-bit words (`st.shared.v2.b64` for a tile of zeros a persistent
/// matmul stores where its K loop runs no times).
///
/// With `uniform`, also values every register of which holds one value
/// LLVM cannot fold (an 8-bit float converted from a constant, in inline
/// assembly): it stores their bytes apart, but on a target of 64-bit
/// joined words still eight or more of them as 64-bit words.
#[salsa::tracked(returns(ref))]
pub fn constant_stores(db: &dyn salsa::Database, file: SourceFile, uniform: bool) -> Vec<String> {
    let analysed = file.analysed_text(db);
    if nvidia_target(&analysed).is_none() {
        return Vec::new();
    }
    let text: &str = &analysed;
    stored_values_where(db, file, |f, op, value| {
        !is_ttg(op, "convert_layout")
            && if uniform {
                uniform_registers(text, f, value, &mut 64)
            } else {
                folds_to_constant(f, value, &mut 64)
            }
    })
}

/// Whether every register of `value` holds the same value: a splat
/// constant (`dense<0.0>`, not `dense<[...]>`), or arithmetic,
/// conversions and register moves of such values (a `tt.join` of one
/// value with itself).
/// Bounded: a malformed dump may name a value by itself.
fn uniform_registers(text: &str, f: &Function, value: &str, visits: &mut u32) -> bool {
    if !spend(visits) {
        return false;
    }
    let Some(p) = f.producer(value) else {
        return false;
    };
    match p.name.as_str() {
        "arith.constant" => text
            .get(p.span.start..p.span.end)
            .is_some_and(|line| !line.contains("dense<[")),
        "tt.join" => {
            p.operands.windows(2).all(|w| w[0] == w[1])
                && p.operands
                    .first()
                    .is_some_and(|o| uniform_registers(text, f, o, visits))
        }
        name if name.starts_with("arith.")
            || name == "tt.fp_to_fp"
            || REGISTER_MOVES.contains(&name) =>
        {
            p.operands
                .iter()
                .all(|o| uniform_registers(text, f, o, visits))
        }
        _ => false,
    }
}

/// Ops that move registers without computing: a constant stays one.
const REGISTER_MOVES: [&str; 7] = [
    "tt.split",
    "tt.trans",
    "tt.reshape",
    "tt.broadcast",
    "tt.splat",
    "tt.join",
    "tt.expand_dims",
];

/// Whether `value` is floats narrowed to 8-bit floats, which NVIDIA's
/// `target` converts two at a time into one 16-bit register
/// (`cvt.rn.satfinite.e4m3x2.f32`, [`fp8_narrowing_register_bits`]): the
/// bytes come two to a word. (Four at a time into a 32-bit register, as
/// e5m2 before sm89, they move as the bytes they are. Of a constant the
/// conversion gives one word whose bytes LLVM stores apart.)
///
/// [`fp8_narrowing_register_bits`]: layout_algebra::machine::fp8_narrowing_register_bits
fn narrowed_in_pairs(f: &Function, text: &str, target: &str, value: &str) -> bool {
    narrowed_to_fp8_in(f, text, target, value) == Some(16)
}

/// The bits of a register `value`'s 8-bit floats fill, where a
/// `tt.fp_to_fp` from a wider float made them
/// ([`fp8_narrowing_register_bits`]) from something LLVM cannot fold.
///
/// [`fp8_narrowing_register_bits`]: layout_algebra::machine::fp8_narrowing_register_bits
fn narrowed_to_fp8_in(f: &Function, text: &str, target: &str, value: &str) -> Option<u32> {
    let producer = f.producer(value).filter(|p| p.name == "tt.fp_to_fp")?;
    let types = scratch::parse_types(&producer.types);
    let bits = |t: Option<&scratch::TypeText>| t.and_then(|t| scratch::element_bits(&t.element));
    let toward_zero = text
        .get(producer.span.start..producer.span.end)
        .is_some_and(|line| line.contains("rounding = rtz"));
    let folds = producer
        .operands
        .first()
        .is_some_and(|o| folds_to_constant(f, o, &mut 64));
    if bits(types.last()) != Some(8) || bits(types.first()).is_none_or(|b| b <= 8) || folds {
        return None;
    }
    layout_algebra::machine::fp8_narrowing_register_bits(
        target,
        &types.last()?.element,
        toward_zero,
    )
}

/// Whether LLVM folds `value` to a constant: an `arith.constant`, or
/// arithmetic and register moves (`tt.split`, `tt.trans`, reshapes,
/// broadcasts) of such values only. Not `tt.fp_to_fp`, which NVIDIA
/// converts in inline assembly that LLVM cannot fold.
fn folds_to_constant(f: &Function, value: &str, visits: &mut u32) -> bool {
    if !spend(visits) {
        return false;
    }
    let Some(producer) = f.producer(value) else {
        return false;
    };
    match producer.name.as_str() {
        "arith.constant" => true,
        name if name.starts_with("arith.") || REGISTER_MOVES.contains(&name) => producer
            .operands
            .iter()
            .all(|o| folds_to_constant(f, o, visits)),
        _ => false,
    }
}

/// The bf16 values of an AMD dump whose every element sits in the high
/// half of its own 32-bit register, and that a conversion, `local_alloc`
/// or `local_store` stores: their names. On a target without a bf16
/// conversion instruction (gfx942), LLVM computes a maximum or minimum of
/// bf16 in f32, where a bf16 is the high half of the f32 it widens to,
/// and the result of values no arithmetic made needs no rounding: every
/// scalar store of it takes the `_d16_hi` form. Other arithmetic rounds
/// its result into the low half.
#[salsa::tracked(returns(ref))]
pub fn high_half_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<String> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    let Some(target) = ModuleFacts::read(text).target else {
        return Vec::new();
    };
    let amd = layout_algebra::machine::preset_for_triton_target(&target)
        .is_some_and(|p| p.vendor == Vendor::Amd);
    if !amd || layout_algebra::machine::half_conversion(&target) == HalfConversion::Pairs {
        return Vec::new();
    }
    stored_values_where(db, file, |f, _, value| exact_bf16_extremum(f, value))
}

/// Whether `value` (through `tt.trans`) is a maximum or minimum of bf16
/// values no arithmetic made (loads, constants).
fn exact_bf16_extremum(f: &Function, value: &str) -> bool {
    let Some((producer, _)) = beyond_transposes(f, value) else {
        return false;
    };
    let extremum = matches!(
        producer.name.as_str(),
        "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf"
    );
    // Of values arithmetic made, the rounded results come in the low
    // half, and so does the extremum of them.
    extremum
        && !producer.operands.iter().any(|v| made_by_arithmetic(f, v))
        && scratch::parse_types(&producer.types)
            .last()
            .is_some_and(|t| t.element == "bf16")
}

/// The `ttg.convert_layout`s (result, operand) of an NVIDIA dump of `i1`
/// whose result only serves as a condition (`arith.select`), a mask
/// (`tt.load`, `tt.store`, `tt.atomic_rmw`; also through `arith.andi`,
/// `ori`, `xori` of booleans) or a number (`arith.uitofp`, `arith.sitofp`):
/// each keeps the truncation of the loaded bytes to `i1`, which LLVM folds
/// into a load of `<N x i1>` and reads bytes apart
/// (`RoundTripSide::booleans_apart`). A result stored as a value keeps
/// its vectors (the store's extension cancels the truncation).
#[salsa::tracked(returns(ref))]
pub fn boolean_conversions(db: &dyn salsa::Database, file: SourceFile) -> Vec<(String, String)> {
    let analysed = file.analysed_text(db);
    let text: &str = &analysed;
    if nvidia_target(text).is_none() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f.ops.iter().filter(|o| is_ttg(o, "convert_layout")) {
            let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) else {
                continue;
            };
            let boolean = scratch::parse_type(op.result_types()).is_some_and(|t| t.element == "i1");
            let apart = boolean && kept_as_bits(f, result);
            found.push(((result.clone(), operand.clone()), apart.then_some(())));
        }
    }
    agreed(&found).into_iter().map(|(k, ())| k).collect()
}

/// The `ttg.convert_layout`s that store what `value` selects, where every
/// use of `value` is the condition of an `arith.select` whose result only
/// goes into shared memory by such conversions: from a conversion's vector
/// store LLVM's vectoriser (where it works, `machine::vectorises`) takes
/// as many selects as the vector holds as one vector select, and their
/// booleans as one load of the word they sit in. `None` where any use is
/// another.
pub(crate) fn selected_into_conversions<'f>(
    f: &'f Function,
    value: &'f str,
) -> Option<Vec<&'f mlir::Op>> {
    let mut conversions = Vec::new();
    for select in f.uses(value) {
        let condition_only = select.name == "arith.select"
            && select.operands.first().is_some_and(|c| c == value)
            && !select.operands[1..].iter().any(|v| v == value);
        let selected = select.results.first().filter(|_| condition_only)?;
        let users: Vec<&mlir::Op> = f.uses(selected).collect();
        if users.is_empty() || !users.iter().all(|u| is_ttg(u, "convert_layout")) {
            return None;
        }
        conversions.extend(users);
    }
    (!conversions.is_empty()).then_some(conversions)
}

/// Whether every use of `value` takes it as a condition, a mask (of a
/// load, a store or an atomic) or a number (converted to a float, or
/// widened to an integer wider than a byte), and only there.
pub(crate) fn kept_as_bits(f: &Function, value: &str) -> bool {
    kept_as_bits_within(f, value, &mut 16)
}

/// [`kept_as_bits`], through the logic of booleans (`arith.andi`, `ori`,
/// `xori` of `i1`, whose results are kept so too) within a budget of
/// visits.
fn kept_as_bits_within(f: &Function, value: &str, visits: &mut u32) -> bool {
    if !spend(visits) {
        return false;
    }
    let uses: Vec<&mlir::Op> = f.uses(value).collect();
    !uses.is_empty()
        && uses.iter().all(|o| {
            let at = |i: usize| {
                o.operands
                    .iter()
                    .enumerate()
                    .all(|(k, v)| (v == value) == (k == i))
            };
            match o.name.as_str() {
                "arith.select" => at(0),
                "tt.store" | "tt.atomic_rmw" => at(2),
                "tt.load" => at(1),
                "arith.uitofp" | "arith.sitofp" => at(0),
                // Widened past a byte, each boolean goes to a register of
                // its own (to bytes, two share a 16-bit word: see
                // `upcast_in_pairs`).
                "arith.extui" | "arith.extsi" => {
                    at(0)
                        && scratch::parse_types(&o.types)
                            .last()
                            .and_then(|t| scratch::element_bits(&t.element))
                            .is_some_and(|bits| bits > 8)
                }
                "arith.andi" | "arith.ori" | "arith.xori" => {
                    scratch::parse_type(o.result_types()).is_some_and(|t| t.element == "i1")
                        && o.results
                            .first()
                            .is_some_and(|r| kept_as_bits_within(f, r, visits))
                }
                _ => false,
            }
        })
}

/// The module's `ttg.target` where it is an NVIDIA one.
fn nvidia_target(text: &str) -> Option<String> {
    (dump_vendor(text) == Some(Vendor::Nvidia)).then(|| ModuleFacts::read(text).target)?
}

/// The vendor of the machine a dump's module names (`ttg.target`).
fn dump_vendor(text: &str) -> Option<Vendor> {
    let target = ModuleFacts::read(text).target?;
    layout_algebra::machine::preset_for_triton_target(&target).map(|p| p.vendor)
}

/// Which makings of halves in words count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Made {
    /// Vector loads, and conversions as the target makes them.
    InWords { conversion: HalfConversion },
    /// Conversions in pairs only (the target converts in pairs).
    ByConversion,
}

/// How `value`'s halves were made in 32-bit words: loaded from global
/// memory two or more at a time (up to the load's vector: a shared-memory
/// vector within it stays words), by `arith.truncf` of f32 to a 16-bit
/// float where the target converts in pairs (any vector of pairs), or by
/// 16-bit float arithmetic on such values and constants (packed
/// `mul.f16x2` and the like keep them in words; on a target that pairs
/// only the conversions packed directly, the truncations behind such
/// arithmetic were made one at a time). 0 where they were not.
fn made_in_words(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    value: &str,
    made: Made,
    visits: &mut u32,
) -> u32 {
    // A budget of ops to look at: shared operands are not walked twice
    // over without end.
    if !spend(visits) {
        return 0;
    }
    let Some(producer) = f.producer(value) else {
        return 0;
    };
    let types = scratch::parse_types(&producer.types);
    let half = |t: Option<&scratch::TypeText>| {
        t.is_some_and(|t| matches!(t.element.as_str(), "f16" | "bf16"))
    };
    // A value branches or a loop join is one vector to LLVM, which lives
    // in 32-bit words on a target that converts halves in pairs (its
    // vectoriser works on halves); sm80 keeps them apart. Where no
    // arithmetic made it (a loop of `tt.dot`s accumulating in f16 yields
    // the halves it unpacks from the mma's words), the vectoriser has
    // nothing to pair and the join keeps halves.
    if made
        == (Made::InWords {
            conversion: HalfConversion::Pairs,
        })
        && let Some(join) = joined_at(f, value)
        && (join.computed(f)
            || join
                .yielded(f)
                .iter()
                .any(|v| made_in_words(db, file, text, f, v, made, visits) > 0))
    {
        return u32::MAX;
    }
    match producer.name.as_str() {
        // `tt.load %ptrs : tensor<...x!tt.ptr<f16>, #blocked>`: the pointers' type.
        "tt.load" if made != Made::ByConversion => types
            .first()
            .filter(|t| scratch::pointee_bits(&t.element) == Some(16))
            .map_or(0, |t| in_vectors(db, file, text, f, producer, t)),
        // 8-bit floats widened to halves: Triton converts two at a time
        // from one packed register (`cvt.rn.f16x2.e5m2x2` and the like), so
        // the halves come two to a word.
        "tt.fp_to_fp"
            if made != Made::ByConversion
                && types
                    .first()
                    .is_some_and(|t| scratch::element_bits(&t.element) == Some(8))
                && half(types.last()) =>
        {
            u32::MAX
        }
        "tt.fp_to_fp"
            if made != Made::ByConversion
                && nvidia_target(text).is_some_and(|t| narrowed_in_pairs(f, text, &t, value)) =>
        {
            u32::MAX
        }
        // An atomic add returns its old values as it took them.
        "tt.atomic_rmw" if made != Made::ByConversion => match atomic_add_words(text, producer) {
            Some(AtomicWords::Pairs) => types
                .first()
                .map_or(0, |t| in_vectors(db, file, text, f, producer, t)),
            None => 0,
        },
        "arith.truncf" => {
            let paired = match made {
                Made::InWords {
                    conversion: HalfConversion::OneAtATime,
                } => false,
                // Instruction selection pairs two conversions only in the
                // block that packs them: of the result of a loop that may
                // run no times LLVM converts each value in the loop's exit
                // block and packs them after merging the path that skips
                // the loop. Instcombine moves the conversion into the
                // merge's phi only where it is the phi's one use; a result
                // something else takes too (a row maximum of the
                // accumulator) is converted after the merge, in pairs. It
                // folds the conversion into the phi only where that folds
                // an incoming value: a loop that starts from a constant (an
                // accumulator of zeros) or from values `arith.extf` widened
                // that the conversion narrows back (C loaded, accumulated
                // into and stored); from another loop's result, say, the
                // conversion stays after the merge, in pairs.
                Made::InWords {
                    conversion: HalfConversion::PairsWhenPackedDirectly,
                } => !producer.operands.first().is_some_and(|v| {
                    f.producer(v).is_some_and(|p| {
                        p.name == "scf.while"
                            || p.name == "scf.for"
                                && may_run_no_times(f, p)
                                && (starts_from_constant(f, p, v)
                                    || starts_narrowed_back(f, p, v, producer))
                    }) && f.uses(v).count() == 1
                }),
                _ => true,
            };
            let made_here =
                paired && types.first().is_some_and(|t| t.element == "f32") && half(types.get(1));
            if made_here { u32::MAX } else { 0 }
        }
        // A sum or product of halves, reduced: the vectoriser pairs the
        // last combine as it pairs the arithmetic (a maximum stays apart).
        "tt.reduce"
            if made
                == (Made::InWords {
                    conversion: HalfConversion::Pairs,
                })
                && half(types.last()) =>
        {
            let summed = super::sums_or_multiplies(f, producer);
            if summed { u32::MAX } else { 0 }
        }
        // `tt.split` of pairs that sit in 32-bit words: each half is one
        // lane of a word, and LLVM packs any two into a word (`prmt`).
        "tt.split"
            if made != Made::ByConversion
                && half(types.last())
                && producer.operands.first().is_some_and(|pairs| {
                    made_in_words(db, file, text, f, pairs, made, visits) >= 2
                }) =>
        {
            u32::MAX
        }
        // Halves in words moved by `tt.trans`/`tt.reshape` (the same
        // values in another order) or joined from two such tensors: NVPTX
        // keeps the halves in 32-bit registers and packs any two into a
        // word (`prmt`), as for `tt.split`.
        "tt.trans" | "tt.reshape" | "tt.join"
            if made != Made::ByConversion
                && half(types.last())
                && !producer.operands.is_empty()
                && producer
                    .operands
                    .iter()
                    .all(|v| made_in_words(db, file, text, f, v, made, visits) >= 2) =>
        {
            u32::MAX
        }
        // Gathered halves behind 16-bit arithmetic: in words as the
        // arithmetic's own conversions would be. AMD's shuffles truncate
        // each gathered half into a register of its own.
        "tt.gather" if made != Made::ByConversion && shuffled(f, value) && half(types.last()) => {
            match made {
                Made::InWords {
                    conversion: HalfConversion::OneAtATime,
                } => 0,
                _ => u32::MAX,
            }
        }
        "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.negf"
        | "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf" | "math.fma"
            if half(types.last()) =>
        {
            // Where the target converts halves in pairs, LLVM's vectoriser
            // pairs 16-bit float arithmetic too (`mul.rn.f16x2`; bf16 in
            // f32, converted back two at a time): the results come in
            // words. Not where an operand is converted from integers,
            // which NVIDIA does one at a time (`cvt.rn.f16.s16`): packing
            // those costs the vectoriser more than the pairing saves, and
            // the arithmetic stays scalar (`mul.f16`).
            if made
                == (Made::InWords {
                    conversion: HalfConversion::Pairs,
                })
            {
                let from_integers = producer.operands.iter().any(|v| {
                    f.producer(v)
                        .is_some_and(|p| matches!(p.name.as_str(), "arith.sitofp" | "arith.uitofp"))
                });
                return if from_integers { 0 } else { u32::MAX };
            }
            // The arithmetic is scalar where the vectoriser does not pair
            // the conversions: so are they then.
            let behind = match made {
                Made::InWords {
                    conversion: HalfConversion::PairsWhenPackedDirectly,
                } => Made::InWords {
                    conversion: HalfConversion::OneAtATime,
                },
                other => other,
            };
            let mut fewest: Option<u32> = None;
            for v in producer.operands.iter().filter(|v| !is_constant(f, v)) {
                let here = made_in_words(db, file, text, f, v, behind, visits);
                fewest = Some(fewest.map_or(here, |m| m.min(here)));
            }
            fewest.unwrap_or(0)
        }
        _ => 0,
    }
}

/// How many elements the global access `op` (a `tt.load` or `tt.store` of
/// pointers of type `t`) moves at a time, where more than one: its blocked
/// layout holds them along its fastest dim (at most 16 bytes), the
/// pointers step one element at a time along that dim
/// (`contiguity::unit_step_dim`) and their argument is aligned. Their
/// halves travel in 32-bit words. 0 otherwise.
fn in_vectors(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    op: &mlir::Op,
    t: &scratch::TypeText,
) -> u32 {
    let Some(Encoding::Blocked(b)) = t
        .encoding
        .as_deref()
        .and_then(|e| encoding_named(db, file, e))
    else {
        return 0;
    };
    let Some((&fastest, &held)) = b
        .order
        .first()
        .and_then(|d| Some((d, b.size_per_thread.get(*d)?)))
    else {
        return 0;
    };
    let contiguous = op
        .operands
        .first()
        .and_then(|p| contiguity::unit_step_dim(text, f, p))
        == Some(fastest);
    if held < 2 || !contiguous || !pointers_aligned(text, f, op) {
        return 0;
    }
    // Triton's vector: no wider than the pointers' alignment, 16 bytes,
    // or the run of equal mask bits along the dim.
    let bytes = scratch::pointee_bits(&t.element).map_or(2, |b| (b / 8).max(1)) as u64;
    let aligned = pointer_alignment(text, f, op).map_or(u64::MAX, |a| a / bytes);
    let mask = match op.name.as_str() {
        "tt.store" | "tt.atomic_rmw" => op.operands.get(2),
        "tt.load" => op.operands.get(1),
        _ => None,
    };
    let masked = mask.map_or(u64::MAX, |m| mask_run(text, f, m, fastest, &mut 64));
    let run = op
        .operands
        .first()
        .map_or(u64::MAX, |p| contiguity::unit_run(text, f, p));
    (held as u64)
        .min(16 / bytes)
        .min(aligned)
        .min(masked)
        .min(run) as u32
}

/// 2 where a global load brought `value`'s bytes two to a 16-bit
/// register (0 otherwise). Triton loads a vector of bytes as integers and
/// splits them; where a conversion stores two at once, LLVM folds the
/// split and the repacking into a store of the loaded word
/// (`st.shared.b16`, not `.v2.b8`). Two bytes of a wider register stay
/// apart (`ld.global.v4.b32` of 16 bytes still stores `.v2.b8`).
fn bytes_loaded_in_vectors(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    value: &str,
) -> u32 {
    let Some(load) = f.producer(value).filter(|p| p.name == "tt.load") else {
        return 0;
    };
    scratch::parse_types(&load.types)
        .first()
        .filter(|t| scratch::pointee_bits(&t.element) == Some(8))
        .map(|t| in_vectors(db, file, text, f, load, t))
        .filter(|&vector| vector == 2)
        .unwrap_or(0)
}

/// How many consecutive elements along `dim` a mask keeps equal (Triton's
/// `getMaskAlignment`): all of them where it does not vary along the dim;
/// for `offsets < bound` with offsets stepping by one along it, the
/// bound's divisibility (a constant's power-of-two factor, an argument's
/// `tt.divisibility`); 1 otherwise.
fn mask_run(text: &str, f: &Function, mask: &str, dim: usize, visits: &mut u32) -> u64 {
    if !spend(visits) {
        return 1;
    }
    let Some(producer) = f.producer(mask) else {
        return 1;
    };
    let operand = |i: usize| producer.operands.get(i).map(String::as_str);
    match producer.name.as_str() {
        "arith.constant" | "tt.splat" => u64::MAX,
        "tt.broadcast" | "ttg.convert_layout" => match operand(0) {
            Some(m) => mask_run(text, f, m, dim, visits),
            None => 1,
        },
        "tt.reshape" => match (contiguity::unit_reshape(producer), operand(0)) {
            (Some(to), Some(m)) => match to.iter().position(|&r| r == dim) {
                Some(d) => mask_run(text, f, m, d, visits),
                // A dim of one element the reshape adds.
                None => u64::MAX,
            },
            _ => 1,
        },
        "tt.expand_dims" => match (contiguity::axis(producer), operand(0)) {
            (Some(a), _) if a == dim => u64::MAX,
            (Some(a), Some(m)) => mask_run(text, f, m, if dim > a { dim - 1 } else { dim }, visits),
            _ => 1,
        },
        "arith.andi" | "arith.ori" => {
            let (Some(a), Some(b)) = (operand(0), operand(1)) else {
                return 1;
            };
            mask_run(text, f, a, dim, visits).min(mask_run(text, f, b, dim, visits))
        }
        "arith.cmpi" => {
            let (Some(a), Some(b)) = (operand(0), operand(1)) else {
                return 1;
            };
            let steady = |v: &str| contiguity::varies_along(text, f, v, dim) == Some(false);
            if steady(a) && steady(b) {
                return u64::MAX;
            }
            let along = |v: &str| contiguity::unit_step_dim(text, f, v) == Some(dim);
            let bound = if along(a) {
                b
            } else if along(b) {
                a
            } else {
                return 1;
            };
            let offsets = if bound == b { a } else { b };
            divisibility(text, f, bound).min(contiguity::unit_run(text, f, offsets))
        }
        _ => 1,
    }
}

/// What is known to divide a uniform integer, as Triton's axis analysis
/// derives it: a constant's power-of-two factor, an argument's
/// `tt.divisibility`, a sum's or difference's common factor, a product's
/// factors together, a loop counter's start and step; 1 otherwise.
pub(super) fn divisibility(text: &str, f: &Function, value: &str) -> u64 {
    divisibility_within(text, f, value, &mut 64)
}

fn divisibility_within(text: &str, f: &Function, value: &str, visits: &mut u32) -> u64 {
    if !spend(visits) {
        return 1;
    }
    let Some(producer) = f.producer(value) else {
        // A loop's counter steps from its start by its step.
        if let Some(block) = f
            .blocks
            .iter()
            .find(|b| b.arguments.first().is_some_and(|a| a == value))
            && f.ops[block.owner].name == "scf.for"
        {
            let owner = &f.ops[block.owner];
            let (Some(start), Some(step)) = (owner.operands.first(), owner.operands.get(2)) else {
                return 1;
            };
            let (start, step) = (start.clone(), step.clone());
            return gcd(
                divisibility_within(text, f, &start, visits),
                divisibility_within(text, f, &step, visits),
            );
        }
        return match argument_divisibility(text, f, value) {
            ArgumentAlignment::Divisible(d) => d.max(1),
            ArgumentAlignment::NotAnArgument => 1,
        };
    };
    let operands: Vec<String> = producer.operands.clone();
    let mut of = |i: usize| match operands.get(i) {
        Some(v) => divisibility_within(text, f, v, visits),
        None => 1,
    };
    match producer.name.as_str() {
        "tt.splat" | "tt.broadcast" | "arith.extsi" | "arith.extui" | "arith.index_cast" => of(0),
        "arith.addi" | "arith.subi" => {
            let a = of(0);
            gcd(a, of(1))
        }
        "arith.muli" => of(0).saturating_mul(of(1)),
        "arith.constant" => {
            let line = text
                .get(producer.span.start..producer.span.end)
                .unwrap_or("");
            let number = line
                .split_once("dense<")
                .map(|(_, r)| r)
                .or_else(|| line.split_once("arith.constant ").map(|(_, r)| r))
                .and_then(|r| r.split(|c: char| !c.is_ascii_digit() && c != '-').next())
                .and_then(|n| n.parse::<i64>().ok());
            match number {
                Some(0) => u64::MAX,
                Some(n) => 1u64 << n.unsigned_abs().trailing_zeros().min(62),
                None => 1,
            }
        }
        _ => 1,
    }
}

/// The greatest common power-of-two factor (divisibilities are powers of
/// two or "anything", `u64::MAX`).
fn gcd(a: u64, b: u64) -> u64 {
    match (a, b) {
        (u64::MAX, x) | (x, u64::MAX) => x,
        (a, b) => {
            let (mut a, mut b) = (a, b);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a.max(1)
        }
    }
}

/// Where every use of `value` is a `tt.store` of it that writes global
/// memory two or more elements at a time ([`in_vectors`]): the fewest
/// elements one of them writes at a time (a shared-memory load within it
/// reads words); 0 otherwise.
fn stored_in_words(
    db: &dyn salsa::Database,
    file: SourceFile,
    text: &str,
    f: &Function,
    value: &str,
) -> u32 {
    let uses: Vec<&mlir::Op> = f.uses(value).collect();
    uses.iter()
        .map(|o| {
            let stores_it = (o.name == "tt.store"
                || atomic_add_words(text, o) == Some(AtomicWords::Pairs))
                && o.operands.get(1).is_some_and(|v| v == value)
                && o.operands.first().is_some_and(|p| p != value);
            match scratch::parse_type(&o.types) {
                Some(pointers) if stores_it => in_vectors(db, file, text, f, o, &pointers),
                _ => 0,
            }
        })
        .min()
        .unwrap_or(0)
}

/// Whether `value` is the result of a `tt.gather` within warps
/// (`efficient_layout`): Triton gathers with 32-bit `shfl.sync`, so each
/// gathered half comes truncated from a 32-bit register, and LLVM packs
/// two of them into a word with `prmt`.
fn shuffled(f: &Function, value: &str) -> bool {
    f.producer(value).is_some_and(gathers_within_warps)
}

/// How the 16-bit floats of a `tt.atomic_rmw fadd` live in 32-bit words
/// on the dump's target ([`HalfAtomicAdd`]); `None` for any other op, and
/// where they do not (16-bit registers; a bf16 compare-and-swap loop,
/// whose old values LLVM extracts to halves in each loop's exit block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomicWords {
    /// f16 two to a word (`atom.add.noftz.f16x2`), where the vector of
    /// the atomic's pointers allows: in and out.
    Pairs,
}

fn atomic_add_words(text: &str, op: &mlir::Op) -> Option<AtomicWords> {
    let adds = op.name == "tt.atomic_rmw"
        && text
            .get(op.span.start..op.span.end)
            .is_some_and(|line| line.contains("tt.atomic_rmw fadd,"));
    if !adds {
        return None;
    }
    let target = nvidia_target(text)?;
    let element = scratch::parse_types(&op.types).get(1)?.element.clone();
    match (
        layout_algebra::machine::half_atomic_add(&target),
        element.as_str(),
    ) {
        (HalfAtomicAdd::PackedF16, "f16") => Some(AtomicWords::Pairs),
        _ => None,
    }
}

fn is_constant(f: &Function, value: &str) -> bool {
    f.producer(value)
        .is_some_and(|o| o.name == "arith.constant")
}

/// Takes one visit from a walk's budget; false once it is spent (a walk
/// over shared operands ends instead of growing without bound).
pub(super) fn spend(visits: &mut u32) -> bool {
    if *visits == 0 {
        return false;
    }
    *visits -= 1;
    true
}
