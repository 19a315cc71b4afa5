#!/usr/bin/env python3
"""convert_layout reference vectors for layoutc, produced with the Triton 3.9.0 wheel as oracle.

Triton version: 3.9.0 (``pip install triton==3.9.0``; CPU-only machine, no GPU needed).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_convert_vectors.py

It rewrites ``tests/vectors/triton/convert_vectors.json`` next to this script. Random choices
come from ``random.Random(SEED)``; the output is deterministic.

Multi-CTA cases (``num_ctas`` 2 or 4, layouts with ``CGALayout``) compile for a cluster; a
conversion between different CTA placements goes through distributed shared memory.

For every case a Gluon kernel loads a tensor in the source layout, converts it with
``gl.convert_layout`` to the destination layout and stores it. The kernel is compiled for
``GPUTarget("cuda", 90, 32)`` (no GPU is needed to compile), and the vectors record:

* ``src`` / ``dst``: both layouts as Triton's linear layouts (``GluonOpBuilder.to_linear_layout``),
* ``shared_bytes``: the kernel's shared memory (``CompiledKernel.metadata.shared``); the convert
  is the only user of shared memory, so this is its scratch size,
* ``ptx``: counts of the PTX instructions that show the lowering (``shfl.sync``, ``st.shared``,
  ``ld.shared``, ``stmatrix``, ``ldmatrix``, ``prmt``, ``bar.sync``, and for clusters of CTAs
  ``mapa``, ``ld.shared::cluster`` and ``barrier.cluster.wait``),
* ``converts_in_ttgir``: how many ``ttg.convert_layout`` ops survive to the TTGIR (0 when
  Triton folded the conversion away as a no-op).

Every compile runs in a forked child so that a C++ assertion cannot kill the generator.
Only the installed wheel is called; no Triton source is copied here.
"""

import json
import os
import random
import re
import sys

TRITON_VERSION = "3.9.0"
COMMAND = "python3 tests/vectors/triton/gen_convert_vectors.py"
SEED = 0xC0417
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "convert_vectors.json")

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton._C.libtriton import gluon_ir, ir  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_triton_vectors import dump, isolated  # noqa: E402  (forked oracle calls, one-case-per-line JSON)

DTYPES = {"f16": ("*fp16", 16), "bf16": ("*bf16", 16), "f32": ("*fp32", 32), "i8": ("*i8", 8),
          "f64": ("*fp64", 64)}
PTX_OPS = ["shfl.sync", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "prmt", "bar.sync", "mapa",
           "ld.shared::cluster", "barrier.cluster.wait"]


@gluon.jit
def cvt2d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    om = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(ptr + om[:, None] * N + on[None, :])
    y = gl.convert_layout(x, DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(out + dm[:, None] * N + dn[None, :], y)


@gluon.jit
def cvt1d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr):
    x = gl.load(ptr + gl.arange(0, M, layout=SRC))
    y = gl.convert_layout(x, DST)
    gl.store(out + gl.arange(0, M, layout=DST), y)


def make_layout(p):
    k = p["kind"]
    cga = {"cga_layout": p["CGALayout"]} if p.get("CGALayout") else {}
    if k == "blocked":
        return gl.BlockedLayout(p["sizePerThread"], p["threadsPerWarp"], p["warpsPerCTA"], p["order"], **cga)
    if k == "mma":
        return gl.NVMMADistributedLayout(p["version"], p["warpsPerCTA"], p["instrShape"], **cga)
    if k == "dot_op":
        return gl.DotOperandLayout(p["opIdx"], make_layout(p["parent"]), p["kWidth"])
    if k == "slice":
        return gl.SliceLayout(p["dim"], make_layout(p["parent"]))
    if k == "linear":
        return gl.DistributedLinearLayout(p["register"], p["lane"], p["warp"], [], p["shape"])
    raise ValueError(k)


def linear_of(p, shape):
    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx, "")
    ll = b.to_linear_layout(make_layout(p)._to_ir(b), list(shape))
    bases = [["register", ll.reg_bases], ["lane", ll.lane_bases], ["warp", ll.warp_bases],
             ["block", ll.block_bases]]
    return {"bases": [[name, [list(v) for v in vs]] for name, vs in bases],
            "outs": [[f"dim{i}", int(s)] for i, s in enumerate(ll.shape)]}


def compile_case(case):
    shape = case["shape"]
    ptr_ty, _ = DTYPES[case["dtype"]]
    if len(shape) == 2:
        fn, consts = cvt2d, {"M": shape[0], "N": shape[1]}
    else:
        fn, consts = cvt1d, {"M": shape[0]}
    consts["SRC"] = make_layout(case["src_params"])
    consts["DST"] = make_layout(case["dst_params"])
    sig = {"ptr": ptr_ty, "out": ptr_ty, "SRC": "constexpr", "DST": "constexpr"}
    sig.update({k: "constexpr" for k in consts if k in ("M", "N")})
    src = GluonASTSource(fn, signature=sig, constexprs=consts)
    options = {"num_warps": case["num_warps"], "num_ctas": case.get("num_ctas", 1)}
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)
    ptx = k.asm["ptx"]
    counts = {op: len(re.findall(r"\b" + re.escape(op) + r"\b", ptx)) for op in PTX_OPS}
    converts = sum(1 for ln in k.asm["ttgir"].splitlines() if "ttg.convert_layout" in ln)
    return {"shared_bytes": k.metadata.shared, "ptx": counts, "converts_in_ttgir": converts}


# --------------------------------------------------------------------------------------
# Case generation
# --------------------------------------------------------------------------------------

def log2(x):
    return x.bit_length() - 1


def split(rng, total_log2, parts):
    """Random split of 2^total_log2 into `parts` powers of two."""
    logs = [0] * parts
    for _ in range(total_log2):
        logs[rng.randrange(parts)] += 1
    return [1 << v for v in logs]


def rand_blocked(rng, num_warps, rank=2, spt_max_log2=3):
    spt = [1 << rng.randint(0, spt_max_log2 if i == 0 else 1) for i in range(rank)]
    rng.shuffle(spt)
    order = list(range(rank))
    rng.shuffle(order)
    return {"kind": "blocked", "sizePerThread": spt, "threadsPerWarp": split(rng, 5, rank),
            "warpsPerCTA": split(rng, log2(num_warps), rank), "order": order}


def rand_mma(rng, num_warps, version, n=None):
    wpc = split(rng, log2(num_warps), 2)
    if version == 2:
        return {"kind": "mma", "version": [2, 0], "warpsPerCTA": wpc, "instrShape": [16, 8]}
    wpc = [num_warps, 1] if num_warps >= 4 else [4, 1]
    return {"kind": "mma", "version": [3, 0], "warpsPerCTA": wpc, "instrShape": [16, n or 64, 16]}


def permute_linear(rng, ll, swaps_mixed, swaps_lane, swaps_reg, shape):
    """A linear layout made from `ll` by swapping register/lane bases."""
    bases = {name: [list(v) for v in vs] for name, vs in ll["bases"]}
    reg, lane, warp = bases["register"], bases["lane"], bases["warp"]
    for _ in range(swaps_mixed):
        if reg and lane:
            i, j = rng.randrange(len(reg)), rng.randrange(len(lane))
            reg[i], lane[j] = lane[j], reg[i]
    for _ in range(swaps_lane):
        if len(lane) > 1:
            i, j = rng.sample(range(len(lane)), 2)
            lane[i], lane[j] = lane[j], lane[i]
    for _ in range(swaps_reg):
        if len(reg) > 1:
            i, j = rng.sample(range(len(reg)), 2)
            reg[i], reg[j] = reg[j], reg[i]
    return {"kind": "linear", "register": reg, "lane": lane, "warp": warp, "shape": list(shape)}


def shape_for(rng, lo=4, hi=7):
    return [1 << rng.randint(lo, hi), 1 << rng.randint(lo, hi)]


def gen_cases(rng):
    cases = []

    def add(tag, src, dst, shape, dtype, num_warps):
        cases.append({"name": f"{tag}_{len(cases):03d}", "src_params": src, "dst_params": dst,
                      "shape": shape, "dtype": dtype, "num_warps": num_warps})

    # Curated: the shapes of real kernels.
    b_row = {"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [4, 8], "warpsPerCTA": [4, 1],
             "order": [1, 0]}
    b_col = {"kind": "blocked", "sizePerThread": [8, 1], "threadsPerWarp": [8, 4], "warpsPerCTA": [1, 4],
             "order": [0, 1]}
    mma2 = {"kind": "mma", "version": [2, 0], "warpsPerCTA": [2, 2], "instrShape": [16, 8]}
    mma3 = {"kind": "mma", "version": [3, 0], "warpsPerCTA": [4, 1], "instrShape": [16, 128, 16]}
    add("transpose", b_row, b_col, [64, 64], "f16", 4)
    add("transpose", b_row, b_col, [128, 128], "f32", 4)
    add("epilogue_mma2", mma2, b_row, [128, 128], "f16", 4)
    add("epilogue_mma2", mma2, b_row, [64, 64], "f32", 4)
    add("epilogue_mma3", mma3, b_row, [128, 128], "f16", 4)
    add("epilogue_mma3", mma3, b_row, [64, 128], "f32", 4)
    add("load_to_dot_a", b_row, {"kind": "dot_op", "opIdx": 0, "parent": mma2, "kWidth": 2}, [128, 64], "f16", 4)
    add("load_to_dot_b", b_row, {"kind": "dot_op", "opIdx": 1, "parent": mma2, "kWidth": 2}, [64, 128], "f16", 4)
    add("mma_to_dot_a", mma2, {"kind": "dot_op", "opIdx": 0, "parent": mma2, "kWidth": 2}, [64, 64], "f16", 4)
    add("mma_to_dot_a", mma2, {"kind": "dot_op", "opIdx": 0, "parent": mma2, "kWidth": 4}, [64, 64], "i8", 4)
    add("same", b_row, b_row, [64, 64], "f16", 4)
    add("identical_ll", b_row, None, [64, 64], "f16", 4)  # dst filled in by main()

    # Random 2-D conversions between blocked, mma and dot operands.
    for _ in range(70):
        num_warps = rng.choice([1, 2, 4, 4, 8])
        dtype = rng.choice(["f16", "f16", "f32", "f32", "i8", "bf16", "f64"])
        shape = shape_for(rng)
        kinds = [rng.choice(["blocked", "blocked", "blocked", "mma2", "dot"]) for _ in range(2)]

        def mk(kind):
            if kind == "blocked":
                return rand_blocked(rng, num_warps)
            mma = rand_mma(rng, num_warps, 2)
            if kind == "mma2":
                return mma
            bits = DTYPES[dtype][1]
            return {"kind": "dot_op", "opIdx": rng.randint(0, 1), "parent": mma,
                    "kWidth": max(1, 32 // bits) * rng.choice([1, 2])}
        add("random", mk(kinds[0]), mk(kinds[1]), shape, dtype, num_warps)

    # 1-D conversions through slices.
    for _ in range(12):
        num_warps = rng.choice([1, 2, 4, 8])
        dtype = rng.choice(["f16", "f32", "i8"])
        m = 1 << rng.randint(5, 9)
        src = {"kind": "slice", "dim": rng.randint(0, 1), "parent": rand_blocked(rng, num_warps)}
        dst = rng.choice([{"kind": "slice", "dim": rng.randint(0, 1), "parent": rand_blocked(rng, num_warps)},
                          {"kind": "blocked", "sizePerThread": [1 << rng.randint(0, 2)], "threadsPerWarp": [32],
                           "warpsPerCTA": [num_warps], "order": [0]}])
        add("slice", src, dst, [m], dtype, num_warps)
    return cases


def gen_permuted_cases(rng, cases):
    """Register-only, lane-only and mixed permutations of one layout's bases."""
    out = []
    for i in range(36):
        num_warps = rng.choice([1, 2, 4])
        dtype = rng.choice(["f16", "f32", "i8", "f32"])
        shape = shape_for(rng, 4, 6)
        src = rand_blocked(rng, num_warps, spt_max_log2=2)
        res = isolated(linear_of, src, shape)
        if res[0] != "ok":
            continue
        ll = res[1]
        mixed, lane, reg = [(0, 0, 1), (0, 1, 0), (1, 0, 0), (1, 1, 1), (2, 0, 0), (0, 2, 2), (3, 1, 0),
                            (0, 0, 0)][i % 8]
        dst = permute_linear(rng, ll, mixed, lane, reg, shape)
        out.append({"name": f"permuted_{len(cases) + len(out):03d}", "src_params": src, "dst_params": dst,
                    "shape": shape, "dtype": dtype, "num_warps": num_warps,
                    "permutation": {"mixed_swaps": mixed, "lane_swaps": lane, "register_swaps": reg}})
    return out


def gen_multi_cta_cases(rng, first_index):
    """Conversions in a cluster of 2 or 4 CTAs (``CGALayout``): the same CTA
    placement on both sides (within each CTA) or different ones (across CTAs,
    through distributed shared memory)."""
    out = []
    row = {"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [4, 8], "warpsPerCTA": [4, 1],
           "order": [1, 0]}
    col = {"kind": "blocked", "sizePerThread": [8, 1], "threadsPerWarp": [8, 4], "warpsPerCTA": [1, 4],
           "order": [0, 1]}
    mma = {"kind": "mma", "version": [2, 0], "warpsPerCTA": [2, 2], "instrShape": [16, 8]}
    placements = {2: [[[1, 0]], [[0, 1]]], 4: [[[1, 0], [2, 0]], [[0, 1], [0, 2]], [[1, 0], [0, 1]],
                                               [[0, 1], [1, 0]]]}

    def add(tag, src, dst, shape, dtype, num_warps, num_ctas):
        out.append({"name": f"{tag}_{first_index + len(out):03d}", "src_params": src, "dst_params": dst,
                    "shape": shape, "dtype": dtype, "num_warps": num_warps, "num_ctas": num_ctas})

    with_cga = lambda layout, cga: dict(layout, CGALayout=cga)  # noqa: E731
    add("cta_same", with_cga(row, [[1, 0]]), with_cga(col, [[1, 0]]), [128, 64], "f16", 4, 2)
    add("cta_cross", with_cga(row, [[1, 0]]), with_cga(col, [[0, 1]]), [128, 64], "f16", 4, 2)
    add("cta_cross", with_cga(row, [[1, 0], [2, 0]]), with_cga(row, [[0, 1], [0, 2]]), [128, 128], "f32", 4, 4)
    add("cta_cross", with_cga(mma, [[1, 0]]), with_cga(row, [[0, 1]]), [128, 128], "f16", 4, 2)
    add("cta_same", with_cga(mma, [[0, 1]]), with_cga(row, [[0, 1]]), [64, 128], "f16", 4, 2)
    for _ in range(14):
        num_ctas = rng.choice([2, 4])
        num_warps = rng.choice([2, 4, 8])
        dtype = rng.choice(["f16", "f32", "i8"])
        shape = [1 << rng.randint(6, 8), 1 << rng.randint(6, 8)]
        cga_src = rng.choice(placements[num_ctas])
        cga_dst = cga_src if rng.random() < 0.3 else rng.choice(placements[num_ctas])
        add("cta_random", with_cga(rand_blocked(rng, num_warps), cga_src),
            with_cga(rand_blocked(rng, num_warps), cga_dst), shape, dtype, num_warps, num_ctas)
    return out


def run_case(case):
    src_ll = isolated(linear_of, case["src_params"], case["shape"])
    dst_ll = isolated(linear_of, case["dst_params"], case["shape"])
    if src_ll[0] != "ok" or dst_ll[0] != "ok":
        return None, f"layout rejected: {src_ll[1] if src_ll[0] != 'ok' else dst_ll[1]}"
    res = isolated(compile_case, case)
    if res[0] != "ok":
        return None, f"compile failed: {res[1]}"
    out = dict(case)
    out["bits"] = DTYPES[case["dtype"]][1]
    out["src"] = src_ll[1]
    out["dst"] = dst_ll[1]
    out.update(res[1])
    return out, None


def main():
    rng = random.Random(SEED)
    cases = gen_cases(rng)
    # The "identical_ll" case: the blocked layout's own bases as a linear layout (a no-op).
    for c in cases:
        if c["name"].startswith("identical_ll"):
            ll = isolated(linear_of, c["src_params"], c["shape"])[1]
            bases = dict((n, v) for n, v in ll["bases"])
            c["dst_params"] = {"kind": "linear", "register": bases["register"], "lane": bases["lane"],
                               "warp": bases["warp"], "shape": c["shape"]}
    cases += gen_permuted_cases(rng, cases)
    # A stream of its own, so that the cases above keep their names.
    cases += gen_multi_cta_cases(random.Random(SEED + 1), len(cases))
    vectors, skipped = [], []
    for c in cases:
        v, why = run_case(c)
        if v is None:
            skipped.append({"name": c["name"], "why": why})
        else:
            vectors.append(v)
        print(c["name"], "ok" if v else why, file=sys.stderr)
    out = {"triton_version": TRITON_VERSION, "command": COMMAND, "target": "cuda:90, 32 threads per warp",
           "conversions": vectors, "skipped": skipped}
    with open(OUT_PATH, "w") as fh:
        dump(out, fh)
    print(f"wrote {OUT_PATH}: {len(vectors)} conversions, {len(skipped)} skipped", file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
