//! Along which dim a tensor of pointers or offsets steps one element at a
//! time: the part of Triton's axis analysis (`AxisInfo`'s contiguity) that
//! decides whether a global access can move vectors. A blocked layout
//! says which registers a thread holds, not how memory is laid out: a
//! Gluon kernel may hold a vector along a dim whose addresses are strided,
//! and then each element is loaded on its own.

use std::collections::HashMap;

use super::mlir::{Function, Op};

/// How a tensor's values step along its dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Steps {
    /// The same value everywhere (a constant, a splat scalar).
    Uniform,
    /// One more per element along this dim, the same along the others.
    Unit(usize),
    /// Varies along these dims (a bit each) in steps other than one.
    Strided(u64),
    /// Not known.
    Unknown,
}

impl Steps {
    fn varying(self) -> Option<u64> {
        match self {
            Steps::Uniform => Some(0),
            Steps::Unit(d) => Some(1 << d),
            Steps::Strided(m) => Some(m),
            Steps::Unknown => None,
        }
    }

    /// `a + b`.
    fn sum(a: Steps, b: Steps) -> Steps {
        match (a, b) {
            (Steps::Unknown, _) | (_, Steps::Unknown) => Steps::Unknown,
            (Steps::Unit(d), other) | (other, Steps::Unit(d)) => {
                let m = other.varying().unwrap_or(u64::MAX);
                if m & (1 << d) == 0 {
                    Steps::Unit(d)
                } else {
                    Steps::Strided(m | (1 << d))
                }
            }
            (x, y) => Steps::strided(x.varying().unwrap_or(0) | y.varying().unwrap_or(0)),
        }
    }

    /// `a * b` (or any other mix that keeps no unit step).
    fn mixed(a: Steps, b: Steps) -> Steps {
        match (a.varying(), b.varying()) {
            (Some(x), Some(y)) => Steps::strided(x | y),
            _ => Steps::Unknown,
        }
    }

    fn strided(m: u64) -> Steps {
        if m == 0 {
            Steps::Uniform
        } else {
            Steps::Strided(m)
        }
    }
}

/// The dim along which `value` (a tensor of pointers or integers) steps
/// by one element, where the ops that made it say so. `text` is the dump
/// (the function's line declares its arguments' types).
pub(super) fn unit_step_dim(text: &str, f: &Function, value: &str) -> Option<usize> {
    let mut walk = Walk {
        text,
        f,
        known: HashMap::new(),
    };
    match walk.steps(value, 0) {
        Steps::Unit(d) => Some(d),
        _ => None,
    }
}

/// How many elements in a row `value` keeps the unit steps
/// [`unit_step_dim`] finds, where a remainder cuts them into runs: the
/// divisor's divisibility (Triton's contiguity of `a % n`), the shortest
/// along the way; `u64::MAX` where nothing cuts them.
pub(super) fn unit_run(text: &str, f: &Function, value: &str) -> u64 {
    unit_run_within(text, f, value, 64)
}

fn unit_run_within(text: &str, f: &Function, value: &str, depth: u32) -> u64 {
    let Some(producer) = f.producer(value).filter(|_| depth > 0) else {
        return u64::MAX;
    };
    let run = |i: usize| {
        producer
            .operands
            .get(i)
            .map_or(u64::MAX, |v| unit_run_within(text, f, v, depth - 1))
    };
    match producer.name.as_str() {
        "arith.remsi" | "arith.remui" => run(0).min(
            producer
                .operands
                .get(1)
                .map_or(1, |n| super::half_words::divisibility(text, f, n)),
        ),
        "arith.addi" | "arith.subi" | "tt.addptr" => run(0).min(run(1)),
        "tt.broadcast"
        | "tt.expand_dims"
        | "ttg.convert_layout"
        | "triton_gpu.convert_layout"
        | "arith.extsi"
        | "arith.extui"
        | "arith.trunci"
        | "arith.index_cast" => run(0),
        _ => u64::MAX,
    }
}

/// Whether `value` changes along `dim`: `Some(false)` where the ops that
/// made it keep it the same along the dim, `None` where they do not say.
pub(super) fn varies_along(text: &str, f: &Function, value: &str, dim: usize) -> Option<bool> {
    let mut walk = Walk {
        text,
        f,
        known: HashMap::new(),
    };
    walk.steps(value, 0)
        .varying()
        .map(|m| dim < 64 && m & (1 << dim) != 0)
}

/// The walk over a value's makers, each value's answer kept (a value used
/// twice is asked once, so shared subexpressions cost no more).
struct Walk<'a> {
    text: &'a str,
    f: &'a Function,
    known: HashMap<String, Steps>,
}

impl Walk<'_> {
    fn steps(&mut self, value: &str, depth: usize) -> Steps {
        if let Some(&s) = self.known.get(value) {
            return s;
        }
        let s = if depth > 64 {
            Steps::Unknown
        } else {
            self.made(value, depth)
        };
        self.known.insert(value.to_string(), s);
        s
    }

    fn made(&mut self, value: &str, depth: usize) -> Steps {
        let f = self.f;
        let Some(producer) = f.producer(value) else {
            return self.block_argument(value, depth);
        };
        if producer.name == "scf.if" {
            return self.branches_joined(producer, value, depth);
        }
        let text = self.text;
        let mut operand = |i: usize| -> Steps {
            match producer.operands.get(i) {
                Some(v) => self.steps(v, depth + 1),
                None => Steps::Unknown,
            }
        };
        match producer.name.as_str() {
            "arith.constant" | "tt.splat" | "tt.get_program_id" | "tt.get_num_programs" => {
                Steps::Uniform
            }
            "tt.make_range" => Steps::Unit(0),
            "tt.expand_dims" => match (operand(0), axis(producer)) {
                (s, Some(axis)) if axis < 63 => {
                    let shift = |d: usize| if d >= axis { d + 1 } else { d };
                    match s {
                        Steps::Unit(d) if d < 63 => Steps::Unit(shift(d)),
                        Steps::Strided(m) => Steps::Strided(
                            (0..63)
                                .filter(|&d| m & (1 << d) != 0)
                                .map(|d| 1u64 << shift(d))
                                .fold(0, |a, b| a | b),
                        ),
                        Steps::Uniform => Steps::Uniform,
                        _ => Steps::Unknown,
                    }
                }
                _ => Steps::Unknown,
            },
            "tt.reshape" => match (operand(0), unit_reshape(producer)) {
                (Steps::Uniform, _) => Steps::Uniform,
                (Steps::Unit(d), Some(to)) => match to.get(d) {
                    Some(&r) if r < 63 => Steps::Unit(r),
                    _ => Steps::Unknown,
                },
                (Steps::Strided(m), Some(to)) => {
                    let mut mask = 0;
                    for (d, &r) in to.iter().enumerate().take(63) {
                        if m & (1 << d) != 0 && r < 63 {
                            mask |= 1 << r;
                        }
                    }
                    Steps::Strided(mask)
                }
                _ => Steps::Unknown,
            },
            "tt.broadcast"
            | "ttg.convert_layout"
            | "triton_gpu.convert_layout"
            | "arith.extsi"
            | "arith.extui"
            | "arith.trunci"
            | "arith.index_cast" => operand(0),
            "arith.addi" | "tt.addptr" => {
                let (a, b) = (operand(0), operand(1));
                Steps::sum(a, b)
            }
            "arith.subi" => match (operand(0), operand(1)) {
                (Steps::Unit(d), other) if other.varying().is_some_and(|m| m & (1 << d) == 0) => {
                    Steps::Unit(d)
                }
                (a, b) => Steps::mixed(a, b),
            },
            // `range % n` keeps its unit steps in runs as long as what
            // divides `n` ([`unit_run`] says how long).
            "arith.remsi" | "arith.remui"
                if producer
                    .operands
                    .get(1)
                    .is_some_and(|n| super::half_words::divisibility(text, f, n) >= 2) =>
            {
                match operand(0) {
                    Steps::Unit(d) => Steps::Unit(d),
                    a => Steps::mixed(a, operand(1)),
                }
            }
            "arith.muli" | "arith.shli" | "arith.divsi" | "arith.divui" | "arith.remsi"
            | "arith.remui" | "arith.andi" | "arith.ori" | "arith.xori" | "arith.maxsi"
            | "arith.minsi" => {
                let (a, b) = (operand(0), operand(1));
                Steps::mixed(a, b)
            }
            _ => Steps::Unknown,
        }
    }

    /// A function's scalar argument is uniform; a loop's induction variable
    /// too; a loop's iteration argument steps as its initial value does
    /// when each iteration adds something uniform to it.
    fn block_argument(&mut self, value: &str, depth: usize) -> Steps {
        let f = self.f;
        if f.blocks
            .first()
            .is_some_and(|b| b.arguments.iter().any(|a| a == value))
        {
            return if self.tensor_argument(value) {
                Steps::Unknown
            } else {
                Steps::Uniform
            };
        }
        for block in &f.blocks {
            let Some(k) = block.arguments.iter().position(|a| a == value) else {
                continue;
            };
            let owner: &Op = &f.ops[block.owner];
            if owner.name != "scf.for" {
                return Steps::Unknown;
            }
            if k == 0 {
                return Steps::Uniform;
            }
            // `scf.for %iv = %lb to %ub step %s iter_args(%a = %x, ...)`:
            // the block's arguments are `%iv, %a, ...`, its operands `%lb,
            // %ub, %s, %x, ...`, and its `scf.yield` gives `%a`'s next value.
            let next = block
                .ops
                .last()
                .map(|&y| &f.ops[y])
                .filter(|y| y.name == "scf.yield")
                .and_then(|y| y.operands.get(k - 1))
                .cloned();
            let advanced = next
                .as_deref()
                .and_then(|next| f.producer(next))
                .filter(|step| matches!(step.name.as_str(), "tt.addptr" | "arith.addi"))
                .and_then(|step| {
                    let other = match step.operands.as_slice() {
                        [a, b] if a == value => b,
                        [a, b] if b == value => a,
                        _ => return None,
                    };
                    Some(other.clone())
                });
            let Some(step) = advanced else {
                return match (owner.operands.get(2 + k).cloned(), next) {
                    (Some(init), Some(next)) => self.joined(value, &init, &next, depth),
                    _ => Steps::Unknown,
                };
            };
            if self.steps(&step, depth + 1) != Steps::Uniform {
                return Steps::Unknown;
            }
            return match owner.operands.get(2 + k) {
                Some(init) => {
                    let init = init.clone();
                    self.steps(&init, depth + 1)
                }
                None => Steps::Unknown,
            };
        }
        Steps::Unknown
    }

    /// A loop-carried `value` that enters as `init` and comes back as
    /// `next` (a tile's rows a flattened persistent loop recomputes): as
    /// Triton's axis analysis joins the two, it steps as both do where
    /// they agree. `next` is walked assuming `value` steps as `init` does;
    /// where they disagree, what that assumption made is forgotten.
    fn joined(&mut self, value: &str, init: &str, next: &str, depth: usize) -> Steps {
        let entering = self.steps(init, depth + 1);
        if entering == Steps::Unknown {
            return Steps::Unknown;
        }
        let before = self.known.clone();
        self.known.insert(value.to_string(), entering);
        if self.steps(next, depth + 1) == entering {
            entering
        } else {
            self.known = before;
            Steps::Unknown
        }
    }

    /// Result `value` of an `scf.if`: as both branches' yields step, where
    /// they agree (Triton's axis analysis joins them).
    fn branches_joined(&mut self, op: &Op, value: &str, depth: usize) -> Steps {
        let f = self.f;
        let Some(k) = op.results.iter().position(|r| r == value) else {
            return Steps::Unknown;
        };
        let yields: Vec<String> = op
            .regions
            .iter()
            .filter_map(|r| f.region_yield(r))
            .filter_map(|y| y.operands.get(k).cloned())
            .collect();
        if yields.len() != 2 {
            return Steps::Unknown;
        }
        let first = self.steps(&yields[0], depth + 1);
        if self.steps(&yields[1], depth + 1) == first {
            first
        } else {
            Steps::Unknown
        }
    }

    /// Whether the function's line declares `value` a tensor.
    fn tensor_argument(&self, value: &str) -> bool {
        let header = self
            .text
            .get(self.f.span.start..self.f.span.end)
            .unwrap_or("");
        header
            .find(&format!("{value}:"))
            .map(|at| &header[at + value.len() + 1..])
            .is_none_or(|rest| rest.trim_start().starts_with("tensor<"))
    }
}

/// A `tt.reshape` that only adds or drops dims of one element (a range
/// `64` to `1x64`, as Triton's descriptor lowering writes it): for each
/// operand dim, the result dim it becomes (a dim of one element maps to
/// the next result dim of one element, or past the end). `None` for any
/// other reshape.
pub(super) fn unit_reshape(op: &Op) -> Option<Vec<usize>> {
    let from = super::scratch::parse_type(op.operand_types())?.shape;
    let to = super::scratch::parse_type(op.result_types())?.shape;
    let wide = |s: &[u32]| s.iter().copied().filter(|&n| n != 1).collect::<Vec<_>>();
    if wide(&from) != wide(&to) {
        return None;
    }
    let mut wide_dims = to
        .iter()
        .enumerate()
        .filter(|(_, n)| **n != 1)
        .map(|(d, _)| d);
    let mut unit_dims = to
        .iter()
        .enumerate()
        .filter(|(_, n)| **n == 1)
        .map(|(d, _)| d);
    Some(
        from.iter()
            .map(|&n| {
                let next = if n == 1 {
                    unit_dims.next()
                } else {
                    wide_dims.next()
                };
                next.unwrap_or(usize::MAX)
            })
            .collect(),
    )
}

/// `{axis = 1 : i32}`.
pub(super) fn axis(op: &Op) -> Option<usize> {
    let at = op.attributes.find("axis = ")? + "axis = ".len();
    op.attributes[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::mlir;

    fn dim_of(body: &str, value: &str) -> Option<usize> {
        let text = format!(
            "module {{\n  tt.func public @k(%p: !tt.ptr<f16>, %n: i32, %t: tensor<64xi32>) {{\n{body}    tt.return\n  }}\n}}\n"
        );
        let f = mlir::functions(&text).into_iter().next().unwrap();
        unit_step_dim(&text, &f, value)
    }

    /// Row-major offsets step by one along the columns; a strided or
    /// transposed index does not; a tensor argument is not known.
    #[test]
    fn offsets_step_by_one_along_the_dim_their_range_runs() {
        let body = "    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n    \
                    %c = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>\n    \
                    %w = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>\n    \
                    %s = arith.constant dense<64> : tensor<64x1xi32>\n    \
                    %m = arith.muli %w, %s : tensor<64x1xi32>\n    \
                    %bm = tt.broadcast %m : tensor<64x1xi32> -> tensor<64x64xi32>\n    \
                    %bc = tt.broadcast %c : tensor<1x64xi32> -> tensor<64x64xi32>\n    \
                    %o = arith.addi %bm, %bc : tensor<64x64xi32>\n    \
                    %pp = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>\n    \
                    %a = tt.addptr %pp, %o : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>\n    \
                    %x = arith.muli %bc, %bm : tensor<64x64xi32>\n    \
                    %y = tt.addptr %t, %r : tensor<64xi32>, tensor<64xi32>\n";
        assert_eq!(dim_of(body, "%a"), Some(1));
        assert_eq!(dim_of(body, "%o"), Some(1));
        assert_eq!(dim_of(body, "%bm"), None);
        assert_eq!(dim_of(body, "%x"), None);
        assert_eq!(dim_of(body, "%y"), None);
    }

    /// A `tt.reshape` that adds a dim of one element moves a range's unit
    /// steps to the dim it lands in (a descriptor's lowering writes its
    /// offsets so); a reshape that regroups elements is not followed.
    /// A flattened persistent loop carries its tile's columns: they step
    /// by one as they enter, as a branch recomputes them, and as the loop
    /// yields them, so Triton joins them into a range; a value the loop
    /// makes otherwise is not one.
    #[test]
    fn loop_carried_and_branch_joined_ranges_keep_their_steps() {
        let body = "    %c0 = arith.constant 0 : i32\n    \
                    %c1 = arith.constant 1 : i32\n    \
                    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n    \
                    %pp = tt.splat %p : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>\n    \
                    %l:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %r, %b = %r) -> (tensor<64xi32>, tensor<64xi32>)  : i32 {\n      \
                    %s = tt.splat %i : i32 -> tensor<64xi32>\n      \
                    %q = arith.addi %s, %r : tensor<64xi32>\n      \
                    %z = arith.cmpi sgt, %i, %c0 : i32\n      \
                    %j = scf.if %z -> (tensor<64xi32>) {\n        \
                    scf.yield %q : tensor<64xi32>\n      \
                    } else {\n        \
                    scf.yield %a : tensor<64xi32>\n      \
                    }\n      \
                    %m = arith.muli %b, %b : tensor<64xi32>\n      \
                    %in_a = tt.addptr %pp, %a : tensor<64x!tt.ptr<f16>>, tensor<64xi32>\n      \
                    %in_b = tt.addptr %pp, %b : tensor<64x!tt.ptr<f16>>, tensor<64xi32>\n      \
                    scf.yield %j, %m : tensor<64xi32>, tensor<64xi32>\n    \
                    }\n";
        assert_eq!(dim_of(body, "%j"), Some(0));
        assert_eq!(dim_of(body, "%in_a"), Some(0));
        assert_eq!(dim_of(body, "%in_b"), None);
    }

    #[test]
    fn a_reshape_of_unit_dims_keeps_the_range_s_steps() {
        let body = "    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n    \
                    %c = tt.reshape %r : tensor<64xi32> -> tensor<1x64xi32>\n    \
                    %w = tt.reshape %r : tensor<64xi32> -> tensor<64x1xi32>\n    \
                    %g = tt.reshape %r : tensor<64xi32> -> tensor<8x8xi32>\n    \
                    %bc = tt.broadcast %c : tensor<1x64xi32> -> tensor<16x64xi32>\n";
        assert_eq!(dim_of(body, "%c"), Some(1));
        assert_eq!(dim_of(body, "%w"), Some(0));
        assert_eq!(dim_of(body, "%bc"), Some(1));
        assert_eq!(dim_of(body, "%g"), None);
    }

    /// `range % n` steps by one in runs of what divides `n` (a constant's
    /// power of two, an argument's `tt.divisibility`), Triton's
    /// contiguity of a remainder; an odd divisor leaves no run to speak of.
    #[test]
    fn a_remainder_keeps_runs_as_long_as_its_divisor_allows() {
        let text = "module {\n  tt.func public @k(%p: !tt.ptr<f16>, %n: i32 {tt.divisibility = 16 : i32}) {\n    \
                    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>\n    \
                    %c64 = arith.constant dense<64> : tensor<512xi32>\n    \
                    %c24 = arith.constant dense<24> : tensor<512xi32>\n    \
                    %c3 = arith.constant dense<3> : tensor<512xi32>\n    \
                    %sn = tt.splat %n : i32 -> tensor<512xi32>\n    \
                    %a = arith.remsi %r, %c64 : tensor<512xi32>\n    \
                    %b = arith.remsi %r, %c24 : tensor<512xi32>\n    \
                    %c = arith.remsi %r, %c3 : tensor<512xi32>\n    \
                    %d = arith.remui %r, %sn : tensor<512xi32>\n    \
                    %pp = tt.splat %p : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>\n    \
                    %e = tt.addptr %pp, %b : tensor<512x!tt.ptr<f16>>, tensor<512xi32>\n    \
                    tt.return\n  }\n}\n";
        let f = mlir::functions(text).into_iter().next().unwrap();
        let runs = |v: &str| (unit_step_dim(text, &f, v), unit_run(text, &f, v));
        assert_eq!(runs("%r"), (Some(0), u64::MAX));
        assert_eq!(runs("%a"), (Some(0), 64));
        assert_eq!(runs("%b"), (Some(0), 8));
        assert_eq!(runs("%e"), (Some(0), 8));
        assert_eq!(runs("%c").0, None);
        assert_eq!(runs("%d"), (Some(0), 16));
    }

    /// Forty sums that each use the one before twice: each value is
    /// walked once, not 2^40 times.
    #[test]
    fn shared_operands_are_walked_once() {
        let mut body = String::from(
            "    %v0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n",
        );
        for i in 1..=40 {
            body += &format!(
                "    %v{i} = arith.addi %v{}, %v{} : tensor<64xi32>\n",
                i - 1,
                i - 1
            );
        }
        assert_eq!(dim_of(&body, "%v40"), None);
    }
}
