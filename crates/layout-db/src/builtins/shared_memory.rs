//! Shared memory: the bank conflicts and wavefronts of an access (the
//! model lives in [`crate::access`]), and Triton's `convert_layout`.

use layout_algebra::LinearLayout;
use layout_algebra::triton::convert_layout::analyse_conversion;
use layout_syntax::Span;

use super::{Args, Builtin, Def, Group, Param, Type::*, opt, req};
use crate::context::{Cx, R};
use crate::diagnostic::{Code, Domain};
use crate::round_trip::RoundTrip;
use crate::value::{ConversionReport, Value};

const DIST: Param = req(
    "dist",
    Layout,
    "the distributed side: a tensor type, a linear layout (register, lane -> ...), a CuTe thread-value layout, a CuTe tiled copy, or a pasted local_alloc/local_store/local_load",
);
const SHARED: Param = opt(
    "shared",
    Layout,
    "the shared side: a shared tensor type or memdesc, a linear layout (offset -> ...) or a CuTe layout (index -> offset)",
);
const BITS: Param = opt(
    "bits",
    Int,
    "bits per element; the tensor type's when absent",
);
/// The element width, or for a tiled copy the side that is shared.
const BITS_OR_SIDE: Param = opt(
    "bits",
    Any,
    "bits per element (the tensor type's when absent); for a tiled copy, the shared side \"S\" or \"D\"",
);
const CONVERSION: Param = req("conversion", Conversion, "a conversion: convert(src, dst)");

/// A fact of a conversion.
const fn fact(
    name: &'static str,
    doc: &'static str,
    result: super::Type,
    body: super::Body,
) -> Builtin {
    Builtin {
        name,
        doc,
        result,
        def: Def::Fn(&[CONVERSION], body),
    }
}

pub(super) const GROUP: Group = Group {
    title: "Shared memory and conversions",
    builtins: &[
        Builtin {
            name: "bank_conflicts",
            doc: "Triton's measure: extra wavefronts per wavefront after the widest vectorisation (also of a pasted local_alloc/local_store/local_load)",
            result: Int,
            def: Def::Fn(&[DIST, SHARED, BITS], bank),
        },
        Builtin {
            name: "wavefronts",
            doc: "total shared-memory wavefronts of one warp's access (\"store\" or \"load\"), widest vectorisation (or of a pasted local_alloc/local_store/local_load)",
            result: Int,
            def: Def::Fn(
                &[
                    DIST,
                    SHARED,
                    BITS_OR_SIDE,
                    opt("access", Str, "\"store\" (the default) or \"load\""),
                    opt(
                        "instruction",
                        Str,
                        "\"vector\", \"ldmatrix\"/\"stmatrix\" (.x1/.x2/.x4, .trans), AMD's \"ds_read_b64\"..., or \"triton\" for Triton's choice; the widest ld/st.shared when absent",
                    ),
                ],
                bank,
            ),
        },
        Builtin {
            name: "vectorisation",
            doc: "elements per vectorised access (Triton's largestVectorisation; also of a pasted local_alloc/local_store/local_load; of a tiled copy, what cute::copy moves at once)",
            result: Int,
            def: Def::Fn(&[DIST, SHARED, BITS_OR_SIDE], bank),
        },
        Builtin {
            name: "convert",
            doc: "Triton's convert_layout between two tensor types: kind, scratch bytes, conflicts of its swizzle",
            result: Conversion,
            def: Def::Fn(
                &[
                    req("src", Tensor, "the distributed tensor type converted from"),
                    req(
                        "dst",
                        Tensor,
                        "the distributed tensor type converted to: same shape and element type",
                    ),
                ],
                convert,
            ),
        },
        fact(
            "kind",
            "a conversion's lowering: \"noop\", \"register\", \"shuffle\" or \"shared\"",
            Str,
            kind,
        ),
        fact(
            "scratch_bytes",
            "shared memory a conversion allocates (0 unless it goes through shared memory)",
            Int,
            scratch_bytes,
        ),
        fact(
            "rounds",
            "store/load rounds over the scratch buffer (1 unless registers repeat on both sides)",
            Int,
            rounds,
        ),
        fact(
            "read_conflicts",
            "extra wavefronts per wavefront of the load through the conversion's swizzle",
            Int,
            read_conflicts,
        ),
        fact(
            "write_conflicts",
            "extra wavefronts per wavefront of the store through the conversion's swizzle",
            Int,
            write_conflicts,
        ),
        fact(
            "scratch_layout",
            "the swizzled scratch buffer: vector, bank, segment, block, reps -> dims",
            Linear,
            scratch_layout,
        ),
    ],
};

fn bank(cx: &mut Cx, a: &Args) -> R<Value> {
    crate::access::bank(cx, a.name, a.values(), a.span)
}

fn convert(cx: &mut Cx, a: &Args) -> R<Value> {
    let (s, ss) = a.get(0);
    let (d, ds) = a.get(1);
    convert_layout(cx, (s.clone(), ss), (d.clone(), ds), a.span)
}

fn conversion(a: &Args) -> &ConversionReport {
    match a.get(0).0 {
        Value::Conversion(c) => c,
        _ => unreachable!("the parameter's type admits conversions only"),
    }
}

fn kind(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Str(conversion(a).kind.name().to_string()))
}

fn scratch_bytes(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(conversion(a).scratch_bytes as i64))
}

fn rounds(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(conversion(a).rounds as i64))
}

fn read_conflicts(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(conversion(a).read_conflicts as i64))
}

fn write_conflicts(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::Int(conversion(a).write_conflicts as i64))
}

fn scratch_layout(cx: &mut Cx, a: &Args) -> R<Value> {
    let c = conversion(a);
    match &c.swizzle {
        Some(l) => Ok(Value::Linear(Box::new(l.clone()))),
        None => Err(cx.error(
            Code::TypeMismatch,
            a.get(0).1,
            format!(
                "this conversion is {}: it has no scratch buffer",
                c.kind.name()
            ),
        )),
    }
}

pub(crate) fn convert_layout(
    cx: &mut Cx,
    (sv, ss): (Value, Span),
    (dv, ds): (Value, Span),
    span: Span,
) -> R<Value> {
    let src = cx.tensor(&sv, ss, "source")?;
    let dst = cx.tensor(&dv, ds, "destination")?;
    for (t, s) in [(&src, ss), (&dst, ds)] {
        if t.encoding.is_shared() {
            return Err(cx.error(
                Code::TypeMismatch,
                s,
                "convert_layout moves a tensor between distributed layouts; this one is in shared memory",
            ));
        }
    }
    if src.shape != dst.shape {
        return Err(cx.error(
            Code::DimMismatch,
            span,
            format!(
                "a conversion keeps the tensor: {} and {} differ in shape",
                crate::value::shape_text(&src.shape),
                crate::value::shape_text(&dst.shape)
            ),
        ));
    }
    if src.element_type != dst.element_type {
        return Err(cx.error(
            Code::TypeMismatch,
            ds,
            format!(
                "a conversion keeps the element type, but converts {} to {}",
                src.element_type, dst.element_type
            ),
        ));
    }
    // Triton stores sub-byte and boolean elements as bytes.
    let bits = src.element_bits.unwrap_or(8).max(8);
    cx.warn_if_default_target(span);
    let facts = cx.target();
    let (target, instructions) = (facts.bank_target(), facts.shared_instructions());
    let c = cx.alg(
        analyse_conversion(&src.layout, &dst.layout, bits, &target, instructions),
        Domain::Bank,
        span,
    )?;
    let shared = c.shared.as_ref();
    let round_trip =
        shared.and_then(|s| through_buffer(facts, s, [&src.layout, &dst.layout], bits));
    Ok(Value::Conversion(Box::new(ConversionReport {
        src,
        dst,
        element_bits: bits,
        kind: c.kind,
        mixed_transpositions: c.mixed_transpositions,
        swizzle: shared.map(|s| s.layout.clone()),
        rounds: shared.map_or(1, |s| s.rounds),
        scratch_bytes: shared.map_or(0, |s| s.scratch_bytes),
        read_conflicts: shared.map_or(0, |s| s.read_conflicts),
        write_conflicts: shared.map_or(0, |s| s.write_conflicts),
        round_trip,
    })))
}

/// The load side of conversion `c` when only some of its result's
/// registers are read (`live`: the destination layout as those see it),
/// through the buffer Triton picked for the whole result.
pub(crate) fn live_load_side(
    cx: &mut Cx,
    c: &ConversionReport,
    live: &LinearLayout,
) -> Option<crate::round_trip::RoundTripSide> {
    let facts = cx.target();
    let (target, instructions) = (facts.bank_target(), facts.shared_instructions());
    let analysed = analyse_conversion(
        &c.src.layout,
        &c.dst.layout,
        c.element_bits,
        &target,
        instructions,
    )
    .ok()?;
    let s = analysed.shared?;
    let [_, load] = through_buffer(facts, &s, [&c.src.layout, live], c.element_bits)?;
    Some(load)
}

/// The store of `sides[0]` and the load of `sides[1]` through the buffer
/// Triton picked (`s`), by exact opcode.
fn through_buffer(
    facts: &crate::target::TargetFacts,
    s: &layout_algebra::triton::convert_layout::SharedRoundTrip,
    sides: [&LinearLayout; 2],
    bits: u32,
) -> Option<[crate::round_trip::RoundTripSide; 2]> {
    let machine = facts.machine();
    RoundTrip {
        sides,
        element_bits: bits,
        swizzle: &s.layout,
        kinds: [s.store, s.load],
        remote_load: s.remote_load,
        conflicts: [s.write_conflicts, s.read_conflicts],
    }
    .sides(&machine, machine.vendor, facts.threads_per_warp())
}
