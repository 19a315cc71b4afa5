//! Registers of a conversion's result that nothing reads: LLVM drops
//! their loads.
//!
//! A `ttg.convert_layout` whose result only goes, through `tt.trans` and
//! `tt.reshape` (which relabel a thread's registers, moving nothing), to a
//! `tt.split` of which one half is unused: the split takes the last dim,
//! held by one register bit, and the registers of the unused half are
//! dead. The compiled kernels load only the live half (the stores stay).

use layout_algebra::LinearLayout;

use super::mlir::{self, Function};
use super::{agreed, encoding_named, is_ttg, scratch};
use crate::SourceFile;

/// A conversion's result registers nothing reads: one half of those that
/// register bit `bit` tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeadRegisters {
    pub bit: usize,
}

impl DeadRegisters {
    /// `layout` as the live registers see it: the dead bit's basis zero,
    /// so the two halves are one, counted once (the live half's addresses
    /// differ from the other's by one constant, which keeps its vectors,
    /// banks and pairs).
    pub fn live(self, layout: &LinearLayout) -> Option<LinearLayout> {
        let mut bases = layout.bases();
        let (_, registers) = bases
            .iter_mut()
            .find(|(name, _)| name.as_str() == "register")?;
        let basis = registers.get_mut(self.bit)?;
        basis.iter_mut().for_each(|c| *c = 0);
        LinearLayout::from_unpacked(bases, layout.out_dims()).ok()
    }
}

/// The `ttg.convert_layout`s (result, operand) of a dump whose result has
/// registers nothing reads, keyed by names as `half_word_conversions` is.
#[salsa::tracked(returns(ref))]
pub fn unused_conversion_registers(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Vec<(String, String, DeadRegisters)> {
    let mut found = Vec::new();
    for f in super::file_functions(db, file) {
        for op in f.ops.iter().filter(|o| is_ttg(o, "convert_layout")) {
            let (Some(result), Some(operand)) = (op.results.first(), op.operands.first()) else {
                continue;
            };
            let dead = split_half_unused(db, file, f, result);
            found.push(((result.clone(), operand.clone()), dead));
        }
    }
    agreed(&found)
        .into_iter()
        .map(|((r, o), d)| (r, o, d))
        .collect()
}

/// Where `value` only goes through `tt.trans` / `tt.reshape` to a
/// `tt.split` with one result unused: the register bit of the split's
/// last dim, and which half of it is dead.
fn split_half_unused(
    db: &dyn salsa::Database,
    file: SourceFile,
    f: &Function,
    value: &str,
) -> Option<DeadRegisters> {
    let mut value = value.to_string();
    // A chain of views is short; the bound keeps a malformed dump finite.
    for _ in 0..16 {
        let uses: Vec<&mlir::Op> = f
            .ops
            .iter()
            .filter(|o| o.operands.contains(&value))
            .collect();
        let [user] = uses.as_slice() else {
            return None;
        };
        match user.name.as_str() {
            "tt.trans" | "tt.reshape" => value = user.results.first()?.clone(),
            "tt.split" => {
                let unused: Vec<usize> = (0..user.results.len())
                    .filter(|&h| !f.is_used(&user.results[h]))
                    .collect();
                let ([_], 2) = (unused.as_slice(), user.results.len()) else {
                    return None;
                };
                let t = scratch::parse_types(user.operand_types())
                    .into_iter()
                    .next()?;
                let layout = encoding_named(db, file, t.encoding.as_deref()?)?
                    .to_linear_layout(&t.shape)
                    .ok()?;
                let last = t.shape.len().checked_sub(1)?;
                let along: Vec<usize> = (0..layout.in_dim_size_log2("register") as usize)
                    .filter(|&i| {
                        layout
                            .basis("register", i)
                            .is_ok_and(|b| b.get(last).is_some_and(|&c| c != 0))
                    })
                    .collect();
                let [bit] = along.as_slice() else {
                    return None;
                };
                return Some(DeadRegisters { bit: *bit });
            }
            _ => return None,
        }
    }
    None
}
