#!/usr/bin/env python3
"""Reductions of f32 compiled for sm100, with their PTX's shared-memory instructions.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed. About 5 minutes on
2 cores.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_sm100_reductions.py
    python3 tests/vectors/triton/gen_sm100_reductions.py --check 15   # every 15th, again (CI)

Blackwell has arithmetic on pairs of f32 (``add/mul/fma.f32x2``), and LLVM keeps the pairs its
vectoriser combines in 64-bit registers: the same reduction that stores ``st.shared.v4.b32`` on
sm90 stores ``st.shared.v2.b64`` on sm100 when it sums or multiplies, not when it takes a
maximum. These kernels are the evidence for that rule (``crates/layout-db/tests/
sm100_reductions.rs``):

* ``red``: a sum, maximum or product over either axis of eight 2-D shapes, on 1, 2, 4 and 8
  warps, its result stored as it is or scaled first;
* ``softmax``, ``layernorm``, ``sumsq`` (a sum of squares) and ``red3d`` (the middle axis of a
  3-D tensor): kernels of another shape, written after the rule was drawn from ``red``;
* ``sum_and_max``: one reduction of two operands, summed and maximised: the sum's partials pair,
  the maximum's do not.

``sm100_reductions.json`` holds, per kernel that uses shared memory, its TTGIR (locations
removed) and ``shared_mnemonics``: the PTX's shared-memory instructions by exact opcode, as
``gen_ttgir_corpus.count_shared_mnemonics`` counts them.
"""

import itertools
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as base  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

OUT = os.path.join(base.REPO_ROOT, "tests", "vectors", "triton", "sm100_reductions.json")
TARGET = GPUTarget("cuda", 100, 32)


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def red(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr,
        POST: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if OP == 0:
        r = tl.sum(x, AXIS)
    elif OP == 1:
        r = tl.max(x, AXIS)
    else:
        r = tl.reduce(x, AXIS, _mul)
    if POST == 1:
        r = r * 3.0
    if AXIS == 1:
        tl.store(y_ptr + tl.arange(0, M), r)
    else:
        tl.store(y_ptr + tl.arange(0, N), r)


@triton.jit
def softmax(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    x = x - tl.max(x, 1)[:, None]
    e = tl.exp(x)
    tl.store(y_ptr + offs, e / tl.sum(e, 1)[:, None])


@triton.jit
def layernorm(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    mean = tl.sum(x, 1) / N
    d = x - mean[:, None]
    var = tl.sum(d * d, 1) / N
    tl.store(y_ptr + offs, d / tl.sqrt(var + 1e-5)[:, None])


@triton.jit
def sumsq(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + tl.arange(0, N), tl.sum(x * x, 0))


@triton.jit
def red3d(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * B * C + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])
    x = tl.load(x_ptr + offs)
    o = tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :]
    tl.store(y_ptr + o, tl.sum(x, 1))


@triton.jit
def _sum_and_max(a, m, b, n):
    return a + b, tl.maximum(m, n)


@triton.jit
def sum_and_max(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    s, m = tl.reduce((x, x), AXIS, _sum_and_max)
    o = tl.arange(0, N) if AXIS == 0 else tl.arange(0, M)
    tl.store(y_ptr + o, s * m)


def cases():
    """(name, kernel, constexprs, warps) of every kernel compiled."""
    shapes = [(16, 256), (128, 64), (64, 64), (4, 1024), (256, 16), (32, 128), (8, 512), (64, 256)]
    for (m, n), axis, op, warps, post in itertools.product(shapes, [0, 1], [0, 1, 2], [1, 2, 4, 8],
                                                           [0, 1]):
        if post == 1 and op == 1:
            continue
        yield (f"red_{m}x{n}_a{axis}_op{op}_w{warps}_p{post}", red,
               {"M": m, "N": n, "AXIS": axis, "OP": op, "POST": post}, warps)
    for (m, n), warps in itertools.product([(32, 256), (8, 1024), (64, 128), (128, 32)], [2, 4, 8]):
        for fn in (softmax, layernorm, sumsq):
            yield f"{fn.__name__}_{m}x{n}_w{warps}", fn, {"M": m, "N": n}, warps
    for (a, b, c), warps in itertools.product([(4, 64, 32), (8, 32, 64), (2, 128, 16)], [4, 8]):
        yield f"red3d_{a}x{b}x{c}_w{warps}", red3d, {"A": a, "B": b, "C": c}, warps
    for (m, n), axis, warps in itertools.product([(64, 64), (16, 256), (128, 32), (32, 128)], [0, 1], [2, 4, 8]):
        yield (f"sum_and_max_{m}x{n}_a{axis}_w{warps}", sum_and_max, {"M": m, "N": n, "AXIS": axis}, warps)


LOCATION = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")


def without_locations(ttgir):
    """The dump without its ``#loc`` definitions and ``loc(...)`` suffixes."""
    lines = [line for line in ttgir.splitlines() if not line.startswith("#loc")]
    return "\n".join(LOCATION.sub("", line) for line in lines) + "\n"


def compiled(fn, constexprs, warps):
    """The kernel's entry as the file records it, or None when it uses no shared memory."""
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32"} | {k: "constexpr" for k in constexprs}
    src = triton.compiler.ASTSource(fn, signature=sig, constexprs=constexprs)
    k = triton.compile(src, target=TARGET, options={"num_warps": warps})
    counts = base.count_shared_mnemonics(k.asm["ptx"])
    if not counts:
        return None
    return {
        "shared_bytes": k.metadata.shared,
        "shared_mnemonics": counts,
        "ttgir": without_locations(k.asm["ttgir"]),
    }


def check(every):
    """Compile every ``every``-th recorded kernel again; each must be as recorded."""
    with open(OUT) as f:
        recorded = {k["name"]: k for k in json.load(f)["kernels"]}
    compared, differences = 0, []
    for i, (name, fn, constexprs, warps) in enumerate(cases()):
        if name not in recorded or i % every:
            continue
        got = compiled(fn, constexprs, warps)
        want = {key: value for key, value in recorded[name].items() if key != "name"}
        if got != want:
            differences.append(name)
        compared += 1
    print(f"{compared} sm100 reductions compiled again, {len(differences)} differ: {differences}")
    sys.exit(1 if differences or compared == 0 else 0)


def main():
    if sys.argv[1:2] == ["--check"]:
        check(int(sys.argv[2]))
    out = []
    for name, fn, constexprs, warps in cases():
        entry = compiled(fn, constexprs, warps)
        if entry is None:
            continue
        out.append({"name": name} | entry)
        print(name, entry["shared_mnemonics"], flush=True)
    with open(OUT, "w") as f:
        json.dump({"triton": triton.__version__, "target": "cuda:100", "kernels": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
