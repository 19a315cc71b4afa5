//! Code LLVM removes because its condition folds to a constant.
//!
//! Triton's AMD pipeliner peels a loop into a prologue, a loop that runs
//! `trip - (stages - 1)` times and an epilogue whose stages each run under
//! `scf.if trip >= k`, with `trip = (hi - lo + step - 1) / step`. Where the
//! trip count is a constant though the bounds are not — attention's
//! diagonal block runs from `m * BM` to `(m + 1) * BM` — instcombine folds
//! the difference of the bounds, and with it the epilogue's conditions: a
//! branch whose condition is false leaves no instructions in the compiled
//! kernel. The peeled loop itself stays (its bounds, `lo` and `hi - 2 *
//! step`, compare as signed values that may wrap); a loop whose bounds are
//! both constants and empty goes. Buffers stay: Triton's allocator placed
//! them before LLVM ran.
//!
//! The analysis writes each integer as a sum of multiples of values it
//! does not look through (arguments, program ids, loop counters) plus a
//! constant, so `(m + 1) * 64 - m * 64` is 64 whatever `m` is.

use std::collections::BTreeMap;

use super::mlir::{Function, OpId};

/// An integer as `constant + sum(coefficient * value)`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    terms: BTreeMap<String, i64>,
    constant: i64,
}

impl Affine {
    fn constant(c: i64) -> Affine {
        Affine {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    fn opaque(value: &str) -> Affine {
        Affine {
            terms: BTreeMap::from([(value.to_string(), 1)]),
            constant: 0,
        }
    }

    fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + sign * other`.
    fn plus(mut self, other: &Affine, sign: i64) -> Option<Affine> {
        for (v, c) in &other.terms {
            let sum = self
                .terms
                .get(v)
                .copied()
                .unwrap_or(0)
                .checked_add(c.checked_mul(sign)?)?;
            if sum == 0 {
                self.terms.remove(v);
            } else {
                self.terms.insert(v.clone(), sum);
            }
        }
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        Some(self)
    }

    fn times(mut self, k: i64) -> Option<Affine> {
        if k == 0 {
            return Some(Affine::constant(0));
        }
        for c in self.terms.values_mut() {
            *c = c.checked_mul(k)?;
        }
        self.constant = self.constant.checked_mul(k)?;
        Some(self)
    }
}

/// The ops of `f` that sit in a region LLVM removes: the body of an
/// `scf.for` whose trip count folds to zero or less, the branch of an
/// `scf.if` whose condition folds to the other branch. `text` is the
/// dump's text (the ops' lines).
pub fn removed_ops(f: &Function, text: &str) -> Vec<bool> {
    let mut removed = vec![false; f.ops.len()];
    for (id, op) in f.ops.iter().enumerate() {
        if removed[id] {
            continue;
        }
        let dead_regions: Vec<usize> = match op.name.as_str() {
            "scf.if" => match op.operands.first().and_then(|c| condition(f, text, c)) {
                Some(true) => vec![1],
                Some(false) => vec![0],
                None => vec![],
            },
            "scf.for" => {
                // Bounds that fold to constants (a difference alone does
                // not: the upper bound may wrap).
                let bound = |i: usize| {
                    op.operands
                        .get(i)
                        .and_then(|v| affine(f, text, v, &mut 64).as_constant())
                };
                let same = || {
                    let bound = |i: usize| op.operands.get(i).map(|v| affine(f, text, v, &mut 64));
                    match (bound(0), bound(1)) {
                        (Some(lower), Some(upper)) => upper == lower,
                        _ => false,
                    }
                };
                match (bound(0), bound(1)) {
                    (Some(lower), Some(upper)) if upper <= lower => vec![0],
                    // `i < i`: false whatever the bounds are.
                    _ if same() => vec![0],
                    _ => vec![],
                }
            }
            _ => vec![],
        };
        for region in dead_regions {
            if let Some(blocks) = op.regions.get(region) {
                for &b in blocks {
                    mark(f, b, &mut removed);
                }
            }
        }
    }
    // What only removed code uses goes too, where it has no effect of its
    // own: the peeled epilogue reads each stage's operands from shared
    // memory before the branch that takes them.
    let mut users: std::collections::HashMap<&str, Vec<OpId>> = std::collections::HashMap::new();
    for (id, op) in f.ops.iter().enumerate() {
        for v in &op.operands {
            users.entry(v.as_str()).or_default().push(id);
        }
    }
    // An `arith.select` whose condition folds takes one operand: the other
    // is not used there.
    let untaken: Vec<Option<&str>> = f
        .ops
        .iter()
        .map(|op| untaken_operand(f, text, op))
        .collect();
    loop {
        let mut changed = false;
        for (id, op) in f.ops.iter().enumerate().skip(1) {
            let feeds_only_removed = |op: &super::mlir::Op, removed: &[bool]| {
                !op.results.is_empty()
                    && op.results.iter().all(|r| {
                        users.get(r.as_str()).is_some_and(|u| {
                            !u.is_empty()
                                && u.iter()
                                    .all(|&u| removed[u] || only_untaken(f, &untaken, u, r))
                        })
                    })
            };
            // A branch's yield, where nothing uses what the branch yields.
            let unused_yield = op.name == "scf.yield"
                && op.block.is_some_and(|b| {
                    let owner = &f.ops[f.blocks[b].owner];
                    owner.name == "scf.if" && feeds_only_removed(owner, &removed)
                });
            if !removed[id]
                && (unused_yield || (pure(&op.name) && feeds_only_removed(op, &removed)))
            {
                removed[id] = true;
                changed = true;
            }
        }
        if !changed {
            return removed;
        }
    }
}

/// Whether `mask` (a tensor of `i1`) is a splat of a condition that folds
/// to false: nothing it guards runs.
pub fn masked_off(f: &Function, text: &str, mask: &str) -> bool {
    f.ops
        .iter()
        .skip(1)
        .find(|o| o.results.iter().any(|r| r == mask))
        .filter(|o| o.name == "tt.splat")
        .and_then(|o| o.operands.first())
        .and_then(|c| condition(f, text, c))
        == Some(false)
}

/// The operand an `arith.select` whose condition folds does not take.
fn untaken_operand<'f>(f: &'f Function, text: &str, op: &'f super::mlir::Op) -> Option<&'f str> {
    let c = op.operands.first().filter(|_| op.name == "arith.select")?;
    let taken = condition(f, text, c)?;
    op.operands
        .get(if taken { 2 } else { 1 })
        .map(String::as_str)
}

/// Whether `value` is, at op `user`, only the operand a folded select
/// does not take.
fn only_untaken(f: &Function, untaken: &[Option<&str>], user: OpId, value: &str) -> bool {
    untaken[user] == Some(value) && f.ops[user].operands.iter().filter(|v| *v == value).count() == 1
}

/// Whether every use of `value` in `f` is removed (`removed`, from
/// [`removed_ops`]) or an operand a folded select does not take: LLVM
/// sees nothing use it.
pub fn used_only_by_removed(f: &Function, text: &str, removed: &[bool], value: &str) -> bool {
    let mut any = false;
    for (id, op) in f.ops.iter().enumerate() {
        if !op.operands.iter().any(|v| v == value) {
            continue;
        }
        any = true;
        let untaken = untaken_operand(f, text, op);
        let dead = removed[id]
            || (untaken == Some(value) && op.operands.iter().filter(|v| *v == value).count() == 1);
        if !dead {
            return false;
        }
    }
    any
}

/// Whether LLVM drops `name`'s lowering when nothing uses its results: a
/// read of shared memory, arithmetic, views and register shuffles within a
/// thread (not a conversion, whose stores and barriers stay).
fn pure(name: &str) -> bool {
    name.starts_with("arith.")
        || name.starts_with("math.")
        || matches!(
            name,
            "ttg.local_load"
                | "ttg.memdesc_index"
                | "ttg.memdesc_subslice"
                | "ttg.memdesc_trans"
                | "ttg.memdesc_reshape"
                | "tt.splat"
                | "tt.broadcast"
                | "tt.expand_dims"
                | "tt.addptr"
                | "tt.trans"
                | "tt.reshape"
        )
}

fn mark(f: &Function, block: usize, removed: &mut [bool]) {
    for &id in &f.blocks[block].ops {
        removed[id] = true;
        for region in &f.ops[id].regions {
            for &b in region {
                mark(f, b, removed);
            }
        }
    }
}

fn line<'t>(f: &Function, text: &'t str, id: OpId) -> &'t str {
    let span = f.ops[id].span;
    text.get(span.start..span.end).unwrap_or("")
}

/// `value` as an affine form, looking through integer constants, sums,
/// differences, products and quotients by constants, within a budget of
/// visits.
fn affine(f: &Function, text: &str, value: &str, visits: &mut u32) -> Affine {
    let opaque = || Affine::opaque(value);
    if *visits == 0 {
        return opaque();
    }
    *visits -= 1;
    let Some(id) = f
        .ops
        .iter()
        .skip(1)
        .position(|o| o.results.iter().any(|r| r == value))
    else {
        return opaque();
    };
    let id = id + 1;
    let op = &f.ops[id];
    let mut of = |i: usize| {
        op.operands
            .get(i)
            .map(|v| affine(f, text, v, visits))
            .unwrap_or_else(opaque)
    };
    let folded = match op.name.as_str() {
        "arith.constant" => integer_constant(line(f, text, id)).map(Affine::constant),
        "arith.addi" => {
            let a = of(0);
            a.plus(&of(1), 1)
        }
        "arith.subi" => {
            let a = of(0);
            a.plus(&of(1), -1)
        }
        "arith.muli" => {
            let (a, b) = (of(0), of(1));
            match (a.as_constant(), b.as_constant()) {
                (_, Some(k)) => a.times(k),
                (Some(k), _) => b.times(k),
                _ => None,
            }
        }
        "arith.divsi" | "arith.divui" | "arith.maxsi" | "arith.minsi" => {
            let (a, b) = (of(0), of(1));
            match (a.as_constant(), b.as_constant(), op.name.as_str()) {
                (Some(x), Some(y), "arith.divsi") if y != 0 => {
                    x.checked_div(y).map(Affine::constant)
                }
                (Some(x), Some(y), "arith.divui") if y > 0 && x >= 0 => {
                    Some(Affine::constant(x / y))
                }
                (Some(x), Some(y), "arith.maxsi") => Some(Affine::constant(x.max(y))),
                (Some(x), Some(y), "arith.minsi") => Some(Affine::constant(x.min(y))),
                _ => None,
            }
        }
        _ => None,
    };
    folded.unwrap_or_else(opaque)
}

/// `%c64_i32 = arith.constant 64 : i32`: the integer (not a tensor's
/// `dense<...>`, nor a float).
pub(super) fn integer_constant(line: &str) -> Option<i64> {
    let (_, rest) = line.split_once("arith.constant ")?;
    let (number, ty) = rest.split_once(':')?;
    let ty = ty.trim();
    let integer = ty.starts_with('i') || ty.starts_with("index");
    integer.then(|| number.trim().parse().ok()).flatten()
}

/// The value of an `i1` condition where it folds: a constant, or an
/// `arith.cmpi` of two integers whose difference is a constant (signed
/// predicates and equality).
fn condition(f: &Function, text: &str, value: &str) -> Option<bool> {
    let id = f
        .ops
        .iter()
        .skip(1)
        .position(|o| o.results.iter().any(|r| r == value))?
        + 1;
    let op = &f.ops[id];
    let line = line(f, text, id);
    match op.name.as_str() {
        "arith.constant" => {
            let (_, rest) = line.split_once("arith.constant ")?;
            match rest.split_whitespace().next()? {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        }
        "arith.cmpi" => {
            let predicate = line.split_once("arith.cmpi ")?.1.split(',').next()?.trim();
            // Both sides must fold (`x < x + 64` does not, as `x + 64` may
            // wrap), or be the same value (`x < x`).
            let form = |i: usize| op.operands.get(i).map(|v| affine(f, text, v, &mut 64));
            let (a, b) = match (form(0)?, form(1)?) {
                (a, b) if a == b => (0, 0),
                (a, b) => (a.as_constant()?, b.as_constant()?),
            };
            match predicate {
                "eq" => Some(a == b),
                "ne" => Some(a != b),
                "slt" => Some(a < b),
                "sle" => Some(a <= b),
                "sgt" => Some(a > b),
                "sge" => Some(a >= b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::mlir;

    /// Attention's diagonal block as Triton 3.9's AMD pipeliner peels it
    /// (two stages): from `m * 64` to `(m + 1) * 64` the trip count is 1,
    /// so the steady-state loop runs no times, the first epilogue stage
    /// runs (`trip >= 1`) and the second does not (`trip >= 2`).
    const PEELED: &str = r#"module {
  tt.func public @k(%m: i32, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c63_i32 = arith.constant 63 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = arith.muli %m, %c64_i32 : i32
    %1 = arith.addi %m, %c1_i32 : i32
    %2 = arith.muli %1, %c64_i32 : i32
    %3 = arith.subi %2, %c64_i32 : i32
    %4 = scf.for %i = %0 to %3 step %c64_i32 iter_args(%a = %c0_i32) -> (i32) {
      %5 = arith.addi %a, %i : i32
      scf.yield %5 : i32
    }
    %6 = arith.subi %2, %0 : i32
    %7 = arith.addi %6, %c63_i32 : i32
    %8 = arith.divsi %7, %c64_i32 : i32
    %9 = arith.cmpi sge, %8, %c1_i32 : i32
    %10 = scf.if %9 -> (i32) {
      %11 = arith.addi %4, %c1_i32 : i32
      scf.yield %11 : i32
    } else {
      scf.yield %4 : i32
    }
    %12 = arith.cmpi sge, %8, %c2_i32 : i32
    %13 = scf.if %12 -> (i32) {
      %14 = arith.addi %10, %c1_i32 : i32
      scf.yield %14 : i32
    } else {
      scf.yield %10 : i32
    }
    %15 = arith.cmpi slt, %m, %n : i32
    %16 = scf.if %15 -> (i32) {
      %17 = arith.addi %13, %c1_i32 : i32
      scf.yield %17 : i32
    } else {
      scf.yield %13 : i32
    }
    tt.return
  }
}
"#;

    #[test]
    fn a_peeled_loop_of_one_trip_keeps_only_what_runs() {
        let f = &mlir::functions(PEELED)[0];
        let removed = removed_ops(f, PEELED);
        let defines = |name: &str| {
            let id = f
                .ops
                .iter()
                .position(|o| o.results.iter().any(|r| r == name))
                .unwrap();
            removed[id]
        };
        // The loop's body runs no times; the first stage runs, its else
        // branch does not; the second stage does not; a condition on an
        // argument stays.
        assert!(defines("%5"));
        assert!(!defines("%11"));
        assert!(defines("%14"));
        assert!(!defines("%17"));
        assert!(!defines("%4") && !defines("%10") && !defines("%13"));
        let kept_yields = f
            .ops
            .iter()
            .enumerate()
            .filter(|(id, o)| o.name == "scf.yield" && !removed[*id])
            .count();
        // The first stage's then, the second's else, and both of the
        // unknown condition's branches.
        assert_eq!(kept_yields, 4);
    }

    #[test]
    fn bounds_that_differ_by_a_constant_may_wrap_and_stay() {
        // From `m * 64` to `(m + 1) * 64 - 128`: empty unless the upper
        // bound wraps, which LLVM cannot rule out, so the body stays; a
        // condition comparing them stays too.
        let text = PEELED.replace(
            "%3 = arith.subi %2, %c64_i32 : i32",
            "%3 = arith.subi %0, %c64_i32 : i32",
        );
        let f = &mlir::functions(&text)[0];
        let removed = removed_ops(f, &text);
        let body = f
            .ops
            .iter()
            .position(|o| o.results.iter().any(|r| r == "%5"))
            .unwrap();
        assert!(!removed[body]);
        assert_eq!(condition(f, &text, "%9"), Some(true));
    }

    #[test]
    fn integers_fold_through_sums_products_and_quotients() {
        let f = &mlir::functions(PEELED)[0];
        assert_eq!(affine(f, PEELED, "%8", &mut 64).as_constant(), Some(1));
        assert_eq!(affine(f, PEELED, "%6", &mut 64).as_constant(), Some(64));
        assert_eq!(affine(f, PEELED, "%0", &mut 64).as_constant(), None);
        assert_eq!(condition(f, PEELED, "%15"), None);
        assert_eq!(integer_constant("%c = arith.constant 1.0 : f32"), None);
        assert_eq!(integer_constant("%c = arith.constant -3 : i64"), Some(-3));
    }
}
