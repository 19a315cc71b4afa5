//! `solve` with CuTe tiled copies as the accesses (`family = cute`): the
//! best `Sw<B,M,S> o base` for a write copy and a read copy, every member of
//! the family scored with the copies' own instructions
//! ([`TiledCopy::wavefronts`]), answered ready to paste.

use std::time::Instant;

use layout_algebra::bank::{BankTarget, Direction, Instruction};
use layout_algebra::cute::Layout;
use layout_algebra::cute::atom::CopyInstruction;
use layout_algebra::cute::copy_cost::{CopyWavefronts, shared_side};
use layout_algebra::cute::tiled::{Side, TiledCopy};
use layout_algebra::linear::DimName;
use layout_algebra::machine::Vendor;
use layout_algebra::triton::{Encoding, SharedLinear};
use layout_solve::families::{Notation, cute_members_over, shared_linear_notation};
use layout_solve::{AccessReport, Family, InstructionPolicy, Status};
use layout_syntax::Span;

use crate::context::Ctx;
use crate::context::R;
use crate::diagnostic::Code;
use crate::value::{SolveKind, SolveOutcome, SolveTime, SwizzleOutcome, TensorLayout, Value};

/// One tiled copy of the block: `write = tiled_copy(...)` or `read = ...`.
pub(super) struct CopyAccess {
    pub direction: Direction,
    pub copy: TiledCopy,
    pub span: Span,
}

/// Triton's element type for a CuTe value type, for the answer's tensor type.
fn triton_element(value_type: &str) -> &'static str {
    match value_type {
        "half_t" => "f16",
        "bfloat16_t" => "bf16",
        "float" | "tfloat32_t" => "f32",
        "double" => "f64",
        "int16_t" | "uint16_t" => "i16",
        "int32_t" | "uint32_t" => "i32",
        "int64_t" | "uint64_t" => "i64",
        "float_e4m3_t" => "f8E4M3FN",
        "float_e5m2_t" => "f8E5M2",
        _ => "i8",
    }
}

/// The shared-memory instruction a copy is counted as, and its own opcode.
fn instruction_of(copy: &TiledCopy, direction: Direction) -> (Instruction, String) {
    let bits = copy.atom.value_bits;
    match copy.atom.instruction {
        CopyInstruction::Ldmatrix {
            matrices,
            transpose,
        }
        | CopyInstruction::Stmatrix {
            matrices,
            transpose,
        } => {
            let i = Instruction::Matrix {
                count: matrices,
                trans: transpose,
            };
            (i, i.mnemonic(direction, Vendor::Nvidia, bits).to_string())
        }
        CopyInstruction::CpAsync {
            bits: b,
            cache_global,
        } => (
            Instruction::LdSt { bits: b },
            format!(
                "cp.async.{}.shared.global [{} B]",
                if cache_global { "cg" } else { "ca" },
                b / 8
            ),
        ),
        CopyInstruction::Universal { bits: b } => {
            let i = Instruction::LdSt { bits: b };
            (i, i.mnemonic(direction, Vendor::Nvidia, bits).to_string())
        }
        CopyInstruction::AutoVectorizing { .. } => {
            let i = Instruction::LdSt { bits };
            (i, i.mnemonic(direction, Vendor::Nvidia, bits).to_string())
        }
    }
}

/// The shared side of a copy: its instruction's, or the access's direction.
fn side(c: &CopyAccess) -> Side {
    shared_side(c.copy.atom.instruction).unwrap_or(if c.direction == Direction::Store {
        Side::Destination
    } else {
        Side::Source
    })
}

pub(super) struct Request<'a> {
    pub copies: &'a [CopyAccess],
    pub family: Option<Family>,
    pub base: Option<(&'a Layout, Span)>,
    pub target: &'a BankTarget,
    pub machine: &'a str,
}

pub(super) fn solve(ctx: &mut Ctx, request: Request, whole: Span) -> R<Value> {
    let started = Instant::now();
    let copies = request.copies;
    if let Some(f) = request.family
        && f != Family::Cute
    {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            format!(
                "tiled copies are solved in the cute family (a CuTe swizzle over the copies' shared tile), not `family = {}`",
                f.name()
            ),
        ));
    }
    let Some((base, base_span)) = request.base else {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            "a solve over tiled copies needs the shared tile: `base = cute (128,64):(64,1)` (a CuTe layout of the copies' value type)",
        ));
    };
    let first = &copies[0];
    for c in copies {
        if c.copy.atom.value_bits != first.copy.atom.value_bits {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                c.span,
                format!(
                    "every copy must move the same value type: this one moves {}, the first {}",
                    c.copy.atom.value_type, first.copy.atom.value_type
                ),
            ));
        }
    }
    if base.rank() != 2 {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            base_span,
            format!("the base {base} is not a rank-2 (rows, cols) tile"),
        ));
    }
    // Every member of the family is scored element by element.
    const MAX_TILE: i64 = 1 << 18;
    if base.size() > MAX_TILE {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            base_span,
            format!(
                "the tile {base} has {} elements; a solve over tiled copies scores every swizzle element by element, up to 2^18",
                base.size()
            ),
        ));
    }
    let (rows, cols) = (base.mode(0).size() as u64, base.mode(1).size() as u64);
    let dims = vec![
        (DimName::from("dim0".to_string()), rows),
        (DimName::from("dim1".to_string()), cols),
    ];
    let members = match cute_members_over(base, &dims) {
        Ok(m) => m,
        Err(e) => return Err(ctx.cx.error(Code::InvalidSolve, base_span, e)),
    };
    // Each copy's offsets in the unswizzled tile, once.
    let mut offsets = Vec::with_capacity(copies.len());
    for c in copies {
        match c.copy.shared_offsets(base, side(c)) {
            Ok(o) if o.pairs() as i64 > MAX_TILE => {
                return Err(ctx.cx.error(
                    Code::InvalidSolve,
                    c.span,
                    format!(
                        "this copy partitions the tile {base} into {} (thread, value) pairs; a solve scores every swizzle pair by pair, up to 2^18",
                        o.pairs()
                    ),
                ));
            }
            Ok(o) => offsets.push(o),
            Err(e) => {
                return Err(ctx.cx.error(
                    Code::InvalidSolve,
                    c.span,
                    format!("this copy cannot partition the tile {base}: {e}"),
                ));
            }
        }
    }
    // Score every member; keep the cheapest (fewest wavefronts, then the
    // fewest swizzle bits).
    let mut best: Option<((u64, u32), usize, Vec<CopyWavefronts>)> = None;
    let mut refusal = None;
    let mut scored = 0;
    for (i, m) in members.iter().enumerate() {
        let Notation::Cute { swizzle, .. } = &m.notation else {
            continue;
        };
        let costs: Result<Vec<CopyWavefronts>, _> = offsets
            .iter()
            .map(|o| o.wavefronts(*swizzle, 0, request.target))
            .collect();
        match costs {
            Ok(costs) => {
                scored += 1;
                let key = (
                    costs.iter().map(|c| c.wavefronts).sum::<u64>(),
                    swizzle.bits,
                );
                if best.as_ref().is_none_or(|b| key < b.0) {
                    best = Some((key, i, costs));
                }
            }
            Err(e) => {
                refusal.get_or_insert(e.to_string());
            }
        }
    }
    let Some((_, index, costs)) = best else {
        let why = refusal.unwrap_or_else(|| "the family is empty".into());
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            format!("no member of the cute family over {base} can be used by these copies: {why}"),
        ));
    };
    let member = &members[index];
    let element = triton_element(&first.copy.atom.value_type);
    let answer = member
        .candidate
        .map
        .to_shared_layout(&dims)
        .ok()
        .flatten()
        .map(|l| {
            let offset = l
                .bases()
                .into_iter()
                .find(|(n, _)| n == "offset")
                .map(|(_, b)| b)
                .unwrap_or_default();
            let encoding = Encoding::SharedLinear(SharedLinear {
                offset,
                block: Vec::new(),
                alignment: 16,
            });
            let shape = vec![rows as u32, cols as u32];
            let layout = encoding
                .to_linear_layout(&shape)
                .unwrap_or_else(|_| l.clone());
            TensorLayout {
                shape,
                element_type: element.to_string(),
                element_bits: Some(first.copy.atom.value_bits),
                encoding,
                layout,
            }
        });
    let mut notations = vec![("cute".to_string(), member.notation.text())];
    if let Some(text) = shared_linear_notation(&member.candidate.map, &dims) {
        notations.push(("linear".to_string(), text));
    }
    let mut reports = Vec::new();
    let (mut write, mut read, mut write_ideal, mut read_ideal) = (0, 0, 0, 0);
    let (mut write_conflicts, mut read_conflicts) = (0, 0);
    for (c, cost) in copies.iter().zip(&costs) {
        let (instruction, opcode) = instruction_of(&c.copy, c.direction);
        let conflicts = cost.wavefronts.saturating_sub(cost.ideal) / cost.ideal.max(1);
        if c.direction == Direction::Store {
            write += cost.wavefronts;
            write_ideal += cost.ideal;
            write_conflicts = write_conflicts.max(conflicts);
        } else {
            read += cost.wavefronts;
            read_ideal += cost.ideal;
            read_conflicts = read_conflicts.max(conflicts);
        }
        reports.push(AccessReport {
            label: format!(
                "{} {} ({})",
                if c.direction == Direction::Store {
                    "write"
                } else {
                    "read"
                },
                c.copy.atom.op,
                c.copy.atom.value_type
            ),
            direction: c.direction,
            instruction: instruction.mnemonic(c.direction, Vendor::Nvidia, c.copy.atom.value_bits),
            opcode,
            instructions: cost.instructions,
            mix: Vec::new(),
            wavefronts: cost.wavefronts,
            ideal: cost.ideal,
            conflicts,
        });
    }
    let at_bound = write == write_ideal && read == read_ideal;
    let why = format!(
        "all {scored} usable members of the cute family over {base} were scored with the copies' own instructions{}",
        if at_bound {
            "; every phase takes one wavefront, so no shared layout does better"
        } else {
            ""
        }
    );
    let outcome = SwizzleOutcome {
        family: Family::Cute,
        instructions: InstructionPolicy::Best,
        machine: request.machine.to_string(),
        answer,
        notations,
        accesses: reports,
        read_wavefronts: read,
        write_wavefronts: write,
        read_conflicts,
        write_conflicts,
        scratch_bytes: rows * cols * first.copy.atom.value_bits as u64 / 8,
        lower_bound: Some((write_ideal, read_ideal)),
        baseline: None,
    };
    Ok(Value::Solve(Box::new(SolveOutcome {
        kind: SolveKind::Swizzle(Box::new(outcome)),
        status: Status::Optimal,
        why,
        solve_time: SolveTime(started.elapsed().as_micros() as u64),
    })))
}
