//! A warp's access to shared memory, from whatever the user has: a Triton
//! tensor type, a linear layout, or CuTe's thread-value layout on one side;
//! a Triton shared encoding, a linear layout of offsets, or a CuTe layout
//! (plain or swizzled) on the other. Both sides become linear layouts onto
//! the same elements, and the bank model counts the access with the
//! instruction the user names or the one Triton would pick on the target.

use layout_algebra::bank::{
    Access, Direction, Instruction, InstructionPattern, Mnemonic, PatternShape, Wavefronts,
    candidates, compiled_vectorisation, largest_vectorisation, padded_wavefronts_by_enumeration,
    triton_choice,
};
use layout_algebra::interop::{CuteInDims, cute_to_linear, swizzled_to_linear};
use layout_algebra::machine::Vendor;
use layout_algebra::triton::Encoding;
use layout_algebra::{DimName, LinearLayout};
use layout_syntax::Span;

use crate::context::{Cx, R};
use crate::diagnostic::{Code, Diagnostic, Domain};
use crate::value::{AccessReport, CountedAccess, Value, shape_text};

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
    /// The Triton encoding, for its padding.
    encoding: Option<Encoding>,
    shape: Option<Vec<u32>>,
}

fn distributed(ctx: &mut Cx, v: &Value, span: Span) -> R<Distributed> {
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
            let l = ctx.alg(cute_to_linear(tv, &dims), Domain::Bank, span)?;
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
                Domain::Bank,
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

/// Why the banks of an access to a partitioned tensor are not modelled, if
/// they are not. A lane's pieces sit in separate buffers, which the bank
/// model takes as one address space ([`PartitionedShared::address_layout`]):
/// that keeps each lane's bank only where a partition's buffer holds whole
/// rows of banks and its pieces are not padded (Triton pads each piece, and
/// puts the buffers a partition apart).
fn unmodelled_partitions(
    ctx: &Cx,
    t: &crate::value::TensorLayout,
    p: &layout_algebra::triton::PartitionedShared,
) -> Option<String> {
    if !p.inner.padding().is_empty() {
        return Some(
            "the banks of a partitioned tensor with padded pieces are not modelled; ask about the layout inside it"
                .to_string(),
        );
    }
    let target = ctx.target().bank_target();
    let row = target.banks as u64 * target.bank_bytes as u64;
    let buffer_bytes = t.layout.in_dim_size(OFFSET) * t.element_bits.unwrap_or(8).max(8) as u64 / 8;
    (!buffer_bytes.is_multiple_of(row)).then(|| {
        format!(
            "the banks of a partitioned tensor whose partitions hold {buffer_bytes} bytes each, less than whole rows of the {row}-byte banks, are not modelled; ask about the layout inside it"
        )
    })
}

fn shared(ctx: &mut Cx, v: &Value, span: Span) -> R<Shared> {
    // A CuTe shared layout maps an element's index to its offset; the bank
    // model wants the inverse, offset -> element.
    let inverted = |ctx: &mut Cx, l: layout_algebra::Result<LinearLayout>| -> R<Shared> {
        let l = ctx.alg(
            l.and_then(|l| l.invert())
                .and_then(|l| rename_out(&l, INDEX)),
            Domain::Bank,
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
        Value::Tensor(t) if t.encoding.is_shared() => {
            let layout = match &t.encoding {
                Encoding::PartitionedShared(p) => match unmodelled_partitions(ctx, t, p) {
                    Some(why) => return Err(ctx.error(Code::UnsupportedEncoding, span, why)),
                    None => ctx.alg(p.address_layout(&t.shape), Domain::Bank, span)?,
                },
                _ => t.layout.clone(),
            };
            Ok(Shared {
                layout,
                encoding: Some(t.encoding.clone()),
                shape: Some(t.shape.clone()),
            })
        }
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

/// Which instruction an access is counted with.
enum Requested {
    /// The widest `ld/st.shared` both layouts allow (`wavefronts`' default).
    Widest,
    /// The one Triton would use on the target.
    Triton,
    /// The user's: `"ldmatrix.x4.trans"`, `"ds_read_b64"`, `"vector"`.
    Named(String, Span),
}

/// An access as counted: the instruction, elements per lane and
/// instruction, the wavefronts of one warp, and Triton's conflict measure.
struct Measured {
    instruction: Instruction,
    /// A paired instruction's pairs and the requests left single.
    pairs: Option<layout_algebra::bank::PairCounts>,
    vector: u64,
    wavefronts: Wavefronts,
    conflicts: u64,
}

/// Counts one warp's access; the one path behind `wavefronts`,
/// `bank_conflicts`, `vectorisation` and pasted `local_*` operations.
#[allow(clippy::too_many_arguments)]
fn measure(
    ctx: &mut Cx,
    dist: &Distributed,
    shared: &Shared,
    bits: u32,
    direction: Direction,
    requested: Requested,
    span: Span,
) -> R<Measured> {
    let target = ctx.target().bank_target();
    let (dl, sl) = (&dist.layout, &shared.layout);
    let padding = shared.encoding.as_ref().map_or(&[][..], Encoding::padding);
    let mut vector = if padding.is_empty() {
        ctx.alg(compiled_vectorisation(dl, sl, bits), Domain::Bank, span)?
    } else {
        ctx.alg(largest_vectorisation(dl, sl, bits), Domain::Bank, span)?
            .0
    };
    // A vector never crosses padding: it holds at most one interval.
    if let Some(&(interval, _)) = padding.iter().min_by_key(|(i, _)| *i) {
        vector = vector.min(interval as u64);
    }
    let mut access = Access {
        distributed: dl,
        shared: sl,
        element_bits: bits,
        instruction: Instruction::LdSt {
            bits: vector as u32 * bits,
        },
        direction,
    };
    access.instruction = instruction(ctx, &access, requested, padding, span)?;
    let w = ctx.alg(
        padded_wavefronts_by_enumeration(&access, &target, padding),
        Domain::Bank,
        span,
    )?;
    let conflicts = match (padding.is_empty(), access.instruction) {
        (true, Instruction::LdSt { .. } | Instruction::Paired { .. }) => {
            let q = crate::BankQuery::new(ctx.db, dl.clone(), sl.clone(), bits, target.clone());
            ctx.alg(
                crate::bank_conflicts_of(ctx.db, q).clone(),
                Domain::Bank,
                span,
            )?
        }
        // Padded addresses and matrix rows: the extra wavefronts per
        // wavefront, counted (rounded up).
        _ => w.wavefronts.div_ceil(w.ideal.max(1)).saturating_sub(1),
    };
    let pairs = ctx.alg(
        layout_algebra::bank::pair_counts(&access, padding),
        Domain::Bank,
        span,
    )?;
    Ok(Measured {
        instruction: access.instruction,
        pairs,
        vector: match access.instruction {
            Instruction::LdSt { bits: b } | Instruction::Paired { bits: b, .. } => {
                (b / bits) as u64
            }
            Instruction::ReadTransposed { .. } => {
                (access.instruction.bits_per_lane() / bits) as u64
            }
            Instruction::Matrix { .. } => (128 / bits) as u64,
        },
        wavefronts: w,
        conflicts,
    })
}

/// The instruction of an access: the widest ld/st, the one Triton would
/// use on the target ([`triton_choice`]), or the user's, chosen among the
/// instructions the machine has for the access ([`candidates`]).
fn instruction(
    ctx: &mut Cx,
    access: &Access,
    requested: Requested,
    padding: &[(u32, u32)],
    span: Span,
) -> R<Instruction> {
    let widest = access.instruction;
    let machine = ctx.target().machine();
    let (name, name_span) = match requested {
        Requested::Widest => return Ok(widest),
        Requested::Triton => return Ok(triton_choice(&machine, access, padding)),
        Requested::Named(name, span) => (name, span),
    };
    let bad = |ctx: &mut Cx, why: String| Err(ctx.error(Code::TypeMismatch, name_span, why));
    let pattern: InstructionPattern = match name.parse() {
        Ok(p) => p,
        Err(e) => return bad(ctx, format!("{e}")),
    };
    if let Some(d) = pattern.direction.filter(|&d| d != access.direction) {
        return bad(
            ctx,
            format!(
                "`{name}` {}, but this access is a {}",
                if d == Direction::Load {
                    "loads"
                } else {
                    "stores"
                },
                if access.direction == Direction::Load {
                    "load"
                } else {
                    "store"
                }
            ),
        );
    }
    let widest_bits = widest.bits_per_lane();
    let options: Vec<Instruction> = candidates(
        &machine,
        access.direction,
        access.element_bits,
        widest_bits,
        padding,
    )
    .into_iter()
    .filter(|&i| pattern.matches(i))
    .collect();
    let counted = |i: Instruction| {
        layout_algebra::bank::wavefronts_by_rank(
            &Access {
                instruction: i,
                ..*access
            },
            &machine.banks,
        )
    };
    if let Some(&i) = options.iter().find(|&&i| counted(i).is_ok()) {
        return Ok(i);
    }
    // Nothing the machine has fits: say which constraint fails.
    let why = match (pattern.shape, options.first()) {
        (PatternShape::Matrix { .. }, None) if !machine.matrix.matrix(access.direction) => format!(
            "the target has no {0} ({0} needs NVIDIA, sm75+ to load and sm90+ to store; the target is {1})",
            if access.direction == Direction::Load {
                "ldmatrix"
            } else {
                "stmatrix"
            },
            machine.name
        ),
        (PatternShape::Matrix { .. }, _) => {
            return Err(ctx.error(
                Code::TypeMismatch,
                span,
                format!(
                    "{name} cannot do this access: its lanes must address 8x8 tiles of 16-bit elements whose rows (or, with .trans, columns) each thread holds in pairs, with no padding inside a row"
                ),
            ));
        }
        (PatternShape::Exact(i @ Instruction::Paired { bits, .. }), None) => {
            if machine.lds.paired {
                format!(
                    "{} moves {bits} bits per address, but these layouts allow {} to {widest_bits}",
                    machine.mnemonic(i, access.direction, access.element_bits),
                    access.element_bits
                )
            } else {
                format!(
                    "the target has no {} (AMD's paired LDS instructions; say `target = gfx942`, `gfx950` or `gfx1250`)",
                    machine.mnemonic(i, access.direction, access.element_bits)
                )
            }
        }
        (PatternShape::Exact(i @ Instruction::ReadTransposed { .. }), None) => format!(
            "the target has no {} for {}-bit elements (gfx950 reads 16-, 8- and 4-bit elements transposed with `ds_read_b64_tr_bN`, gfx1250 16- and 8-bit ones with `ds_load_tr16_b128`/`ds_load_tr8_b64`)",
            i.mnemonic(access.direction, Vendor::Amd, access.element_bits),
            access.element_bits
        ),
        (PatternShape::Exact(Instruction::LdSt { bits }), None) => format!(
            "{name} moves {bits} bits per lane, but these layouts allow {} to {widest_bits}",
            access.element_bits.max(8)
        ),
        // The bank model's own reason why the instruction cannot serve it.
        (_, Some(&first)) => match counted(first) {
            Err(e) => return Err(ctx.algebra_error(&e, Domain::Bank, name_span)),
            Ok(_) => unreachable!("no option counts"),
        },
        (_, None) => format!("{name} cannot do this access on {}", machine.name),
    };
    bad(ctx, why)
}

/// The instruction as the machine's assembly spells it.
fn mnemonic(ctx: &Cx, i: Instruction, direction: Direction, element_bits: u32) -> Mnemonic {
    ctx.target().machine().mnemonic(i, direction, element_bits)
}

/// Both sides of an access over the same elements, or an error that says
/// how they differ.
fn matched(
    ctx: &mut Cx,
    (d, ds): (&Value, Span),
    (s, ss): (&Value, Span),
    span: Span,
) -> R<(Distributed, Shared)> {
    let dist = distributed(ctx, d, ds)?;
    let shared = shared(ctx, s, ss)?;
    if let (Some(a), Some(b)) = (&dist.shape, &shared.shape)
        && a != b
    {
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
            Domain::Bank,
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

/// What a `wavefronts(...)`, `bank_conflicts(...)` or `vectorisation(...)`
/// call counts: one warp's access, with the instruction it was counted
/// with, what it costs, and the inputs of the count (so a picture walks the
/// same requests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountedCall {
    pub direction: Direction,
    pub element_bits: u32,
    /// Elements per lane and request.
    pub vector: u64,
    /// The shared layout (`offset`, `block` -> the elements) and its padding.
    pub shared: LinearLayout,
    pub padding: Vec<(u32, u32)>,
    /// The instruction as the machine names it, and how many one warp issues.
    pub instruction: Mnemonic,
    pub instructions: u64,
    pub wavefronts: u64,
    pub conflicts: u64,
    pub counted: CountedAccess,
}

impl From<&AccessReport> for CountedCall {
    /// A pasted access as it was counted.
    fn from(a: &AccessReport) -> Self {
        CountedCall {
            direction: a.direction,
            element_bits: a.element_bits,
            vector: a.vector as u64,
            shared: a.counted.shared.clone(),
            padding: a.shared.encoding.padding().to_vec(),
            instruction: a.instruction,
            instructions: a.instructions,
            wavefronts: a.wavefronts,
            conflicts: a.conflicts,
            counted: a.counted.clone(),
        }
    }
}

/// `bank_conflicts`, `wavefronts` and `vectorisation` of any access.
pub(crate) fn bank(ctx: &mut Cx, name: &str, b: &[Option<(Value, Span)>], span: Span) -> R<Value> {
    let (d, _) = b[0].clone().expect("required");
    if let Value::CuteAtom(o) = &d
        && let crate::value::CuteObject::TiledCopy(copy) = &**o
    {
        return tiled_copy_cost(ctx, name, copy, b, span);
    }
    if !matches!(d, Value::Access(_)) && name == "bank_conflicts" && b[1].is_some() {
        // The rank formula: no enumeration needed.
        if let Some(n) = plain_bank_conflicts(ctx, b, span)? {
            return Ok(Value::Int(n as i64));
        }
    }
    let c = counted_call(ctx, name, b, span)?;
    Ok(Value::Int(match name {
        "bank_conflicts" => c.conflicts as i64,
        "wavefronts" => c.wavefronts as i64,
        _ => c.vector as i64,
    }))
}

/// Triton's measure by the rank formula, when the shared side has no
/// padding (`None`: it has, count instead).
fn plain_bank_conflicts(ctx: &mut Cx, b: &[Option<(Value, Span)>], span: Span) -> R<Option<u64>> {
    let ((d, ds), (s, ss)) = (
        b[0].clone().expect("required"),
        b[1].clone().expect("given"),
    );
    let (dist, shared) = matched(ctx, (&d, ds), (&s, ss), span)?;
    let plain_shared = shared
        .encoding
        .as_ref()
        .is_none_or(|e| e.padding().is_empty());
    if !plain_shared {
        return Ok(None);
    }
    let bits = element_bits(ctx, "bank_conflicts", b, &dist, span)?;
    let target = ctx.target().bank_target();
    let q = crate::BankQuery::new(ctx.db, dist.layout, shared.layout, bits, target);
    let n = ctx.alg(
        crate::bank_conflicts_of(ctx.db, q).clone(),
        Domain::Bank,
        span,
    )?;
    Ok(Some(n))
}

/// The element width: the argument, else the tensor type's.
fn element_bits(
    ctx: &mut Cx,
    name: &str,
    b: &[Option<(Value, Span)>],
    dist: &Distributed,
    span: Span,
) -> R<u32> {
    match b[2].clone() {
        Some((v, s)) => {
            let bits = ctx.size(&v, s)?;
            if !(1..=64).contains(&bits) || !bits.is_power_of_two() {
                return Err(ctx.error(
                    Code::TypeMismatch,
                    s,
                    format!("an element is a power of two up to 64 bits wide, not {bits}"),
                ));
            }
            Ok(bits as u32)
        }
        None => match dist.element_bits {
            Some(bits) => Ok(bits),
            None => Err(ctx.error(
                Code::ArgumentCount,
                span,
                format!(
                    "{name} needs the element width in bits: {name}(dist, shared, 16); only a tensor type gives one"
                ),
            )),
        },
    }
}

/// The access a `wavefronts`/`bank_conflicts`/`vectorisation` call counts,
/// counted (a pasted access as it was counted).
pub(crate) fn counted_call(
    ctx: &mut Cx,
    name: &str,
    b: &[Option<(Value, Span)>],
    span: Span,
) -> R<CountedCall> {
    let (d, ds) = b[0].clone().expect("required");
    // A pasted shared-memory access carries its own analysis.
    if let Value::Access(a) = &d {
        if let Some((_, extra)) = b[1..].iter().flatten().next() {
            return Err(ctx.error(
                Code::ArgumentCount,
                *extra,
                format!(
                    "{name} of a pasted access takes nothing more: it was counted with {}",
                    a.instruction
                ),
            ));
        }
        return Ok(CountedCall::from(&**a));
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
    let bits = element_bits(ctx, name, b, &dist, span)?;
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
    // `wavefronts` counts the widest ld/st unless an instruction is named
    // (`"triton"`: the one Triton would pick on the target).
    let requested = match b.get(4).cloned().flatten() {
        None => Requested::Widest,
        Some((v, s)) => match ctx.string(&v, s)?.as_str() {
            "triton" => {
                ctx.warn_if_default_target(span);
                Requested::Triton
            }
            other => Requested::Named(other.to_string(), s),
        },
    };
    let m = measure(ctx, &dist, &shared, bits, direction, requested, span)?;
    Ok(CountedCall {
        direction,
        element_bits: bits,
        vector: m.vector,
        padding: shared
            .encoding
            .as_ref()
            .map_or(&[][..], Encoding::padding)
            .to_vec(),
        shared: shared.layout.clone(),
        instruction: mnemonic(ctx, m.instruction, direction, bits),
        instructions: m.wavefronts.instructions,
        wavefronts: m.wavefronts.wavefronts,
        conflicts: m.conflicts,
        counted: CountedAccess {
            distributed: dist.layout,
            shared: shared.layout,
            instruction: m.instruction,
            target: ctx.target().bank_target(),
        },
    })
}

/// A pasted `ttg.local_alloc` / `local_store` / `local_load`: one warp's
/// access with the instruction Triton would use on the target.
pub(crate) fn memory_access(
    ctx: &mut Cx,
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
    let result = to.clone();
    let (direction, (d, ds), (s, ss)) = match op {
        MemoryOpKind::Alloc | MemoryOpKind::Store => {
            (Direction::Store, (from, from_span), (to, to_span))
        }
        MemoryOpKind::Load => (Direction::Load, (to, to_span), (from, from_span)),
    };
    let distributed = ctx.tensor(&d, ds, "distributed")?;
    let shared_tensor = ctx.tensor(&s, ss, "shared-memory")?;
    if let Encoding::PartitionedShared(p) = &shared_tensor.encoding
        && let Some(why) = unmodelled_partitions(ctx, &shared_tensor, p)
    {
        // Pasted, not asked about: the op stays valid, only uncounted.
        ctx.report(Diagnostic::warning(
            Code::UnmodelledEncoding,
            ss,
            format!("{why}; this access is not counted"),
        ));
        return Ok(result);
    }
    let (dist, shared) = matched(ctx, (&d, ds), (&s, ss), span)?;
    ctx.warn_if_default_target(span);
    // Triton stores sub-byte and boolean elements as bytes.
    let bits = dist.element_bits.unwrap_or(8).max(8);
    let m = measure(
        ctx,
        &dist,
        &shared,
        bits,
        direction,
        Requested::Triton,
        span,
    )?;
    Ok(Value::Access(Box::new(AccessReport {
        op,
        direction,
        element_bits: bits,
        vector: m.vector as u32,
        instruction: mnemonic(ctx, m.instruction, direction, bits),
        instructions: m.wavefronts.instructions,
        wavefronts: m.wavefronts.wavefronts,
        conflicts: m.conflicts,
        high_half: 0,
        pairs: m.pairs,
        distributed,
        shared: shared_tensor,
        counted: CountedAccess {
            distributed: dist.layout,
            shared: shared.layout,
            instruction: m.instruction,
            target: ctx.target().bank_target(),
        },
    })))
}

/// `wavefronts(tiled_copy, smem[, "S"|"D"])` and `bank_conflicts(...)` of a
/// CuTe tiled copy against a CuTe shared layout of its value type.
fn tiled_copy_cost(
    ctx: &mut Cx,
    name: &str,
    copy: &layout_algebra::cute::tiled::TiledCopy,
    b: &[Option<(Value, Span)>],
    span: Span,
) -> R<Value> {
    use layout_algebra::cute::copy_cost::shared_side;
    use layout_algebra::cute::tiled::Side;
    use layout_algebra::cute::{Swizzle, SwizzledLayout};
    let Some((smem, smem_span)) = b.get(1).cloned().flatten() else {
        return Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!("{name} of a tiled copy needs the shared layout: {name}(copy, cute Sw<3,3,3> o (8,64):(64,1))"),
        ));
    };
    let smem = match smem {
        Value::Swizzled(s) => *s,
        Value::Cute(l) => SwizzledLayout {
            swizzle: Swizzle::new(0, 0, 0).expect("the identity swizzle"),
            offset: 0,
            layout: *l,
        },
        other => {
            return Err(ctx.error(
                Code::TypeMismatch,
                smem_span,
                format!(
                    "the shared side of a tiled copy is a CuTe layout of its value type (`cute Sw<3,3,3> o (8,64):(64,1)`), but this is {}",
                    other.type_name()
                ),
            ));
        }
    };
    let named = match b.get(2).cloned().flatten() {
        None => None,
        Some((Value::Str(s), _)) if s == "S" => Some(Side::Source),
        Some((Value::Str(s), _)) if s == "D" => Some(Side::Destination),
        Some((other, s)) => {
            return Err(ctx.error(
                Code::TypeMismatch,
                s,
                format!(
                    "the side of a tiled copy is \"S\" (source) or \"D\" (destination), not {other}"
                ),
            ));
        }
    };
    let Some(side) = named.or_else(|| shared_side(copy.atom.instruction)) else {
        return Err(ctx.error(
            Code::TypeMismatch,
            span,
            format!(
                "{} moves registers or global memory on either side: name the shared one, {name}(copy, smem, \"S\") or \"D\"",
                copy.atom.op
            ),
        ));
    };
    if name == "vectorisation" {
        // Elements per instruction on the shared side.
        let n = ctx.alg(copy.vector_elements(&smem, side), Domain::Cute, span)?;
        return Ok(Value::Int(n));
    }
    let target = ctx.target().bank_target();
    let cost = ctx.alg(copy.wavefronts(&smem, side, &target), Domain::Cute, span)?;
    Ok(Value::Int(match name {
        "bank_conflicts" => {
            // Triton's measure: extra wavefronts per wavefront.
            (cost.wavefronts.saturating_sub(cost.ideal) / cost.ideal.max(1)) as i64
        }
        "wavefronts" => cost.wavefronts as i64,
        _ => {
            return Err(ctx.error(
                Code::TypeMismatch,
                span,
                format!(
                    "{name} is not defined for a tiled copy; ask for wavefronts, bank_conflicts or vectorisation"
                ),
            ));
        }
    }))
}
