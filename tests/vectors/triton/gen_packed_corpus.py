#!/usr/bin/env python3
"""Narrow elements on NVIDIA: how LLVM types the halves and bytes it moves through shared memory.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_packed_corpus.py            # writes the corpus (about 2 minutes)
    python3 tests/vectors/triton/gen_packed_corpus.py --check 15  # every 15th dump again

Triton's lowering moves two or four 16-bit elements as ``<2 x half>`` / ``<4 x half>`` and two
bytes as ``<2 x i8>``; LLVM retypes them as words where they live in words, and splits booleans into bytes. Ten
families:

* ``epilogue_<M>x<N>w<warps>_<dtype>_<alignment>_<use>_<target>``: one tile product (``tl.dot``,
  f32 accumulator) truncated to f16 or bf16 (``arith.truncf``), optionally scaled by a constant
  in 16-bit arithmetic (``use`` = ``store`` / ``scaled``), and stored; the accumulator's layout
  differs from the store's, so the result goes through shared memory. The halves are stored as
  words where ``cvt.rn.f16x2.f32`` packs two conversions into one register (sm86 on; sm80 only
  where the two are packed as they are, not through arithmetic or out of a loop) or a vectorised
  global load read them, and loaded as words where the global store writes vectors: ``alignment`` = ``aligned`` (pointers and stride divisible by
  16), ``pointer`` (the output pointer without ``tt.divisibility``), ``stride`` (the row stride
  without it), ``masked`` / ``ragged`` (the store masked by a column bound with and without
  ``tt.divisibility``: a mask keeps the vector only as wide as its runs of equal bits). Five tile shapes and warp counts (``16x16`` on one warp to ``128x64`` on eight),
  f16 and bf16 alternately by shape; sm80, sm86, sm89, sm90, sm100.
* ``upcast_<kind>_<dtype>_<target>``: fp8 (``fp8e4nv``, ``fp8e5``) read from shared memory and
  converted to a wider float (``tt.fp_to_fp``): ``dot`` and ``dot1`` an fp8 operand of an f16 dot
  (64x64x64 on four warps, 16x16x32 on one), ``to16`` and ``to32`` a transposing store of fp8
  converted to f16 or f32. A conversion to a 16-bit float takes two bytes from one 16-bit
  register, so LLVM reads them as one word; to f32 they stay bytes. sm89, sm90, sm100 (e4m3),
  and sm80, sm86 too for e5m2.

* ``matmul_<M>x<N>x<K>w<warps>s<stages>_<dtype>_<target>``: ``gen_ttgir_corpus.py``'s tutorial matmul
  (masked loads and stores whose bounds are divisible by 16, as a launch specialises them) with small
  tiles, f16 and bf16 results, on sm80, sm89, sm90: the masks keep the global vectors, so the
  epilogue's loads are words.
* ``convert_<i>_<mode>_<target>``: a Gluon kernel that loads f16 or bf16 in a blocked layout drawn at
  random (2, 4 or 8 elements per thread along a random dim: along the rows' contiguous addresses or
  across them), converts it to a row-major blocked layout of 2 or 4, and stores it, with
  ``mode`` = ``plain``, ``before`` (squared before the conversion) or ``after`` (doubled after it);
  24 draws on sm80, sm89, sm90. Halves loaded in vectors are stored as words only where the load
  moved vectors (its dim is the addresses' contiguous one) and the shared store's vector lies
  within one; loaded as words only where the global store's vector holds the shared load's.

* ``mask_<i>_<use>_<target>``: a Gluon kernel that compares bytes loaded in one blocked layout
  (``i1``), converts the booleans to another (both drawn at random, 1 to 16 bytes per thread), and
  uses them as a ``where`` condition (``where``), as a float (``value``, extended) or as a store's mask
  (``mask``); 14 draws on sm80 and sm90. A condition or a mask is read as ``<16 x i1>`` /
  ``<32 x i1>``, whose bytes NVPTX loads apart (``ld.shared.b8``, ``ld.shared.b16``).

* ``gather_<M>x<N>w<warps>_axis<axis>_<dtype>_<use>_<target>``: ``tl.gather`` of halves within warps
  along the rows or the columns, stored as it is or scaled by a constant (``use`` = ``store`` /
  ``scaled``); sm80, sm89, sm90. Triton gathers with 32-bit ``shfl.sync``, so the gathered halves
  sit one to a 32-bit register and LLVM packs any two into a word (``prmt``): the conversion after
  the gather stores words (behind 16-bit arithmetic from sm86 on, as for conversions); it loads
  words only where each word's halves are neighbours in one global vector, not a vector across
  rows.

* ``any_<M>x<N>w<warps>_axis<axis>_<use>_<target>``: ``tl.reduce_or`` of booleans along the rows or
  the columns, the result stored as bytes (``arith.extui`` to ``i8``) or used as a store's mask;
  sm80, sm90, sm100. The combine takes each round's partials as ``i1``, so they are read bytes
  apart as a condition is; bytes extended from booleans are read two as one 16-bit word.
* ``mask100_<i>_<use>_sm100``: the ``mask`` kernel's draws from another seed on sm100, whose NVPTX
  moves vectors of eight and sixteen booleans in 64-bit words (``ld.shared.b64``, ``.v2.b64``).

* ``atomic_<dtype>_<elements>_mod<k>_<use>_<target>``: ``tl.atomic_add`` of halves into the counters
  ``o % k`` (``use`` = ``all`` / ``masked``), the old values stored; f16 for every ``k``, bf16 masked;
  sm80, sm89, sm90. Before sm90 an f16 add moves two halves as one word (``atom.add.noftz.f16x2``),
  in and out, where the pointers' runs (``o % k`` keeps runs of ``k``) allow; sm90 adds vectors of
  16-bit registers (``.v2.f16``), and bf16 before it goes through a compare-and-swap loop.

* ``mixed_<M>x<N>x<K>w<warps>_ta<0|1>_tb<0|1>_<a|b><dtype>_<target>``: a dot of f16 with an ``i8``
  or fp8 operand (``a`` or ``b``) converted to f16 in registers, each operand stored K-major or
  not (``ta``, ``tb``); sm80, sm90. The f16 operand beside it is read with ``ld.shared`` (its
  ``kWidth`` of 4 rules out ``ldmatrix``) and taken two halves to a register, so LLVM reads the
  pairs as words; bytes read one at a time and only sign-extended are read with ``ld.shared.s8``.

It writes, under ``tests/corpus/packed/``, the dumps (``CompiledKernel.asm["ttgir"]`` without its
location information) and ``manifest.json``: one ``{"file", "target", "shared_bytes",
"shared_mnemonics"}`` per dump -- ``metadata.shared`` and every ``ld/st.shared`` and
``ld/stmatrix`` opcode of the PTX with its count (``gen_ttgir_corpus.py``'s counter).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as base  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)
import gen_scratch_corpus as scratch  # noqa: E402  (random layouts' helpers, the command line)
from gen_ptx_answers import _offsets  # noqa: E402  (row-major offsets of a Gluon layout)

import itertools  # noqa: E402
import random  # noqa: E402

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

OUT_DIR = os.path.join(base.REPO_ROOT, "tests", "corpus", "packed")

TARGETS = [
    ("sm80", GPUTarget("cuda", 80, 32)),
    ("sm86", GPUTarget("cuda", 86, 32)),
    ("sm89", GPUTarget("cuda", 89, 32)),
    ("sm90", GPUTarget("cuda", 90, 32)),
    ("sm100", GPUTarget("cuda", 100, 32)),
]
SHAPES = [(16, 16, 16, 1), (32, 32, 32, 2), (64, 64, 32, 4), (128, 64, 32, 8), (64, 16, 16, 2)]
ALIGNMENTS = {
    "aligned": ["a_ptr", "b_ptr", "c_ptr", "stride_cm"],
    "pointer": ["a_ptr", "b_ptr", "stride_cm"],
    "stride": ["a_ptr", "b_ptr", "c_ptr"],
}


@triton.jit
def epilogue(a_ptr, b_ptr, c_ptr, stride_cm, n, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
             SCALED: tl.constexpr, MASKED: tl.constexpr):
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
    b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    c = tl.dot(a, b).to(c_ptr.dtype.element_ty)
    if SCALED:
        c = c * 2
    if MASKED:
        tl.store(c_ptr + om[:, None] * stride_cm + on[None, :], c, mask=on[None, :] < n)
    else:
        tl.store(c_ptr + om[:, None] * stride_cm + on[None, :], c)


@triton.jit
def upcast_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    a = tl.load(a_ptr + om[:, None] * K + ok[None, :]).to(tl.float16)
    b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    tl.store(c_ptr + om[:, None] * N + on[None, :], tl.dot(a, b).to(tl.float16))


@triton.jit
def upcast_transposed(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + om * N + on)
    tl.store(y_ptr + on * M + om, x.to(y_ptr.dtype.element_ty))


@triton.jit
def gather(x_ptr, i_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, SCALED: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    g = tl.gather(tl.load(x_ptr + om * N + on), tl.load(i_ptr + om * N + on), axis=AXIS)
    if SCALED:
        g = g * 2
    tl.store(y_ptr + om * N + on, g)


@triton.jit
def any_along(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, MASK: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    found = tl.reduce_or(tl.load(x_ptr + om * N + on) > 0, AXIS)
    o = tl.arange(0, N) if AXIS == 0 else tl.arange(0, M)
    if MASK:
        tl.store(z_ptr + o, tl.load(y_ptr + o), mask=found)
    else:
        tl.store(y_ptr + o, found.to(tl.int8))


@triton.jit
def atomic_add(x_ptr, c_ptr, y_ptr, n, BLOCK: tl.constexpr, MOD: tl.constexpr, MASKED: tl.constexpr):
    o = tl.arange(0, BLOCK)
    if MASKED:
        old = tl.atomic_add(c_ptr + (o % MOD), tl.load(x_ptr + o), mask=o < n)
    else:
        old = tl.atomic_add(c_ptr + (o % MOD), tl.load(x_ptr + o))
    tl.store(y_ptr + o, old)


@triton.jit
def mixed_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, TA: tl.constexpr,
              TB: tl.constexpr, QA: tl.constexpr):
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    if TA:
        a = tl.trans(tl.load(a_ptr + ok[:, None] * M + om[None, :]))
    else:
        a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
    if TB:
        b = tl.trans(tl.load(b_ptr + on[:, None] * K + ok[None, :]))
    else:
        b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    if QA:
        a = a.to(tl.float16)
    else:
        b = b.to(tl.float16)
    tl.store(c_ptr + om[:, None] * N + on[None, :], tl.dot(a, b).to(tl.float16))


@gluon.jit
def convert(ptr, out, M: gl.constexpr, N: gl.constexpr, A: gl.constexpr, B: gl.constexpr, MODE: gl.constexpr):
    am = gl.arange(0, M, layout=gl.SliceLayout(1, A))
    an = gl.arange(0, N, layout=gl.SliceLayout(0, A))
    x = gl.load(ptr + am[:, None] * N + an[None, :])
    if MODE == 1:
        x = x * x
    y = gl.convert_layout(x, B)
    if MODE == 2:
        y = y + y
    bm = gl.arange(0, M, layout=gl.SliceLayout(1, B))
    bn = gl.arange(0, N, layout=gl.SliceLayout(0, B))
    gl.store(out + bm[:, None] * N + bn[None, :], y)


CONVERT_DRAWS = 24
CONVERT_TARGETS = [("sm80", GPUTarget("cuda", 80, 32)), ("sm89", GPUTarget("cuda", 89, 32)),
                   ("sm90", GPUTarget("cuda", 90, 32))]


def random_blocked(rng, vector, order):
    """``vector`` elements per thread along ``order[0]``; 32 lanes and 4 warps split at random."""
    size = [1, 1]
    size[order[0]] = vector
    lanes, warps = [1, 1], [1, 1]
    for _ in range(5):
        lanes[rng.choice([0, 1])] *= 2
    for _ in range(2):
        warps[rng.choice([0, 1])] *= 2
    return gl.BlockedLayout(size, lanes, warps, order)


@gluon.jit
def mask(m_ptr, x_ptr, y_ptr, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
         USE: gl.constexpr):
    c = gl.convert_layout(gl.load(m_ptr + _offsets(SRC, M, N)) != 0, DST)
    x = gl.load(x_ptr + _offsets(DST, M, N))
    if USE == 0:
        gl.store(y_ptr + _offsets(DST, M, N), gl.where(c, x, 0.0))
    elif USE == 1:
        gl.store(y_ptr + _offsets(DST, M, N), x + c.to(gl.float32))
    else:
        gl.store(y_ptr + _offsets(DST, M, N), x, mask=c)


MASK_DRAWS = 14
MASK_TARGETS = [("sm80", GPUTarget("cuda", 80, 32)), ("sm90", GPUTarget("cuda", 90, 32))]
MASK_DRAWS_SM100 = 16
MASK_TARGETS_SM100 = [("sm100", GPUTarget("cuda", 100, 32))]


MATMULS = [(32, 32, 32, 1, 2), (16, 64, 32, 2, 3), (64, 32, 16, 2, 1), (32, 64, 64, 4, 2), (64, 64, 32, 4, 1)]


UPCASTS = [
    ("dot", upcast_dot, "fp16", {"M": 64, "N": 64, "K": 64}, 4),
    ("dot1", upcast_dot, "fp16", {"M": 16, "N": 16, "K": 32}, 1),
    ("to16", upcast_transposed, "fp16", {"M": 64, "N": 64}, 4),
    ("to32", upcast_transposed, "fp32", {"M": 64, "N": 64}, 4),
]


def cases():
    """Every (dump name, target name, target, compile) of the corpus, in order."""
    for i, (m, n, k, warps) in enumerate(SHAPES):
        dtype = ["fp16", "bf16"][i % 2]
        for alignment, divisible in ALIGNMENTS.items():
            for use in ["store", "scaled"]:
                for target_name, target in TARGETS:
                    sig = {"a_ptr": "*" + dtype, "b_ptr": "*" + dtype, "c_ptr": "*" + dtype, "stride_cm": "i32",
                           "n": "i32", "M": "constexpr", "N": "constexpr", "K": "constexpr",
                           "SCALED": "constexpr", "MASKED": "constexpr"}
                    consts = {"M": m, "N": n, "K": k, "SCALED": use == "scaled", "MASKED": False}
                    yield (f"epilogue_{m}x{n}w{warps}_{dtype}_{alignment}_{use}_{target_name}.ttgir", target_name,
                           target, lambda sig=sig, consts=consts, divisible=divisible, target=target, warps=warps:
                           base.compile_case(epilogue, sig, consts, divisible, target, {"num_warps": warps}))
    # A store masked by its columns' bound: the bound's divisibility caps the vector.
    for i, (m, n, k, warps) in enumerate(SHAPES):
        dtype = ["fp16", "bf16"][i % 2]
        for bound, divisible in [("masked", ["a_ptr", "b_ptr", "c_ptr", "stride_cm", "n"]),
                                 ("ragged", ["a_ptr", "b_ptr", "c_ptr", "stride_cm"])]:
            for target_name, target in TARGETS:
                sig = {"a_ptr": "*" + dtype, "b_ptr": "*" + dtype, "c_ptr": "*" + dtype, "stride_cm": "i32",
                       "n": "i32", "M": "constexpr", "N": "constexpr", "K": "constexpr",
                       "SCALED": "constexpr", "MASKED": "constexpr"}
                consts = {"M": m, "N": n, "K": k, "SCALED": False, "MASKED": True}
                yield (f"epilogue_{m}x{n}w{warps}_{dtype}_{bound}_store_{target_name}.ttgir", target_name, target,
                       lambda sig=sig, consts=consts, divisible=divisible, target=target, warps=warps:
                       base.compile_case(epilogue, sig, consts, divisible, target, {"num_warps": warps}))
    for kind, fn, out, consts, warps in UPCASTS:
        for dtype in ["fp8e4nv", "fp8e5"]:
            for target_name, target in TARGETS:
                if dtype == "fp8e4nv" and target_name in ("sm80", "sm86"):
                    continue  # no e4m3 before sm89
                names = fn.arg_names
                sig = {names[0]: "*" + dtype, names[1]: "*" + out if fn is upcast_transposed else "*fp16"}
                if fn is upcast_dot:
                    sig["c_ptr"] = "*" + out
                sig.update({k: "constexpr" for k in consts})
                pointers = [a for a in names if a.endswith("_ptr")]
                yield (f"upcast_{kind}_{dtype}_{target_name}.ttgir", target_name, target,
                       lambda fn=fn, sig=sig, consts=consts, pointers=pointers, target=target, warps=warps:
                       base.compile_case(fn, sig, consts, pointers, target, {"num_warps": warps}))
    # The tutorial's pipelined matmul of halves (masked loads and stores, bounds divisible by 16).
    for m, n, k, warps, stages in MATMULS:
        for dtype in ["fp16", "bf16"]:
            for target_name, target in CONVERT_TARGETS:
                sig = base._mm_sig("*" + dtype, "*" + dtype, "*" + dtype)
                consts = {"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8}
                yield (f"matmul_{m}x{n}x{k}w{warps}s{stages}_{dtype}_{target_name}.ttgir", target_name, target,
                       lambda sig=sig, consts=consts, target=target, warps=warps, stages=stages: base.compile_case(
                           base.matmul_fp16, sig, consts, base.MM_DIV, target,
                           {"num_warps": warps, "num_stages": stages}))
    yield from convert_cases()
    yield from mask_cases()
    yield from gather_cases()
    yield from any_cases()
    yield from mask_cases(seed=21, draws=MASK_DRAWS_SM100, targets=MASK_TARGETS_SM100, prefix="mask100")
    yield from atomic_cases()
    yield from mixed_cases()


def convert_cases():
    """The conversions, drawn from a fixed seed."""
    rng = random.Random(5)
    for i in range(CONVERT_DRAWS):
        dtype = rng.choice(["fp16", "bf16"])
        m, n = rng.choice([(64, 64), (128, 64), (64, 128)])
        va, vb = rng.choice([8, 4, 2]), rng.choice([4, 2])
        a = random_blocked(rng, va, rng.choice([[1, 0], [0, 1]]))
        b = random_blocked(rng, vb, [1, 0])
        mode = ["plain", "before", "after"][i % 3]
        for target_name, target in CONVERT_TARGETS:
            src = GluonASTSource(
                convert,
                signature={"ptr": "*" + dtype, "out": "*" + dtype, "M": "constexpr", "N": "constexpr",
                           "A": "constexpr", "B": "constexpr", "MODE": "constexpr"},
                constexprs={"M": m, "N": n, "A": a, "B": b, "MODE": i % 3},
                attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
            yield (f"convert_{i}_{mode}_{target_name}.ttgir", target_name, target,
                   lambda src=src, target=target: triton.compile(src, target=target, options={"num_warps": 4}))


def mask_cases(seed=7, draws=None, targets=None, prefix="mask"):
    """The boolean conversions, drawn from a fixed seed."""
    rng = random.Random(seed)
    for i in range(MASK_DRAWS if draws is None else draws):
        m, n = rng.choice([(64, 64), (32, 128), (128, 32)])
        va, vb = rng.choice([1, 2, 4, 8, 16]), rng.choice([1, 2, 4, 8, 16])
        use = i % 3
        for target_name, target in MASK_TARGETS if targets is None else targets:
            a = random_blocked(rng, va, rng.choice([[1, 0], [0, 1]]))
            b = random_blocked(rng, vb, rng.choice([[1, 0], [0, 1]]))
            src = GluonASTSource(
                mask,
                signature={"m_ptr": "*i8", "x_ptr": "*fp32", "y_ptr": "*fp32", "SRC": "constexpr",
                           "DST": "constexpr", "M": "constexpr", "N": "constexpr", "USE": "constexpr"},
                constexprs={"SRC": a, "DST": b, "M": m, "N": n, "USE": use},
                attrs={(k,): [["tt.divisibility", 16]] for k in range(3)})
            yield (f"{prefix}_{i}_{['where', 'value', 'mask'][use]}_{target_name}.ttgir", target_name, target,
                   lambda src=src, target=target: triton.compile(src, target=target, options={"num_warps": 4}))


# (M, N, warps, axis): gathers within warps (``efficient_layout``) along the rows and the columns.
GATHERS = [(64, 32, 4, 0), (64, 32, 4, 1), (32, 64, 4, 0), (32, 64, 4, 1), (128, 32, 8, 1)]


def gather_cases():
    """Gathers of halves within warps, as they are and scaled by a constant in 16-bit arithmetic."""
    for i, (m, n, warps, axis) in enumerate(GATHERS):
        dtype = ["fp16", "bf16"][i % 2]
        for use in ["store", "scaled"]:
            for target_name, target in CONVERT_TARGETS:
                sig = {"x_ptr": "*" + dtype, "i_ptr": "*i32", "y_ptr": "*" + dtype, "M": "constexpr",
                       "N": "constexpr", "AXIS": "constexpr", "SCALED": "constexpr"}
                consts = {"M": m, "N": n, "AXIS": axis, "SCALED": use == "scaled"}
                yield (f"gather_{m}x{n}w{warps}_axis{axis}_{dtype}_{use}_{target_name}.ttgir", target_name, target,
                       lambda sig=sig, consts=consts, target=target, warps=warps: base.compile_case(
                           gather, sig, consts, ["x_ptr", "i_ptr", "y_ptr"], target, {"num_warps": warps}))


# (M, N, warps): boolean reductions along each axis, the result stored as bytes or used as a mask.
ANY_SHAPES = [(64, 64, 4), (128, 32, 8), (32, 256, 4), (256, 16, 2)]
ANY_TARGETS = [("sm80", GPUTarget("cuda", 80, 32)), ("sm90", GPUTarget("cuda", 90, 32)),
               ("sm100", GPUTarget("cuda", 100, 32))]


def any_cases():
    """``tl.reduce_or`` of booleans along the rows and the columns."""
    for m, n, warps in ANY_SHAPES:
        for axis in [0, 1]:
            for use in ["bytes", "mask"]:
                for target_name, target in ANY_TARGETS:
                    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32" if use == "mask" else "*i8", "z_ptr": "*fp32",
                           "M": "constexpr", "N": "constexpr", "AXIS": "constexpr", "MASK": "constexpr"}
                    consts = {"M": m, "N": n, "AXIS": axis, "MASK": use == "mask"}
                    yield (f"any_{m}x{n}w{warps}_axis{axis}_{use}_{target_name}.ttgir", target_name, target,
                           lambda sig=sig, consts=consts, target=target, warps=warps: base.compile_case(
                               any_along, sig, consts, ["x_ptr", "y_ptr", "z_ptr"], target, {"num_warps": warps}))


# (dtype, elements, modulus of the counters' index, masked): 16-bit atomic adds returning the old values.
ATOMICS = [("fp16", block, mod, False) for block in (256, 512, 1024) for mod in (2, 8, 64)] + \
    [("fp16", block, 64, True) for block in (256, 512, 1024)] + \
    [("bf16", block, 64, True) for block in (256, 512, 1024)]


def atomic_cases():
    """``tl.atomic_add`` of halves into ``o % MOD`` counters, the old values stored."""
    for dtype, block, mod, masked in ATOMICS:
        for target_name, target in CONVERT_TARGETS:
            sig = {"x_ptr": "*" + dtype, "c_ptr": "*" + dtype, "y_ptr": "*" + dtype, "n": "i32",
                   "BLOCK": "constexpr", "MOD": "constexpr", "MASKED": "constexpr"}
            consts = {"BLOCK": block, "MOD": mod, "MASKED": masked}
            use = "masked" if masked else "all"
            yield (f"atomic_{dtype}_{block}_mod{mod}_{use}_{target_name}.ttgir", target_name, target,
                   lambda sig=sig, consts=consts, target=target: base.compile_case(
                       atomic_add, sig, consts, ["x_ptr", "c_ptr", "y_ptr", "n"], target, {"num_warps": 4}))


MIXED_SHAPES = [(64, 64, 64, 4), (16, 32, 64, 1)]
MIXED_TARGETS = [("sm80", GPUTarget("cuda", 80, 32)), ("sm90", GPUTarget("cuda", 90, 32))]


def mixed_cases():
    """Dots of f16 with i8 or fp8 converted to f16 in registers, each operand stored either way."""
    for m, n, k, warps in MIXED_SHAPES:
        for ta, tb, qa in itertools.product([0, 1], [0, 1], [0, 1]):
            for q in ["i8", "fp8e5"]:
                for target_name, target in MIXED_TARGETS:
                    sig = {"a_ptr": "*" + (q if qa else "fp16"), "b_ptr": "*" + ("fp16" if qa else q),
                           "c_ptr": "*fp16", "M": "constexpr", "N": "constexpr", "K": "constexpr",
                           "TA": "constexpr", "TB": "constexpr", "QA": "constexpr"}
                    consts = {"M": m, "N": n, "K": k, "TA": ta, "TB": tb, "QA": qa}
                    name = f"mixed_{m}x{n}x{k}w{warps}_ta{ta}_tb{tb}_{'a' if qa else 'b'}{q}_{target_name}.ttgir"
                    yield (name, target_name, target,
                           lambda sig=sig, consts=consts, target=target, warps=warps: base.compile_case(
                               mixed_dot, sig, consts, ["a_ptr", "b_ptr", "c_ptr"], target, {"num_warps": warps}))


def main():
    for fn in (epilogue, upcast_dot, upcast_transposed, gather, any_along, atomic_add, mixed_dot):
        fn.file_name = base.SCRIPT_REL.replace("gen_ttgir_corpus", "gen_packed_corpus")
    scratch.run("gen_packed_corpus.py", OUT_DIR, cases)


if __name__ == "__main__":
    main()
