//! CuTe's MMA and copy atoms, tiled MMAs and tiled copies (CONTRACT
//! section 2): building them from CUTLASS's names and asking for their
//! thread-value layouts. The facts and the algebra live in
//! [`layout_algebra::cute::atom`] and [`layout_algebra::cute::tiled`].

use layout_algebra::cute::atom::{CopyAtom, MmaAtom};
use layout_algebra::cute::partition::TensorLayout;
use layout_algebra::cute::tiled::{Operand, Side, TiledCopy, TiledMma};
use layout_algebra::cute::{IntTuple, Layout, Tiler};

use super::{Args, Builtin, Def, Group, Param, Type::*, opt, req};
use crate::context::{Cx, R};
use crate::diagnostic::Domain;
use crate::value::{CuteObject, Value};

const MMA: &[Param] = &[req("mma", MmaValue, "an MMA atom or a tiled MMA")];
const COPY: &[Param] = &[req("copy", TiledCopyValue, "a tiled copy")];
const COPY_ATOM_PARAM: Param = req("atom", CopyAtomValue, "a copy atom");
const COPY_ATOM: &[Param] = &[COPY_ATOM_PARAM];
const COPY_FOR_MMA: &[Param] = &[COPY_ATOM_PARAM, req("mma", TiledMmaValue, "a tiled MMA")];
const PARTITIONED: Param = req(
    "tensor",
    CuteLike,
    "the tensor's layout, plain or swizzled (its elements are numbered from 0)",
);
const THREAD: Param = req("thread", Int, "the thread index");
const COPY_PARTITION: &[Param] = &[
    req("copy", TiledCopyValue, "a tiled copy"),
    PARTITIONED,
    THREAD,
];
const MMA_PARTITION: &[Param] = &[
    req("mma", TiledMmaValue, "a tiled MMA"),
    PARTITIONED,
    THREAD,
];
const ANY_OBJECT: &[Param] = &[req(
    "x",
    CuteObjectValue,
    "an MMA or copy atom, or a tiled MMA",
)];

/// A layout-valued part of an atom or tiled object.
const fn part(
    name: &'static str,
    doc: &'static str,
    params: &'static [Param],
    body: super::Body,
) -> Builtin {
    Builtin {
        name,
        doc,
        result: Cute,
        def: Def::Fn(params, body),
    }
}

const fn tiled_copy_of(name: &'static str, doc: &'static str, body: super::Body) -> Builtin {
    Builtin {
        name,
        doc,
        result: Any,
        def: Def::Fn(COPY_FOR_MMA, body),
    }
}

pub(super) const GROUP: Group = Group {
    title: "CuTe atoms, tiled MMAs and tiled copies",
    builtins: &[
        Builtin {
            name: "mma_atom",
            doc: "CuTe's MMA_Atom of a CUTLASS operation (SM70-SM100): SM80_16x8x16_F32F16F16F32_TN, SM90_64x128x16_F32F16F16_SS<K,K>, SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,K,K>",
            result: Any,
            def: Def::Fn(
                &[req(
                    "op",
                    Str,
                    "the operation as CUTLASS names it, with its template arguments",
                )],
                mma_atom,
            ),
        },
        Builtin {
            name: "copy_atom",
            doc: "CuTe's Copy_Atom<op, value_type>: ldmatrix (SM75_U32x4_LDSM_N), stmatrix (SM90_U32x4_STSM_N), cp.async (SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>), UniversalCopy<uint128_t>, DefaultCopy",
            result: Any,
            def: Def::Fn(
                &[
                    req("op", Str, "the copy operation as CUTLASS names it"),
                    req(
                        "value_type",
                        Str,
                        "the element type: half_t, bfloat16_t, float, tfloat32_t, int8_t, float_e4m3_t, ...",
                    ),
                ],
                copy_atom,
            ),
        },
        Builtin {
            name: "tiled_mma",
            doc: "make_tiled_mma(atom, atom_layout, permutation): the atom repeated over an (M,N,K) layout of atoms, with CuTe's permutation tile",
            result: Any,
            def: Def::Fn(
                &[
                    req("atom", MmaAtomValue, "an MMA atom"),
                    opt(
                        "atom_layout",
                        Cute,
                        "the (M,N,K) layout of atoms, e.g. cute (2,2,1); one atom when absent",
                    ),
                    opt(
                        "permutation",
                        Tiler,
                        "CuTe's permutation tile <M,N,K>, e.g. <32,(8,2,2):(1,16,8),16>",
                    ),
                ],
                tiled_mma,
            ),
        },
        Builtin {
            name: "tiled_copy",
            doc: "make_tiled_copy(atom, thr_layout, val_layout): the atom repeated over a (m,n) -> thread layout, each thread moving a (m,n) -> value block",
            result: Any,
            def: Def::Fn(
                &[
                    COPY_ATOM_PARAM,
                    req(
                        "thr_layout",
                        Cute,
                        "(m,n) -> thread index, e.g. cute (16,8):(8,1)",
                    ),
                    opt(
                        "val_layout",
                        Cute,
                        "(m,n) -> value index of one thread, e.g. cute (1,8); one value when absent",
                    ),
                ],
                tiled_copy,
            ),
        },
        tiled_copy_of(
            "tiled_copy_a",
            "make_tiled_copy_A(atom, tiled_mma): the copy of the MMA's A tile with its thread-value layout",
            tiled_copy_a,
        ),
        tiled_copy_of(
            "tiled_copy_b",
            "make_tiled_copy_B(atom, tiled_mma): the copy of the MMA's B tile",
            tiled_copy_b,
        ),
        tiled_copy_of(
            "tiled_copy_c",
            "make_tiled_copy_C(atom, tiled_mma): the copy of the MMA's C tile",
            tiled_copy_c,
        ),
        part(
            "thr_id",
            "ThrID of an MMA or copy atom, or the (V,M,N,K) -> thread layout of a tiled MMA",
            ANY_OBJECT,
            thr_id,
        ),
        part(
            "layout_a_tv",
            "(thread, value) -> A coordinate: MMA_Traits' ALayout, or a tiled MMA's get_layoutA_TV",
            MMA,
            layout_a_tv,
        ),
        part(
            "layout_b_tv",
            "(thread, value) -> B coordinate: BLayout, or get_layoutB_TV",
            MMA,
            layout_b_tv,
        ),
        part(
            "layout_c_tv",
            "(thread, value) -> C coordinate: CLayout, or get_layoutC_TV",
            MMA,
            layout_c_tv,
        ),
        Builtin {
            name: "shape_mnk",
            doc: "Shape_MNK of an MMA atom, or the tile size (M,N,K) of a tiled MMA",
            result: IntTuple,
            def: Def::Fn(MMA, shape_mnk),
        },
        part(
            "layout_s_tv",
            "(thread, value) -> source coordinate of a tiled copy's tile (get_layoutS_TV)",
            COPY,
            layout_s_tv,
        ),
        part(
            "layout_d_tv",
            "(thread, value) -> destination coordinate (get_layoutD_TV)",
            COPY,
            layout_d_tv,
        ),
        Builtin {
            name: "tiler_mn",
            doc: "the tile shape of a tiled copy (Tiler_MN)",
            result: IntTuple,
            def: Def::Fn(COPY, tiler_mn),
        },
        Builtin {
            name: "partition_s",
            doc: "thread t's part of the copy's source tensor (thr_copy.partition_S of a tensor of indices)",
            result: Any,
            def: Def::Fn(COPY_PARTITION, partition_s),
        },
        Builtin {
            name: "partition_d",
            doc: "thread t's part of the copy's destination tensor (thr_copy.partition_D)",
            result: Any,
            def: Def::Fn(COPY_PARTITION, partition_d),
        },
        Builtin {
            name: "partition_a",
            doc: "thread t's part of the A tensor (thr_mma.partition_A of a tensor of indices)",
            result: Any,
            def: Def::Fn(MMA_PARTITION, partition_a),
        },
        Builtin {
            name: "partition_b",
            doc: "thread t's part of the B tensor (thr_mma.partition_B)",
            result: Any,
            def: Def::Fn(MMA_PARTITION, partition_b),
        },
        Builtin {
            name: "partition_c",
            doc: "thread t's part of the C tensor (thr_mma.partition_C)",
            result: Any,
            def: Def::Fn(MMA_PARTITION, partition_c),
        },
        part(
            "val_layout_src",
            "a copy atom's (thread, value) -> source element (ValLayoutSrc)",
            COPY_ATOM,
            val_layout_src,
        ),
        part(
            "val_layout_dst",
            "a copy atom's (thread, value) -> destination element (ValLayoutDst)",
            COPY_ATOM,
            val_layout_dst,
        ),
    ],
};

fn object(o: CuteObject) -> Value {
    Value::CuteAtom(Box::new(o))
}

fn cute(l: Layout) -> Value {
    Value::Cute(Box::new(l))
}

fn mma_atom(cx: &mut Cx, a: &Args) -> R<Value> {
    let name = a.string(cx, 0)?;
    let atom = cx.alg(MmaAtom::new(&name), Domain::Cute, a.get(0).1)?;
    Ok(object(CuteObject::MmaAtom(atom)))
}

fn copy_atom(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.string(cx, 0)?;
    let value_type = a.string(cx, 1)?;
    let atom = cx.alg(CopyAtom::new(&op, &value_type), Domain::Cute, a.span)?;
    Ok(object(CuteObject::CopyAtom(atom)))
}

/// Argument `i`, which the parameter's type admits as a CuTe object only.
fn cute_object(a: &Args, i: usize) -> &CuteObject {
    match a.get(i).0 {
        Value::CuteAtom(o) => o,
        _ => unreachable!("the parameter's type admits CuTe objects only"),
    }
}

fn the_mma_atom(a: &Args, i: usize) -> MmaAtom {
    let CuteObject::MmaAtom(m) = cute_object(a, i) else {
        unreachable!("the parameter's type admits MMA atoms only")
    };
    m.clone()
}

fn the_copy_atom(a: &Args, i: usize) -> CopyAtom {
    let CuteObject::CopyAtom(c) = cute_object(a, i) else {
        unreachable!("the parameter's type admits copy atoms only")
    };
    c.clone()
}

fn the_tiled_mma(a: &Args, i: usize) -> TiledMma {
    let CuteObject::TiledMma(m) = cute_object(a, i) else {
        unreachable!("the parameter's type admits tiled MMAs only")
    };
    m.clone()
}

fn the_tiled_copy(a: &Args) -> &TiledCopy {
    let CuteObject::TiledCopy(c) = cute_object(a, 0) else {
        unreachable!("the parameter's type admits tiled copies only")
    };
    c
}

fn tiled_mma(cx: &mut Cx, a: &Args) -> R<Value> {
    let atom = the_mma_atom(a, 0);
    let atom_layout = match a.opt(1) {
        Some((v, s)) => cx.cute_layout(v, s)?,
        None => Layout::parse("(1,1,1)").expect("a shape"),
    };
    let permutation: Option<Tiler> = match a.opt(2) {
        Some((v, s)) => Some(cx.tiler(v, s)?),
        None => None,
    };
    let tiled = cx.alg(
        TiledMma::new(atom, atom_layout, permutation),
        Domain::Cute,
        a.span,
    )?;
    Ok(object(CuteObject::TiledMma(tiled)))
}

fn tiled_copy(cx: &mut Cx, a: &Args) -> R<Value> {
    let atom = the_copy_atom(a, 0);
    let thr = a.cute(cx, 1)?;
    let val = match a.opt(2) {
        Some((v, s)) => cx.cute_layout(v, s)?,
        None => Layout::parse("1:0").expect("a layout"),
    };
    let tiled = cx.alg(
        TiledCopy::from_thr_val(atom, &thr, &val),
        Domain::Cute,
        a.span,
    )?;
    Ok(object(CuteObject::TiledCopy(tiled)))
}

fn tiled_copy_for(cx: &mut Cx, a: &Args, op: Operand) -> R<Value> {
    let atom = the_copy_atom(a, 0);
    let mma = the_tiled_mma(a, 1);
    let tiled = cx.alg(TiledCopy::for_mma(atom, &mma, op), Domain::Cute, a.span)?;
    Ok(object(CuteObject::TiledCopy(tiled)))
}

fn tiled_copy_a(cx: &mut Cx, a: &Args) -> R<Value> {
    tiled_copy_for(cx, a, Operand::A)
}

fn tiled_copy_b(cx: &mut Cx, a: &Args) -> R<Value> {
    tiled_copy_for(cx, a, Operand::B)
}

fn tiled_copy_c(cx: &mut Cx, a: &Args) -> R<Value> {
    tiled_copy_for(cx, a, Operand::C)
}

/// An MMA atom's traits layout or a tiled MMA's TV layout.
fn mma_part(cx: &mut Cx, a: &Args, op: Option<Operand>) -> R<Value> {
    match (cute_object(a, 0), op) {
        (CuteObject::MmaAtom(m), None) => Ok(cute(m.thr_id.clone())),
        (CuteObject::MmaAtom(m), Some(Operand::A)) => Ok(cute(m.a.clone())),
        (CuteObject::MmaAtom(m), Some(Operand::B)) => Ok(cute(m.b.clone())),
        (CuteObject::MmaAtom(m), Some(Operand::C)) => Ok(cute(m.c.clone())),
        (CuteObject::TiledMma(t), None) => Ok(cute(t.thr_layout_vmnk.clone())),
        (CuteObject::TiledMma(t), Some(op)) => {
            let l = cx.alg(t.layout_tv(op), Domain::Cute, a.span)?;
            Ok(cute(l))
        }
        (CuteObject::CopyAtom(c), None) => Ok(cute(c.thr_id.clone())),
        _ => unreachable!("the parameter's type admits MMAs only"),
    }
}

fn thr_id(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_part(cx, a, None)
}

fn layout_a_tv(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_part(cx, a, Some(Operand::A))
}

fn layout_b_tv(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_part(cx, a, Some(Operand::B))
}

fn layout_c_tv(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_part(cx, a, Some(Operand::C))
}

fn shape_mnk(_: &mut Cx, a: &Args) -> R<Value> {
    let shape = match cute_object(a, 0) {
        CuteObject::MmaAtom(m) => {
            IntTuple::Tuple(m.shape_mnk.iter().map(|&n| IntTuple::Int(n)).collect())
        }
        CuteObject::TiledMma(t) => t.tile_shape(),
        _ => unreachable!("the parameter's type admits MMAs only"),
    };
    Ok(Value::from_int_tuple(&shape))
}

fn layout_side(cx: &mut Cx, a: &Args, side: Side) -> R<Value> {
    let l = cx.alg(the_tiled_copy(a).layout_side_tv(side), Domain::Cute, a.span)?;
    Ok(cute(l))
}

fn layout_s_tv(cx: &mut Cx, a: &Args) -> R<Value> {
    layout_side(cx, a, Side::Source)
}

fn layout_d_tv(cx: &mut Cx, a: &Args) -> R<Value> {
    layout_side(cx, a, Side::Destination)
}

fn tiler_mn(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(Value::from_int_tuple(&the_tiled_copy(a).tiler))
}

fn val_layout_src(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(cute(the_copy_atom(a, 0).val_src))
}

fn val_layout_dst(_: &mut Cx, a: &Args) -> R<Value> {
    Ok(cute(the_copy_atom(a, 0).val_dst))
}

/// The tensor argument of a partition: a CuTe layout, plain or swizzled.
fn partitioned(cx: &mut Cx, a: &Args) -> R<TensorLayout> {
    match a.get(1) {
        (Value::Swizzled(s), _) => Ok(TensorLayout::Swizzled((**s).clone())),
        (v, s) => Ok(TensorLayout::Plain(cx.cute_layout(v, s)?)),
    }
}

fn copy_partition(cx: &mut Cx, a: &Args, side: Side) -> R<Value> {
    let tensor = partitioned(cx, a)?;
    let thread = a.int(cx, 2)?;
    let r = the_tiled_copy(a).partition_thread(&tensor, side, thread);
    let t = cx.alg(r, Domain::Cute, a.span)?;
    Ok(Value::CuteTensor(Box::new(t)))
}

fn partition_s(cx: &mut Cx, a: &Args) -> R<Value> {
    copy_partition(cx, a, Side::Source)
}

fn partition_d(cx: &mut Cx, a: &Args) -> R<Value> {
    copy_partition(cx, a, Side::Destination)
}

fn mma_partition(cx: &mut Cx, a: &Args, op: Operand) -> R<Value> {
    let tensor = partitioned(cx, a)?;
    let thread = a.int(cx, 2)?;
    let r = the_tiled_mma(a, 0).partition_thread(op, &tensor, thread);
    let t = cx.alg(r, Domain::Cute, a.span)?;
    Ok(Value::CuteTensor(Box::new(t)))
}

fn partition_a(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_partition(cx, a, Operand::A)
}

fn partition_b(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_partition(cx, a, Operand::B)
}

fn partition_c(cx: &mut Cx, a: &Args) -> R<Value> {
    mma_partition(cx, a, Operand::C)
}
