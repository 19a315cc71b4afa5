//! A warp's access to shared memory, from whatever the user has: a Triton
//! tensor type, a linear layout, or CuTe's thread-value layout on one side;
//! a Triton shared encoding, a linear layout of offsets, or a CuTe layout
//! (plain or swizzled) on the other. Both sides become linear layouts onto
//! the same elements, and the bank model counts the access with the
//! instruction the user names or the one Triton would pick on the target.

use layout_algebra::bank::{
    Access, BankTarget, Direction, Instruction, Wavefronts, bank_conflicts, largest_vectorisation,
    padded_wavefronts_by_enumeration,
};
use layout_algebra::convert::{CuteInDims, cute_to_linear, swizzled_to_linear};
use layout_algebra::triton::Encoding;
use layout_algebra::{DimName, LinearLayout};
use layout_syntax::Span;

use crate::builtins::{Bound, shape_text, warn_if_default_target};
use crate::diagnostic::{Code, Family};
use crate::eval::{Ctx, R};
use crate::value::{AccessReport, Value};

const REGISTER: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";
const OFFSET: &str = "offset";
/// The out-dim of CuTe sides: the tile's index in CuTe's (column-major) order.
const INDEX: &str = "index";

/// The distributed side: registers, lanes (warps, blocks) -> elements.
struct Distributed {
    layout: LinearLayout,
    /// Bits per element, when a tensor type says.
    element_bits: Option<u32>,
    shape: Option<Vec<u32>>,
}

/// The shared side: offsets (blocks) -> elements.
struct Shared {
    layout: LinearLayout,
    /// The Triton encoding, for its padding (and to refuse partitions).
    encoding: Option<Encoding>,
    shape: Option<Vec<u32>>,
}

fn distributed(ctx: &mut Ctx, v: &Value, span: Span) -> R<Distributed> {
    match v {
        Value::Tensor(t) if !t.encoding.is_shared() => Ok(Distributed {
            layout: t.layout.clone(),
            element_bits: t.element_bits,
            shape: Some(t.shape.clone()),
        }),
        Value::Tensor(_) => Err(ctx.error(
            Code::TypeMismatch,
            span,
            "the first layout must be distributed (registers, lanes, warps), not a shared one",
        )),
        Value::Linear(l) => {
            let ins: Vec<&str> = l.in_dim_names().map(DimName::as_str).collect();
            if !ins.contains(&LANE)
                || ins
                    .iter()
                    .any(|d| !matches!(*d, "register" | "lane" | "warp" | "block"))
            {
                return Err(ctx.error(
                    Code::DimMismatch,
                    span,
                    format!(
                        "a distributed linear layout has in-dims register, lane (warp, block), but this one has {}",
                        ins.join(", ")
                    ),
                ));
            }
            Ok(Distributed {
                layout: (**l).clone(),
                element_bits: None,
                shape: None,
            })
        }
        Value::Cute(tv) => {
            // CuTe's thread-value layout: (thread, value) -> index.
            if tv.rank() != 2 {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "a CuTe thread-value layout has two modes, (threads, values); {tv} has {}",
                        tv.rank()
                    ),
                ));
            }
            let dims = CuteInDims::PerMode(vec![DimName::from("thread"), DimName::from(REGISTER)]);
            let l = ctx.alg(cute_to_linear(tv, &dims), Family::Bank, span)?;
            let warp_size = ctx.target().threads_per_warp() as u64;
            let threads = l.in_dim_size("thread");
            let registers = l.in_dim_size(REGISTER);
            let (lanes, warps) = (threads.min(warp_size), (threads / warp_size).max(1));
            let l = ctx.alg(
                l.transpose_ins(&[DimName::from(REGISTER), DimName::from("thread")])
                    .and_then(|l| {
                        l.reshape_ins(&[
                            (DimName::from(REGISTER), registers),
                            (DimName::from(LANE), lanes),
                            (DimName::from(WARP), warps),
                        ])
                    })
                    .and_then(|l| rename_out(&l, INDEX)),
                Family::Bank,
                span,
            )?;
            Ok(Distributed {
                layout: l,
                element_bits: None,
                shape: None,
            })
        }
        other => Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!(
                "the distributed side is a tensor type, a linear layout (register, lane -> ...) or a CuTe thread-value layout, but this is {}",
                other.type_name()
            ),
        )),
    }
}

fn shared(ctx: &mut Ctx, v: &Value, span: Span) -> R<Shared> {
    // A CuTe shared layout maps an element's index to its offset; the bank
    // model wants the inverse, offset -> element.
    let inverted = |ctx: &mut Ctx, l: layout_algebra::Result<LinearLayout>| -> R<Shared> {
        let l = ctx.alg(
            l.and_then(|l| l.invert())
                .and_then(|l| rename_out(&l, INDEX)),
            Family::Bank,
            span,
        )?;
        Ok(Shared {
            layout: l,
            encoding: None,
            shape: None,
        })
    };
    let flat = CuteInDims::Flat(DimName::from(OFFSET));
    match v {
        Value::Tensor(t) if t.encoding.is_shared() => Ok(Shared {
            layout: t.layout.clone(),
            encoding: Some(t.encoding.clone()),
            shape: Some(t.shape.clone()),
        }),
        Value::Tensor(_) => Err(ctx.error(
            Code::TypeMismatch,
            span,
            "the second layout must be a shared-memory layout (#ttg.swizzled_shared, a !ttg.memdesc, ...)",
        )),
        Value::Linear(l) => {
            if l.in_dim_names().all(|d| d.as_str() != OFFSET) {
                return Err(ctx.error(
                    Code::DimMismatch,
                    span,
                    "a shared linear layout has the in-dim offset (and block)",
                ));
            }
            Ok(Shared {
                layout: (**l).clone(),
                encoding: None,
                shape: None,
            })
        }
        // `index -> offset` is built with the in-dim named `offset` first,
        // then inverted; the names swap with the direction.
        Value::Cute(l) => inverted(ctx, cute_to_linear(l, &flat).and_then(|l| swap_names(&l))),
        Value::Swizzled(l) => {
            inverted(ctx, swizzled_to_linear(l, &flat).and_then(|l| swap_names(&l)))
        }
        other => Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!(
                "the shared side is a shared tensor type or memdesc, a linear layout of offsets or a CuTe layout (plain or swizzled), but this is {}",
                other.type_name()
            ),
        )),
    }
}

/// `offset -> offset'` of a converted CuTe layout, named `index -> offset`.
fn swap_names(l: &LinearLayout) -> layout_algebra::Result<LinearLayout> {
    let bases: Vec<(DimName, Vec<Vec<i64>>)> = l
        .bases()
        .into_iter()
        .map(|(_, b)| {
            (
                DimName::from(INDEX),
                b.into_iter()
                    .map(|v| v.into_iter().map(i64::from).collect())
                    .collect(),
            )
        })
        .collect();
    let outs = l
        .out_dims()
        .into_iter()
        .map(|(_, s)| (DimName::from(OFFSET), s as i64))
        .collect();
    LinearLayout::from_bases_with_sizes(bases, outs, false)
}

/// The layout with its single out-dim renamed.
fn rename_out(l: &LinearLayout, name: &str) -> layout_algebra::Result<LinearLayout> {
    let size = l.total_out_size();
    l.reshape_outs(&[(DimName::from(name), size)])
}

/// The instruction of an access: the user's (`"ldmatrix.x4.trans"`,
/// `"vector"`) or, with `None`, the one Triton would use on the target
/// (ldmatrix to load and stmatrix to store 16-bit elements where the
/// layouts allow them and the machine has them, else the widest ld/st).
fn instruction(
    ctx: &mut Ctx,
    access: &Access,
    requested: Option<(String, Span)>,
    vector: u64,
    span: Span,
) -> R<Instruction> {
    let widest = Instruction::LdSt {
        bits: vector as u32 * access.element_bits,
    };
    let target = ctx.target().bank_target();
    let legal = |instruction: Instruction| {
        let probe = Access {
            instruction,
            ..*access
        };
        layout_algebra::bank::wavefronts_by_rank(&probe, &target).is_ok()
    };
    let matrices = |trans: Option<bool>, count: Option<u32>| -> Vec<Instruction> {
        let mut out = Vec::new();
        for c in [4, 2, 1] {
            for t in [false, true] {
                if count.is_none_or(|n| n == c) && trans.is_none_or(|x| x == t) {
                    out.push(Instruction::Matrix { count: c, trans: t });
                }
            }
        }
        out
    };
    let Some((name, name_span)) = requested else {
        let facts = ctx.target();
        let has = facts.shared_instructions();
        let allowed = match access.direction {
            Direction::Load => has.ldmatrix,
            Direction::Store => has.stmatrix,
        };
        if allowed && access.element_bits == 16 {
            if let Some(i) = matrices(None, None).into_iter().find(|&i| legal(i)) {
                return Ok(i);
            }
        }
        return Ok(widest);
    };
    let lowered = name.to_ascii_lowercase();
    if matches!(lowered.as_str(), "vector" | "ld.shared" | "st.shared") {
        return Ok(widest);
    }
    let matrix_op = match access.direction {
        Direction::Load => "ldmatrix",
        Direction::Store => "stmatrix",
    };
    let Some(rest) = lowered.strip_prefix(matrix_op) else {
        return Err(ctx.error(
            Code::TypeMismatch,
            name_span,
            format!(
                "a {} is \"vector\" (ld/st.shared) or \"{matrix_op}\" with optional .x1/.x2/.x4 and .trans, not \"{name}\"",
                match access.direction {
                    Direction::Load => "load",
                    Direction::Store => "store",
                }
            ),
        ));
    };
    let trans = Some(rest.contains(".trans"));
    let count = [1, 2, 4]
        .into_iter()
        .find(|c| rest.contains(&format!(".x{c}")));
    match matrices(trans, count).into_iter().find(|&i| legal(i)) {
        Some(i) => Ok(i),
        None => Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!(
                "{name} cannot do this access: its lanes must address 8x8 tiles of 16-bit elements whose rows (or, with .trans, columns) each thread holds in pairs"
            ),
        )),
    }
}

/// The instruction as PTX names it.
fn instruction_name(i: Instruction, direction: Direction) -> String {
    match (i, direction) {
        (Instruction::LdSt { bits }, Direction::Load) => format!("ld.shared.b{bits}"),
        (Instruction::LdSt { bits }, Direction::Store) => format!("st.shared.b{bits}"),
        (Instruction::Matrix { count, trans }, d) => format!(
            "{}.x{count}{}",
            if d == Direction::Load {
                "ldmatrix"
            } else {
                "stmatrix"
            },
            if trans { ".trans" } else { "" }
        ),
    }
}

/// The wavefronts of an access and Triton's conflict measure. A padded
/// layout's addresses are not linear, so both come from enumeration there
/// (the measure as the average extra wavefronts per wavefront).
fn cost(
    ctx: &mut Ctx,
    access: &Access,
    encoding: Option<&Encoding>,
    target: &BankTarget,
    shared_span: Span,
    span: Span,
) -> R<(Wavefronts, u64)> {
    if matches!(encoding, Some(Encoding::PartitionedShared(_))) {
        return Err(ctx.error(
            Code::UnsupportedEncoding,
            shared_span,
            "the banks of a partitioned layout (separate LDS partitions) are not modelled; ask about the layout inside it",
        ));
    }
    let padding = encoding.map_or(&[][..], Encoding::padding);
    let w = ctx.alg(
        padded_wavefronts_by_enumeration(access, target, padding),
        Family::Bank,
        span,
    )?;
    let conflicts = match (padding.is_empty(), access.instruction) {
        (true, Instruction::LdSt { .. }) => ctx.alg(
            bank_conflicts(
                access.distributed,
                access.shared,
                access.element_bits,
                target,
            ),
            Family::Bank,
            span,
        )?,
        _ => w.wavefronts.div_ceil(w.ideal.max(1)).saturating_sub(1),
    };
    Ok((w, conflicts))
}

/// Both sides of an access over the same elements, or an error that says
/// how they differ.
fn matched(
    ctx: &mut Ctx,
    (d, ds): (&Value, Span),
    (s, ss): (&Value, Span),
    span: Span,
) -> R<(Distributed, Shared)> {
    let dist = distributed(ctx, d, ds)?;
    let shared = shared(ctx, s, ss)?;
    if let (Some(a), Some(b)) = (&dist.shape, &shared.shape) {
        if a != b {
            return Err(ctx.error(
                Code::DimMismatch,
                span,
                format!(
                    "the access moves one tile: {} in registers and {} in shared memory differ",
                    shape_text(a),
                    shape_text(b)
                ),
            ));
        }
    }
    // A sub-view of a larger allocation: the registers reach part of the
    // buffer's elements.
    let (a, b) = (dist.layout.out_dims(), shared.layout.out_dims());
    let within = a.len() == b.len() && a.iter().zip(&b).all(|((n, x), (m, y))| n == m && x <= y);
    let mut dist = dist;
    if within && a != b {
        let bases: Vec<(DimName, Vec<Vec<i64>>)> = dist
            .layout
            .bases()
            .into_iter()
            .map(|(n, v)| {
                let v = v
                    .into_iter()
                    .map(|b| b.into_iter().map(i64::from).collect())
                    .collect();
                (n, v)
            })
            .collect();
        let outs = b.iter().map(|(n, s)| (n.clone(), *s as i64)).collect();
        dist.layout = ctx.alg(
            LinearLayout::from_bases_with_sizes(bases, outs, false),
            Family::Bank,
            span,
        )?;
    }
    let a = dist.layout.out_dims();
    if a != b {
        let show = |dims: &[(DimName, u64)]| {
            dims.iter()
                .map(|(n, s)| format!("{n} {s}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(ctx.error(
            Code::DimMismatch,
            span,
            format!(
                "the two sides lay out different elements: [{}] and [{}] (a CuTe side counts elements by index; pair it with a CuTe or linear layout over the same index)",
                show(&a),
                show(&b)
            ),
        ));
    }
    Ok((dist, shared))
}

/// `bank_conflicts`, `wavefronts` and `vectorisation` of any access.
pub(crate) fn bank(ctx: &mut Ctx, name: &str, b: &Bound, span: Span) -> R<Value> {
    let (d, ds) = b[0].clone().expect("required");
    // A pasted shared-memory access carries its own analysis.
    if let (Value::Access(a), None) = (&d, &b[1]) {
        return Ok(Value::Int(match name {
            "bank_conflicts" => a.conflicts as i64,
            "wavefronts" => a.wavefronts as i64,
            _ => a.vector as i64,
        }));
    }
    let Some((s, ss)) = b[1].clone() else {
        return Err(ctx.error(
            Code::ArgumentCount,
            span,
            format!(
                "{name} needs `shared`: {name}(dist, shared), or one pasted local_alloc/local_store/local_load"
            ),
        ));
    };
    let (dist, shared) = matched(ctx, (&d, ds), (&s, ss), span)?;
    let bits = match b[2].clone() {
        Some((v, s)) => ctx.size(&v, s)? as u32,
        None => match dist.element_bits {
            Some(bits) => bits,
            None => {
                return Err(ctx.error(
                    Code::ArgumentCount,
                    span,
                    format!(
                        "{name} needs the element width in bits: {name}(dist, shared, 16); only a tensor type gives one"
                    ),
                ));
            }
        },
    };
    let target = ctx.target().bank_target();
    let (dl, sl) = (&dist.layout, &shared.layout);
    let padded = shared
        .encoding
        .as_ref()
        .is_some_and(|e| !e.padding().is_empty());
    if name == "bank_conflicts" && !padded {
        // The rank formula: no enumeration needed.
        let q = crate::BankQuery::new(ctx.db, dl.clone(), sl.clone(), bits, target.clone());
        let n = ctx.alg(
            crate::bank_conflicts_of(ctx.db, q).clone(),
            Family::Bank,
            span,
        )?;
        return Ok(Value::Int(n as i64));
    }
    let (v, _) = ctx.alg(largest_vectorisation(dl, sl, bits), Family::Bank, span)?;
    if name == "vectorisation" {
        return Ok(Value::Int(v as i64));
    }
    // Loads and stores differ where the target's phases say so (AMD's
    // ds_read_b128 and ds_write_b128) and in the matrix instructions.
    let direction = match b.get(3).cloned().flatten() {
        None => Direction::Store,
        Some((v, s)) => match ctx.string(&v, s)?.as_str() {
            "store" => Direction::Store,
            "load" => Direction::Load,
            other => {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    s,
                    format!("the access is \"store\" or \"load\", not \"{other}\""),
                ));
            }
        },
    };
    let mut access = Access {
        distributed: dl,
        shared: sl,
        element_bits: bits,
        instruction: Instruction::LdSt {
            bits: v as u32 * bits,
        },
        direction,
    };
    // `wavefronts` counts the widest ld/st unless an instruction is named
    // (`"triton"`: the one Triton would pick on the target).
    if let Some((v, s)) = b.get(4).cloned().flatten() {
        let name = ctx.string(&v, s)?;
        let requested = (name != "triton").then_some((name, s));
        access.instruction = instruction(ctx, &access, requested, v_elems(&access), span)?;
    }
    let (w, conflicts) = cost(ctx, &access, shared.encoding.as_ref(), &target, ss, span)?;
    Ok(Value::Int(if name == "bank_conflicts" {
        conflicts as i64
    } else {
        w.wavefronts as i64
    }))
}

/// Elements per vector of an ld/st access.
fn v_elems(access: &Access) -> u64 {
    match access.instruction {
        Instruction::LdSt { bits } => (bits / access.element_bits) as u64,
        Instruction::Matrix { .. } => 8,
    }
}

/// A pasted `ttg.local_alloc` / `local_store` / `local_load`: one warp's
/// access with the instruction Triton would use on the target.
pub(crate) fn memory_access(
    ctx: &mut Ctx,
    op: layout_syntax::MemoryOpKind,
    from: Option<(Value, Span)>,
    (to, to_span): (Value, Span),
    span: Span,
) -> R<Value> {
    use layout_syntax::MemoryOpKind;
    let Some((from, from_span)) = from else {
        // An allocation without an initial value only reserves the buffer.
        ctx.tensor(&to, to_span, "allocated")?;
        return Ok(to);
    };
    let (direction, (d, ds), (s, ss)) = match op {
        MemoryOpKind::Alloc | MemoryOpKind::Store => {
            (Direction::Store, (from, from_span), (to, to_span))
        }
        MemoryOpKind::Load => (Direction::Load, (to, to_span), (from, from_span)),
    };
    let distributed = ctx.tensor(&d, ds, "distributed")?;
    let shared_tensor = ctx.tensor(&s, ss, "shared-memory")?;
    let (dist, shared) = matched(ctx, (&d, ds), (&s, ss), span)?;
    warn_if_default_target(ctx, span);
    // Triton stores sub-byte and boolean elements as bytes.
    let bits = dist.element_bits.unwrap_or(8).max(8);
    let target = ctx.target().bank_target();
    let (dl, sl) = (&dist.layout, &shared.layout);
    let (vector, _) = ctx.alg(largest_vectorisation(dl, sl, bits), Family::Bank, span)?;
    let mut access = Access {
        distributed: dl,
        shared: sl,
        element_bits: bits,
        instruction: Instruction::LdSt {
            bits: vector as u32 * bits,
        },
        direction,
    };
    access.instruction = instruction(ctx, &access, None, vector, span)?;
    let (w, conflicts) = cost(ctx, &access, shared.encoding.as_ref(), &target, ss, span)?;
    Ok(Value::Access(Box::new(AccessReport {
        op,
        direction,
        element_bits: bits,
        vector: v_elems(&access) as u32,
        instruction: instruction_name(access.instruction, direction),
        instructions: w.instructions,
        wavefronts: w.wavefronts,
        conflicts,
        distributed,
        shared: shared_tensor,
    })))
}
