#!/usr/bin/env python3
"""Shared-memory swizzle regression corpus for layoutc, produced with the Triton 3.9.0 wheel.

Triton version: 3.9.0 (``pip install triton==3.9.0``; CPU-only machine, no GPU needed).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_swizzle_corpus.py

It rewrites ``tests/vectors/triton/swizzle_corpus.json`` next to this script. Every random
choice comes from ``random.Random(SEED)``, the cases are evaluated in a fixed order and the
pairs are written sorted by name, so the output is deterministic.

Each pair is a ``convert_layout`` between two distributed layouts of the same tensor: the
source layout writes the tensor into shared memory and the destination layout reads it back.
The solver test takes both linear layouts and checks that the shared layout it picks is no
worse (in bank conflicts / wavefronts) than Triton's own swizzle for the same pair.

Coverage: blocked (coalesced loads/stores in both orders, random), nvidia_mma v2 and v3
(wgmma) accumulators, amd_mfma accumulators (32x32 and 16x16, transposed or not, 64-bit),
dot operands (opIdx 0 and 1 of mma v2 / mfma parents, and the register A operand of wgmma),
slices (of blocked, mma and mfma parents; rank-1 results and rank-2 slices of rank-3
parents), linear layouts (permuted bases of a real layout, random permutations) and a few
rank-3 tensors; element widths 8/16/32/64 bits; 2, 4 and 8 warps; shapes 16x16 .. 128x128.

For every pair the wheel lowers both layouts with ``GluonOpBuilder.to_linear_layout`` (in a
forked child: C++ asserts abort) and prints both attributes. A pair is kept only when both
layouts are accepted, both cover exactly the tensor shape, both have log2(num_warps) warp
bases, log2(warp_size) lane bases and no block bases (one CTA), and the two linear layouts
differ (an identical pair is a no-op and needs no shared memory). Duplicates (same two
linear layouts, shape and element width) are dropped. Pairs on 32-lane warps are also
compiled, each in a forked child with a time limit, as a tiny Gluon kernel (load in the
source layout, ``gl.convert_layout``, store in the destination layout) for
``GPUTarget("cuda", 90, 32)``, as ``gen_convert_vectors.py`` does; the kernel's shared
memory and the PTX instruction counts that show the lowering are recorded.

Only the installed wheel is called; no Triton source is copied here.
"""

import json
import os
import random
import re
import shutil
import sys
import tempfile
import time

TRITON_VERSION = "3.9.0"
COMMAND = "python3 tests/vectors/triton/gen_swizzle_corpus.py"
SEED = 0x5A122
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swizzle_corpus.json")
COMPILE_TIMEOUT_S = 60

# Compiled kernels go to a private cache that is removed at the end (no reuse between runs).
_CACHE_DIR = tempfile.mkdtemp(prefix="layoutc_swizzle_corpus_")
os.environ["TRITON_CACHE_DIR"] = _CACHE_DIR
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Forked oracle calls, one-case-per-line JSON, params -> Gluon layout objects, printed attributes.
from gen_triton_vectors import B, dump, isolated, make_layout, ttgir_of  # noqa: E402
# The 1-D and 2-D convert kernels.
from gen_convert_vectors import cvt1d, cvt2d  # noqa: E402

PTR_BY_BITS = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*fp64"}
PTX_OPS = ["st.shared", "ld.shared", "stmatrix", "ldmatrix", "shfl.sync", "bar.sync"]
TARGET_BY_KIND = {"cuda90": "cuda:90", "cuda80": "cuda:80", "hip": "hip:gfx942"}
COMPILE_TARGET = "cuda:90"


@gluon.jit
def cvt3d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, A: gl.constexpr, M: gl.constexpr,
          N: gl.constexpr):
    sa = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, SRC)))
    sm = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, SRC)))
    sn = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, SRC)))
    x = gl.load(ptr + sa[:, None, None] * (M * N) + sm[None, :, None] * N + sn[None, None, :])
    y = gl.convert_layout(x, DST)
    da = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, DST)))
    dm = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, DST)))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, DST)))
    gl.store(out + da[:, None, None] * (M * N) + dm[None, :, None] * N + dn[None, None, :], y)


# --------------------------------------------------------------------------------------
# Oracle children
# --------------------------------------------------------------------------------------

def _ll_json(res):
    bases = [["register", res.reg_bases], ["lane", res.lane_bases], ["warp", res.warp_bases],
             ["block", res.block_bases]]
    return {"bases": [[name, [list(v) for v in vs]] for name, vs in bases],
            "outs": [[f"dim{i}", int(s)] for i, s in enumerate(res.shape)]}


def _side_child(params, shape, bits):
    attr = make_layout(params)._to_ir(B)
    ll = _ll_json(B.to_linear_layout(attr, list(shape)))
    return {"ll": ll, "ttgir": ttgir_of(attr, shape, False, bits)}


def _pair_child(src, dst, shape, bits):
    return [_side_child(src, shape, bits), _side_child(dst, shape, bits)]


def _compile_child(case):
    shape = case["shape"]
    ptr = PTR_BY_BITS[case["bits"]]
    if len(shape) == 1:
        fn, consts = cvt1d, {"M": shape[0]}
    elif len(shape) == 2:
        fn, consts = cvt2d, {"M": shape[0], "N": shape[1]}
    else:
        fn, consts = cvt3d, {"A": shape[0], "M": shape[1], "N": shape[2]}
    sig = {"ptr": ptr, "out": ptr, "SRC": "constexpr", "DST": "constexpr"}
    sig.update({k: "constexpr" for k in consts})
    consts["SRC"] = make_layout(case["src_params"])
    consts["DST"] = make_layout(case["dst_params"])
    src = GluonASTSource(fn, signature=sig, constexprs=consts)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": case["num_warps"], "num_ctas": 1})
    ptx = k.asm["ptx"]
    counts = {op: len(re.findall(r"\b" + re.escape(op) + r"\b", ptx)) for op in PTX_OPS}
    converts = sum(1 for ln in k.asm["ttgir"].splitlines() if "ttg.convert_layout" in ln)
    shared = k.metadata.shared
    if converts == 0:
        lowering = "none"
    elif shared:
        lowering = "shared_memory"
    elif counts["shfl.sync"]:
        lowering = "warp_shuffle"
    else:
        lowering = "registers"
    return {"shared_bytes": shared, "ptx": counts, "converts_in_ttgir": converts, "lowering": lowering}


# --------------------------------------------------------------------------------------
# Layout params (Triton attribute names, as in generated.json; one CTA)
# --------------------------------------------------------------------------------------

def log2(x):
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


def blocked(spt, tpw, wpc, order):
    return {"kind": "blocked", "sizePerThread": list(spt), "threadsPerWarp": list(tpw),
            "warpsPerCTA": list(wpc), "order": list(order), "CGALayout": []}


def mma(major, wpc, instr):
    return {"kind": "nvidia_mma", "versionMajor": major, "versionMinor": 0, "warpsPerCTA": list(wpc),
            "instrShape": list(instr), "CGALayout": []}


def mfma(instr, wpc, transposed, ebw=32, version=3, tiles=None):
    return {"kind": "amd_mfma", "version": version, "warpsPerCTA": list(wpc), "instrShape": list(instr),
            "isTransposed": transposed, "tilesPerWarp": list(tiles or [1] * len(wpc)),
            "elementBitWidth": ebw, "CGALayout": []}


def dot(op_idx, parent, k_width):
    return {"kind": "dot_op", "opIdx": op_idx, "kWidth": k_width, "parent": parent}


def sliced(dim, parent):
    return {"kind": "slice", "dim": dim, "parent": parent}


def linear(reg, lane, warp, shape):
    return {"kind": "linear", "register": reg, "lane": lane, "warp": warp, "block": [], "shape": list(shape)}


def coalesced(shape, bits, num_warps, warp_size, order, vec_bytes=16):
    """Triton-style coalesced blocked layout: vectors of up to 16 bytes along the fastest dim
    (no more than the tensor gives each thread, as Triton's coalesce pass does), lanes and then
    warps filled fastest dim first, the rest put on the slowest dim."""
    rank = len(shape)
    spt, tpw, wpc = [1] * rank, [1] * rank, [1] * rank
    numel = 1
    for s in shape:
        numel *= s
    per_thread = max(1, numel // (warp_size * num_warps))
    spt[order[0]] = max(1, min(vec_bytes * 8 // bits, shape[order[0]], per_thread))
    lanes = warp_size
    for d in order:
        t = max(1, min(lanes, shape[d] // spt[d]))
        tpw[d] = t
        lanes //= t
    tpw[order[-1]] *= lanes
    warps = num_warps
    for d in reversed(order):  # warps on the slowest dims first
        w = max(1, min(warps, shape[d] // (spt[d] * tpw[d])))
        wpc[d] = w
        warps //= w
    wpc[order[-1]] *= warps
    return blocked(spt, tpw, wpc, order)


def split(rng, total_log2, parts):
    logs = [0] * parts
    for _ in range(total_log2):
        logs[rng.randrange(parts)] += 1
    return [1 << v for v in logs]


def rand_blocked(rng, shape, num_warps, warp_size):
    rank = len(shape)
    spt = [1 << rng.randint(0, 2) if rng.random() < 0.6 else 1 for _ in range(rank)]
    order = rng.sample(range(rank), rank)
    return blocked(spt, split(rng, log2(warp_size), rank), split(rng, log2(num_warps), rank), order)


def fitting_warps(rng, num_warps, shape, tile):
    """warpsPerCTA for an instruction tile, preferring grids that fit the shape."""
    options = []
    for a in range(log2(num_warps) + 1):
        w = [1 << a, num_warps >> a]
        if all(w[i] * tile[i] <= shape[i] for i in range(2)):
            options.append(w)
    if not options:
        options = [[num_warps, 1], [1, num_warps]]
    return rng.choice(options)


def mma3_params(rng, shape, num_warps, bits_in):
    m_warps = rng.choice([w for w in (4, 8) if w <= num_warps and 16 * w <= shape[0]] or [4])
    wpc = [m_warps, num_warps // m_warps]
    n_max = max(8, shape[1] // wpc[1])
    n = rng.choice([v for v in (16, 32, 64, 128, 256) if v <= n_max] or [8])
    return mma(3, wpc, [16, n, 256 // bits_in])


def unit_bases(shape):
    rank = len(shape)
    out = []
    for d in range(rank):
        for i in range(log2(shape[d])):
            v = [0] * rank
            v[d] = 1 << i
            out.append(v)
    return out


def rand_linear(rng, shape, num_warps, warp_size):
    """A random permutation of the unit bases into register/lane/warp; when the tensor has
    too few elements for one per thread, the missing thread bases are zero (broadcast)."""
    rank = len(shape)
    units = unit_bases(shape)
    rng.shuffle(units)
    groups = {}
    for name, cnt in (("lane", log2(warp_size)), ("warp", log2(num_warps))):
        groups[name] = [units.pop() if units else [0] * rank for _ in range(cnt)]
    groups["register"] = units
    return linear(groups["register"], groups["lane"], groups["warp"], shape)


def permuted_linear(rng, ll, shape, mixed, lane_swaps, reg_swaps):
    """A linear layout made from a lowered layout by swapping register/lane bases."""
    bases = {name: [list(v) for v in vs] for name, vs in ll["bases"]}
    reg, lane, warp = bases["register"], bases["lane"], bases["warp"]
    for _ in range(mixed):
        if reg and lane:
            i, j = rng.randrange(len(reg)), rng.randrange(len(lane))
            reg[i], lane[j] = lane[j], reg[i]
    for _ in range(lane_swaps):
        if len(lane) > 1:
            i, j = rng.sample(range(len(lane)), 2)
            lane[i], lane[j] = lane[j], lane[i]
    for _ in range(reg_swaps):
        if len(reg) > 1:
            i, j = rng.sample(range(len(reg)), 2)
            reg[i], reg[j] = reg[j], reg[i]
    for _ in range(mixed):  # a warp basis swapped with a register one
        if reg and warp and rng.random() < 0.5:
            i, j = rng.randrange(len(reg)), rng.randrange(len(warp))
            reg[i], warp[j] = warp[j], reg[i]
    return linear(reg, lane, warp, shape)


SIDES = [16, 32, 64, 128]


def shape2(rng, lo=16, hi=128):
    return [rng.choice([s for s in SIDES if lo <= s <= hi]), rng.choice([s for s in SIDES if lo <= s <= hi])]


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------

class Cases:
    def __init__(self):
        self.items = []

    def add(self, tag, src, dst, shape, bits, num_warps, warp_size, target):
        self.items.append({"tag": tag, "src_params": src, "dst_params": dst, "shape": list(shape),
                           "bits": bits, "num_warps": num_warps, "warp_size": warp_size,
                           "target": TARGET_BY_KIND[target]})


def nvidia_cases(C, rng, lowered):
    bits_all = [8, 16, 32, 64]
    # mma v2 accumulator -> blocked epilogue (row-major store, sometimes a column-major one).
    for num_warps in (2, 4, 8):
        for bits in bits_all:
            for _ in range(4):
                shape = shape2(rng, 16 if num_warps < 8 else 32)
                src = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8])
                order = [1, 0] if rng.random() < 0.8 else [0, 1]
                C.add("mma2_to_blocked", src, coalesced(shape, bits, num_warps, 32, order), shape, bits,
                      num_warps, 32, "cuda80")
    # mma v3 (wgmma) accumulator -> blocked epilogue.
    for num_warps in (4, 8):
        for bits in bits_all:
            for _ in range(5 if bits in (16, 32) else 3):
                shape = [rng.choice([64, 128]), rng.choice([16, 32, 64, 128])]
                bits_in = rng.choice([8, 16]) if bits != 32 else rng.choice([16, 32])
                src = mma3_params(rng, shape, num_warps, bits_in)
                order = [1, 0] if rng.random() < 0.8 else [0, 1]
                C.add("mma3_to_blocked", src, coalesced(shape, bits, num_warps, 32, order), shape, bits,
                      num_warps, 32, "cuda90")
    # wgmma accumulator -> register A operand of the next wgmma (attention's P @ V).
    for num_warps in (4, 8):
        for bits in (8, 16):
            for _ in range(3):
                shape = [rng.choice([64, 128]), rng.choice([32, 64, 128])]
                src = mma3_params(rng, shape, num_warps, 16)
                dst = dot(0, mma3_params(rng, shape, num_warps, bits), 32 // bits)
                C.add("mma3_to_dot_a", src, dst, shape, bits, num_warps, 32, "cuda90")
    # mma v2 accumulator -> A operand of the next mma (chained matmuls on Ampere).
    for num_warps in (2, 4, 8):
        for bits in (8, 16, 32):
            for _ in range(3):
                shape = shape2(rng, 32)
                par = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8])
                src = par if rng.random() < 0.7 else mma(2, fitting_warps(rng, num_warps, shape, [16, 8]),
                                                         [16, 8])
                C.add("mma2_to_dot_a", src, dot(0, par, max(1, 32 // bits)), shape, bits, num_warps, 32,
                      "cuda80")
    # Coalesced global load -> dot operand of mma v2 (both operands, both load orders).
    for num_warps in (2, 4, 8):
        for bits in bits_all:
            for op_idx in (0, 1):
                for _ in range(2):
                    shape = shape2(rng, 16 if num_warps < 8 else 32)
                    par = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8])
                    kw = max(1, 32 // bits) * (2 if bits <= 16 and rng.random() < 0.3 else 1)
                    order = [1, 0] if rng.random() < 0.7 else [0, 1]
                    C.add(f"blocked_to_dot{op_idx}", coalesced(shape, bits, num_warps, 32, order),
                          dot(op_idx, par, kw), shape, bits, num_warps, 32, "cuda80")
    # Transposes between blocked orders.
    for num_warps in (2, 4, 8):
        for bits in bits_all:
            for _ in range(4):
                shape = shape2(rng)
                a = coalesced(shape, bits, num_warps, 32, [1, 0])
                b = coalesced(shape, bits, num_warps, 32, [0, 1])
                if rng.random() < 0.5:
                    a, b = b, a
                C.add("blocked_transpose", a, b, shape, bits, num_warps, 32, "cuda90")
    # Slices: row statistics of an mma accumulator re-laid out for a blocked epilogue, and
    # slices of a blocked tensor converted to a plain 1-D blocked layout.
    for num_warps in (2, 4, 8):
        for bits in (16, 32):
            for _ in range(3):
                shape = shape2(rng, 32)
                dim = rng.randint(0, 1)
                if num_warps >= 4 and rng.random() < 0.5:
                    shape[0] = max(shape[0], 64)
                    par, tgt = mma3_params(rng, shape, num_warps, 16), "cuda90"
                else:
                    par, tgt = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8]), "cuda80"
                dst = sliced(dim, coalesced(shape, bits, num_warps, 32, [1, 0]))
                C.add("slice_mma_to_blocked", sliced(dim, par), dst, [shape[1 - dim]], bits, num_warps, 32, tgt)
            for _ in range(2):
                n = rng.choice(SIDES)
                par = rand_blocked(rng, [n, n], num_warps, 32)
                dst = blocked([1 << rng.randint(0, 2)], [32], [num_warps], [0])
                C.add("slice_blocked_to_1d", sliced(rng.randint(0, 1), par), dst, [n], bits, num_warps, 32,
                      "cuda90")
    # Rank-2 slices of rank-3 parents (a reduction over one axis of a 3-D tensor).
    for num_warps in (2, 4, 8):
        for bits in (8, 16, 32, 64):
            shape = shape2(rng)
            dim = rng.randint(0, 2)
            full = list(shape)
            full.insert(dim, rng.choice([2, 4, 8]))
            par = coalesced(full, bits, num_warps, 32, rng.choice([[2, 1, 0], [1, 2, 0], [2, 0, 1]]))
            dst = coalesced(shape, bits, num_warps, 32, rng.choice([[1, 0], [0, 1]]))
            C.add("slice3d_to_blocked", sliced(dim, par), dst, shape, bits, num_warps, 32, "cuda90")
    # Rank 3: batched mma v2 -> blocked, and blocked transposes.
    for num_warps in (2, 4, 8):
        for bits in (16, 32):
            shape = [rng.choice([2, 4]), rng.choice([32, 64]), rng.choice([32, 64])]
            wpc = [1, 1, 1]
            for _ in range(log2(num_warps)):
                wpc[rng.randrange(3)] *= 2
            C.add("mma2_3d_to_blocked", mma(2, wpc, [1, 16, 8]),
                  coalesced(shape, bits, num_warps, 32, [2, 1, 0]), shape, bits, num_warps, 32, "cuda80")
            C.add("blocked_3d_transpose", coalesced(shape, bits, num_warps, 32, [2, 1, 0]),
                  coalesced(shape, bits, num_warps, 32, rng.choice([[1, 2, 0], [0, 1, 2], [1, 0, 2]])),
                  shape, bits, num_warps, 32, "cuda90")
    # Linear layouts: a real layout with some bases swapped, and random permutations.
    for num_warps in (2, 4, 8):
        for bits in bits_all:
            for i in range(4):
                shape = shape2(rng)
                kind = ["blocked", "mma2", "mma3", "blocked"][i]
                if kind == "mma3" and num_warps < 4:
                    kind = "mma2"
                if kind == "blocked":
                    base, tgt = coalesced(shape, bits, num_warps, 32, rng.choice([[1, 0], [0, 1]])), "cuda90"
                elif kind == "mma2":
                    base, tgt = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8]), "cuda80"
                else:
                    shape[0] = max(shape[0], 64)
                    base, tgt = mma3_params(rng, shape, num_warps, 16), "cuda90"
                ll = lowered(base, shape)
                if ll is None:
                    continue
                mixed, lanes, regs = [(1, 0, 0), (0, 1, 1), (2, 1, 0), (0, 0, 2)][i]
                dst = permuted_linear(rng, ll, shape, mixed, lanes, regs)
                if rng.random() < 0.5:
                    C.add("linear_permuted", base, dst, shape, bits, num_warps, 32, tgt)
                else:
                    C.add("linear_permuted", dst, base, shape, bits, num_warps, 32, tgt)
            for _ in range(2):
                shape = shape2(rng)
                a = rand_linear(rng, shape, num_warps, 32)
                b = rand_linear(rng, shape, num_warps, 32) if rng.random() < 0.5 else \
                    rand_blocked(rng, shape, num_warps, 32)
                C.add("linear_random", a, b, shape, bits, num_warps, 32, "cuda90")
    # Random blocked pairs.
    for num_warps in (2, 4, 8):
        for bits in bits_all:
            for _ in range(3):
                shape = shape2(rng)
                C.add("blocked_random", rand_blocked(rng, shape, num_warps, 32),
                      rand_blocked(rng, shape, num_warps, 32), shape, bits, num_warps, 32, "cuda90")


MFMA_INSTR = {  # element bits of the operands -> (32x32 instr, 16x16 instr, kWidth)
    8: ([32, 32, 16], [16, 16, 32], 8),
    16: ([32, 32, 8], [16, 16, 16], 4),
    32: ([32, 32, 2], [16, 16, 4], 1),
}


def amd_cases(C, rng, lowered):
    # mfma accumulator -> blocked epilogue.
    for num_warps in (2, 4, 8):
        for bits in (8, 16, 32, 64):
            for _ in range(4):
                shape = shape2(rng, 32)
                if bits == 64:
                    instr, ebw = [16, 16, 4], 64
                else:
                    instr, ebw = rng.choice(MFMA_INSTR[rng.choice([16, 32])][:2]), 32
                src = mfma(instr, fitting_warps(rng, num_warps, shape, instr[:2]), rng.random() < 0.5, ebw)
                order = [1, 0] if rng.random() < 0.8 else [0, 1]
                C.add("mfma_to_blocked", src, coalesced(shape, bits, num_warps, 64, order), shape, bits,
                      num_warps, 64, "hip")
    # Coalesced load -> mfma dot operands.
    for num_warps in (2, 4, 8):
        for bits in (8, 16, 32, 64):
            for op_idx in (0, 1):
                for _ in range(2):
                    shape = shape2(rng, 32)
                    if bits == 64:
                        instr, ebw, kw = [16, 16, 4], 64, 1
                    else:
                        i32, i16, kw = MFMA_INSTR[bits]
                        instr, ebw = rng.choice([i32, i16]), 32
                        if bits <= 16 and rng.random() < 0.3:
                            kw *= 2  # kpack = 2
                    par = mfma(instr, fitting_warps(rng, num_warps, shape, instr[:2]), rng.random() < 0.5, ebw)
                    order = [1, 0] if rng.random() < 0.7 else [0, 1]
                    C.add(f"blocked_to_mfma_dot{op_idx}", coalesced(shape, bits, num_warps, 64, order),
                          dot(op_idx, par, kw), shape, bits, num_warps, 64, "hip")
    # mfma accumulator -> A operand of the next mfma (attention on AMD).
    for num_warps in (2, 4, 8):
        for bits in (8, 16):
            for _ in range(2):
                shape = shape2(rng, 32)
                i32, i16, kw = MFMA_INSTR[bits]
                instr = rng.choice([i32, i16])
                par = mfma(instr, fitting_warps(rng, num_warps, shape, instr[:2]), rng.random() < 0.5)
                C.add("mfma_to_dot_a", dict(par, isTransposed=rng.random() < 0.5), dot(0, par, kw), shape, bits,
                      num_warps, 64, "hip")
    # Slices of mfma accumulators, transposes and random pairs on 64-lane warps.
    for num_warps in (2, 4, 8):
        for bits in (16, 32):
            shape = shape2(rng, 32)
            dim = rng.randint(0, 1)
            instr = rng.choice(MFMA_INSTR[16][:2])
            par = mfma(instr, fitting_warps(rng, num_warps, shape, instr[:2]), rng.random() < 0.5)
            dst = sliced(dim, coalesced(shape, bits, num_warps, 64, [1, 0]))
            C.add("slice_mfma_to_blocked", sliced(dim, par), dst, [shape[1 - dim]], bits, num_warps, 64, "hip")
        for bits in (8, 16, 32, 64):
            shape = shape2(rng, 32)
            C.add("blocked_transpose", coalesced(shape, bits, num_warps, 64, [1, 0]),
                  coalesced(shape, bits, num_warps, 64, [0, 1]), shape, bits, num_warps, 64, "hip")
            shape = shape2(rng, 32)
            a = rand_linear(rng, shape, num_warps, 64)
            C.add("linear_random", a, rand_blocked(rng, shape, num_warps, 64), shape, bits, num_warps, 64, "hip")
            shape = shape2(rng, 32)
            C.add("blocked_random", rand_blocked(rng, shape, num_warps, 64),
                  rand_blocked(rng, shape, num_warps, 64), shape, bits, num_warps, 64, "hip")
            shape = shape2(rng, 32)
            instr = [16, 16, 4] if bits == 64 else rng.choice(MFMA_INSTR[16][:2])
            base = mfma(instr, fitting_warps(rng, num_warps, shape, instr[:2]), rng.random() < 0.5,
                        64 if bits == 64 else 32)
            ll = lowered(base, shape)
            if ll is not None:
                C.add("linear_permuted", base, permuted_linear(rng, ll, shape, 1, 1, 1), shape, bits,
                      num_warps, 64, "hip")


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------

def check_side(ll, shape, num_warps, warp_size):
    bases = dict(ll["bases"])
    if [s for _, s in ll["outs"]] != list(shape):
        return f"covers {[s for _, s in ll['outs']]}, not the tensor shape {shape}"
    if len(bases["lane"]) != log2(warp_size):
        return f"{1 << len(bases['lane'])} lanes per warp, not {warp_size}"
    if len(bases["warp"]) != log2(num_warps):
        return f"{1 << len(bases['warp'])} warps, not {num_warps}"
    if bases["block"]:
        return "more than one CTA"
    return None


def main():
    t0 = time.time()
    rng = random.Random(SEED)

    def lowered(params, shape):
        res = isolated(_side_child, params, shape, 32)
        return res[1]["ll"] if res[0] == "ok" else None

    C = Cases()
    nvidia_cases(C, rng, lowered)
    # A stream of its own, so that the NVIDIA cases keep their draws when AMD ones change.
    amd_cases(C, random.Random(SEED + 1), lowered)

    pairs, skipped, seen = [], [], {}
    for i, case in enumerate(C.items):
        name = f"{case.pop('tag')}_{i:04d}"
        res = isolated(_pair_child, case["src_params"], case["dst_params"], case["shape"], case["bits"])
        if res[0] != "ok":
            why = []
            for side in ("src", "dst"):
                r = isolated(_side_child, case[f"{side}_params"], case["shape"], case["bits"])
                if r[0] != "ok":
                    why.append(f"{side} rejected ({r[0]}): {r[1]}")
            skipped.append({"name": name, "reason": "; ".join(why) or f"{res[0]}: {res[1]}"})
            continue
        (s, d) = res[1]
        why = None
        for side, v in (("src", s), ("dst", d)):
            bad = check_side(v["ll"], case["shape"], case["num_warps"], case["warp_size"])
            if bad:
                why = f"{side} {bad}"
                break
        if why is None and s["ll"] == d["ll"]:
            why = "identical linear layouts (a no-op convert)"
        key = json.dumps([s["ll"], d["ll"], case["shape"], case["bits"]])
        if why is None and key in seen:
            why = f"duplicate of {seen[key]}"
        if why:
            skipped.append({"name": name, "reason": why})
            continue
        seen[key] = name
        pair = {"name": name, **case, "src_ttgir": s["ttgir"], "dst_ttgir": d["ttgir"], "src": s["ll"],
                "dst": d["ll"]}
        pairs.append(pair)

    # Compile the 32-lane pairs for sm90. Warm the compiler up in this process first (with a
    # known-good pair) so that each forked child starts warm.
    warm = next((p for p in pairs if p["warp_size"] == 32 and p["src_params"]["kind"] == "blocked"
                 and p["dst_params"]["kind"] == "blocked"), None)
    if warm is not None:
        _compile_child(warm)
    compiled = 0
    for p in pairs:
        if p["warp_size"] != 32:
            continue
        res = isolated(_compile_child, p, timeout=COMPILE_TIMEOUT_S)
        p["compile_target"] = COMPILE_TARGET
        if res[0] == "ok":
            p.update(res[1])
            compiled += 1
        else:
            p["compile_error"] = f"{res[0]}: {res[1]}"
        print(p["name"], "compiled" if res[0] == "ok" else p["compile_error"], file=sys.stderr)

    pairs.sort(key=lambda p: p["name"])
    skipped.sort(key=lambda p: p["name"])
    out = {"triton_version": TRITON_VERSION, "command": COMMAND, "pairs": pairs, "skipped": skipped}
    with open(OUT_PATH, "w") as fh:
        dump(out, fh)
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)

    def kinds(p):
        def k(q):
            if q["kind"] in ("slice", "dot_op"):
                return f"{q['kind']}({k(q['parent'])})"
            if q["kind"] == "nvidia_mma":
                return f"mma_v{q['versionMajor']}"
            return q["kind"]
        return f"{k(p['src_params'])}->{k(p['dst_params'])}"

    summary = {}
    for p in pairs:
        for key in (kinds(p), f"bits={p['bits']}", f"warps={p['num_warps']}", f"warp_size={p['warp_size']}",
                    f"target={p['target']}", f"rank={len(p['shape'])}"):
            summary[key] = summary.get(key, 0) + 1
    for key in sorted(summary):
        print(f"  {key}: {summary[key]}", file=sys.stderr)
    reasons = {}
    for s in skipped:
        r = re.sub(r"\d{4}$", "", s["reason"].split(":")[0])[:60]
        reasons[r] = reasons.get(r, 0) + 1
    for r in sorted(reasons):
        print(f"  skipped: {r}: {reasons[r]}", file=sys.stderr)
    print(f"wrote {OUT_PATH}: {len(pairs)} pairs ({compiled} compiled for sm90, "
          f"{sum(1 for p in pairs if 'compile_error' in p)} compile errors), {len(skipped)} skipped, "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    os._exit(0)  # skip nanobind leak reports at interpreter shutdown


if __name__ == "__main__":
    main()
