//! Along which dim a tensor of pointers or offsets steps one element at a
//! time: the part of Triton's axis analysis (`AxisInfo`'s contiguity) that
//! decides whether a global access can move vectors. A blocked layout
//! says which registers a thread holds, not how memory is laid out: a
//! Gluon kernel may hold a vector along a dim whose addresses are strided,
//! and then each element is loaded on its own.

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
/// by one element, where the ops that made it say so.
pub(super) fn unit_step_dim(f: &Function, value: &str) -> Option<usize> {
    match steps(f, value, 0) {
        Steps::Unit(d) => Some(d),
        _ => None,
    }
}

fn steps(f: &Function, value: &str, depth: usize) -> Steps {
    if depth > 64 {
        return Steps::Unknown;
    }
    let Some(producer) = f
        .ops
        .iter()
        .skip(1)
        .find(|o| o.results.iter().any(|r| r == value))
    else {
        return block_argument(f, value, depth);
    };
    let operand = |i: usize| -> Steps {
        producer
            .operands
            .get(i)
            .map_or(Steps::Unknown, |v| steps(f, v, depth + 1))
    };
    match producer.name.as_str() {
        "arith.constant" | "tt.splat" | "tt.get_program_id" | "tt.get_num_programs" => {
            Steps::Uniform
        }
        "tt.make_range" => Steps::Unit(0),
        "tt.expand_dims" => match (operand(0), axis(producer)) {
            (s, Some(axis)) => {
                let shift = |d: usize| if d >= axis { d + 1 } else { d };
                match s {
                    Steps::Unit(d) => Steps::Unit(shift(d)),
                    Steps::Strided(m) => Steps::Strided(
                        (0..64)
                            .filter(|&d| m & (1 << d) != 0)
                            .map(|d| 1u64 << shift(d).min(63))
                            .fold(0, |a, b| a | b),
                    ),
                    other => other,
                }
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
        "arith.addi" | "tt.addptr" => Steps::sum(operand(0), operand(1)),
        "arith.subi" => match (operand(0), operand(1)) {
            (Steps::Unit(d), other) if other.varying().is_some_and(|m| m & (1 << d) == 0) => {
                Steps::Unit(d)
            }
            (a, b) => Steps::mixed(a, b),
        },
        "arith.muli" | "arith.shli" | "arith.divsi" | "arith.divui" | "arith.remsi"
        | "arith.remui" | "arith.andi" | "arith.ori" | "arith.xori" | "arith.maxsi"
        | "arith.minsi" => Steps::mixed(operand(0), operand(1)),
        _ => Steps::Unknown,
    }
}

/// A loop's iteration argument steps as its initial value does (the
/// loop adds uniform strides to pointers); the induction variable and a
/// function's scalar arguments are uniform.
fn block_argument(f: &Function, value: &str, depth: usize) -> Steps {
    if f.ops
        .first()
        .is_some_and(|func| func.operands.iter().any(|v| v == value))
        || f.blocks
            .first()
            .is_some_and(|b| b.arguments.iter().any(|a| a == value))
    {
        return Steps::Uniform;
    }
    for block in &f.blocks {
        let Some(k) = block.arguments.iter().position(|a| a == value) else {
            continue;
        };
        let owner: &Op = &f.ops[block.owner];
        if owner.name != "scf.for" {
            return Steps::Unknown;
        }
        // `scf.for %iv = %lb to %ub step %s iter_args(%a = %x, ...)`: the
        // block's arguments are `%iv, %a, ...`; its operands `%lb, %ub,
        // %s, %x, ...`.
        return match k {
            0 => Steps::Uniform,
            k => owner
                .operands
                .get(2 + k)
                .map_or(Steps::Unknown, |init| steps(f, init, depth + 1)),
        };
    }
    Steps::Unknown
}

/// `{axis = 1 : i32}`.
fn axis(op: &Op) -> Option<usize> {
    let at = op.attributes.find("axis = ")? + "axis = ".len();
    op.attributes[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}
