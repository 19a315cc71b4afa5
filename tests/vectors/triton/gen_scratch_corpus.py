#!/usr/bin/env python3
"""Scratch buffers of conversions and reductions drawn at random, as the compiler sizes them.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_scratch_corpus.py            # writes the corpus
    python3 tests/vectors/triton/gen_scratch_corpus.py --check 12  # every 12th AMD dump again

Triton sizes the scratch of a ``ttg.convert_layout`` and of a ``tt.reduce`` across warps from the
swizzle it picks (``optimalSwizzling`` on NVIDIA; ``optimalSwizzlingLdSt`` with the machine's bank
count and its 128-bit load lane groups on AMD). The swizzle decides how many rounds the data
takes, so a wrong swizzle shows as a scratch twice or half the compiled one. This script draws
cases the hand-written corpora do not hold:

* ``convert_<seed>_<i>_<target>.ttgir``: ``gen_convert_vectors.py``'s Gluon kernel, which loads a
  tensor in one blocked layout and converts it to another, both drawn at random (16 bytes per thread along a random dim, lanes
  and warps split at random between the dims; f32, f16 or i8; five shapes), from a fixed seed;
* ``<colmax|colargmin>_<dtype>_<M>x<N>w<warps>_<target>.ttgir``: a column reduction across warps
  (one and two operands: ``tl.max``, ``tl.argmin``) of four element types and four shapes;
* ``<pairsum|pairscan|colmaxvalue>_fp32_<M>x<N>w<warps>_<target>.ttgir``: a reduction and a scan
  of two f32 operands combined apart, and a maximum with its indices, where only one result is
  used (LLVM drops the loads nothing needs), on the four shapes; ``splithalf_...``: a transposed
  tile split in two (``tl.split``) with one half used, whose conversion LLVM loads only half of.

Each reduction and scan is compiled for gfx942, gfx950, gfx1250 and sm90; each draw of a conversion picks
its two layouts anew for each of those targets (their lane counts differ), so
``convert_<seed>_<i>_<target>`` are different conversions of one shape and element type. The dump
is ``CompiledKernel.asm["ttgir"]`` without its location information. ``manifest.json`` has one entry per dump: ``{"file", "target",
"shared_bytes", "lds" | "shared_mnemonics"}`` -- ``metadata.shared`` and the compiled code's
shared-memory instructions by exact opcode (``gen_ttgir_corpus.py``'s counters).
"""

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as base  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)
from gen_convert_vectors import cvt2d  # noqa: E402  (load, gl.convert_layout, store)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

OUT_DIR = os.path.join(base.REPO_ROOT, "tests", "corpus", "scratch")

TARGETS = [
    ("gfx942", GPUTarget("hip", "gfx942", 64), 64),
    ("gfx950", GPUTarget("hip", "gfx950", 64), 64),
    ("gfx1250", GPUTarget("hip", "gfx1250", 32), 32),
    ("sm90", GPUTarget("cuda", 90, 32), 32),
]
SEEDS = [11, 23]
DRAWS = 40
SHAPES = [(64, 64), (128, 32), (32, 128), (64, 128), (128, 128)]
TYPES = [("fp32", 32), ("fp16", 16), ("i8", 8)]


@triton.jit
def colmax(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)
    tl.store(y_ptr + on, tl.max(tl.load(x_ptr + om * N + on[None, :]), axis=0))


@triton.jit
def colargmin(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)
    tl.store(y_ptr + on, tl.argmin(tl.load(x_ptr + om * N + on[None, :]), axis=0))


@triton.jit
def _sum_pairs(a, i, b, j):
    return a + b, i + j


@triton.jit
def pairsum(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Two sums in one reduction, one of them used: nothing needs the other's last loads.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)
    x = tl.load(x_ptr + om * N + on[None, :])
    tl.store(y_ptr + on, tl.reduce((x, x * 2), 0, _sum_pairs)[1])


@triton.jit
def pairscan(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Two prefix sums in one scan, one of them used.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + om * N + on)
    tl.store(y_ptr + om * N + on, tl.associative_scan((x, x * 2), 0, _sum_pairs)[1])


@triton.jit
def colmaxvalue(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # A maximum with its indices, of which only the values are used: the values need no index.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)
    v, i = tl.max(tl.load(x_ptr + om * N + on[None, :]), axis=0, return_indices=True)
    tl.store(y_ptr + on, v)


@triton.jit
def splithalf(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # A transposed tile split in two along its rows, one half used: the conversion's loads of
    # the other half's registers are dead.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    a, b = tl.split(tl.reshape(tl.trans(tl.load(x_ptr + om * N + on)), (N, M // 2, 2)))
    tl.store(y_ptr + tl.arange(0, N)[:, None] * (M // 2) + tl.arange(0, M // 2)[None, :], a)


REDUCTIONS = [(colmax, "colmax"), (colargmin, "colargmin")]
# Reductions and scans of several operands whose results are not all used, and a conversion of
# which half is used, on f32.
PARTLY_USED = [(pairsum, "pairsum"), (pairscan, "pairscan"), (colmaxvalue, "colmaxvalue"),
               (splithalf, "splithalf")]
REDUCED_TYPES = ["i32", "fp16", "fp32", "i8"]
REDUCED_SHAPES = [(256, 16, 8), (128, 64, 4), (64, 128, 8), (512, 8, 8)]

LOC = re.compile(r" loc\((?:[^()]|\([^()]*\))*\)")


def without_locations(ttgir):
    """The dump without ``#loc`` definitions and ``loc(...)`` suffixes (they name this script's
    lines, which the tests do not need)."""
    lines = [line for line in ttgir.splitlines() if not line.startswith("#loc")]
    return "\n".join(LOC.sub("", line) for line in lines) + "\n"


def random_blocked(rng, threads, warps, bits):
    """A blocked layout with 16 bytes per thread along a random dim and lanes and warps split at
    random between the two dims."""
    order = rng.choice([[1, 0], [0, 1]])
    size = [1, 1]
    size[order[0]] = 128 // bits
    lanes, w = [1, 1], [1, 1]
    t = threads
    while t > 1:
        lanes[rng.choice([0, 1])] *= 2
        t //= 2
    t = warps
    while t > 1:
        w[rng.choice([0, 1])] *= 2
        t //= 2
    return gl.BlockedLayout(size, lanes, w, order)


def cases():
    """Every (dump name, target name, target, compile) of the corpus, in order; the random
    draws replay the same from the seeds."""
    for seed in SEEDS:
        rng = random.Random(seed)
        for i in range(DRAWS):
            dtype, bits = rng.choice(TYPES)
            m, n = rng.choice(SHAPES)
            for target_name, target, threads in TARGETS:
                a = random_blocked(rng, threads, 4, bits)
                b = random_blocked(rng, threads, 4, bits)
                src = GluonASTSource(
                    cvt2d,
                    signature={"ptr": "*" + dtype, "out": "*" + dtype, "SRC": "constexpr", "DST": "constexpr",
                               "M": "constexpr", "N": "constexpr"},
                    constexprs={"SRC": a, "DST": b, "M": m, "N": n})
                yield (f"convert_{seed}_{i}_{target_name}.ttgir", target_name, target,
                       lambda src=src, target=target: triton.compile(src, target=target,
                                                                     options={"num_warps": 4}))
    for fn, name in REDUCTIONS:
        for dtype in REDUCED_TYPES:
            for m, n, warps in REDUCED_SHAPES:
                for target_name, target, _ in TARGETS:
                    sig = {"x_ptr": "*" + dtype, "y_ptr": "*i32" if name == "colargmin" else "*" + dtype,
                           "M": "constexpr", "N": "constexpr"}
                    yield (f"{name}_{dtype}_{m}x{n}w{warps}_{target_name}.ttgir", target_name, target,
                           lambda fn=fn, sig=sig, m=m, n=n, target=target, warps=warps: base.compile_case(
                               fn, sig, {"M": m, "N": n}, ["x_ptr", "y_ptr"], target, {"num_warps": warps}))
    for fn, name in PARTLY_USED:
        for m, n, warps in REDUCED_SHAPES:
            for target_name, target, _ in TARGETS:
                sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"}
                yield (f"{name}_fp32_{m}x{n}w{warps}_{target_name}.ttgir", target_name, target,
                       lambda fn=fn, sig=sig, m=m, n=n, target=target, warps=warps: base.compile_case(
                           fn, sig, {"M": m, "N": n}, ["x_ptr", "y_ptr"], target, {"num_warps": warps}))


def entry(file, target_name, target, kernel):
    """The manifest's entry of one compiled kernel."""
    asm = kernel.asm["ptx"] if target.backend == "cuda" else kernel.asm["amdgcn"]
    key = "shared_mnemonics" if target.backend == "cuda" else "lds"
    count = base.count_shared_mnemonics if target.backend == "cuda" else base.count_lds_mnemonics
    return {"file": file, "target": target_name, "shared_bytes": kernel.metadata.shared, key: count(asm)}


def check(every, out_dir, cases_to_check):
    """Compiles every `every`-th of `cases_to_check` again; exit status 1 unless each gives the
    entry `out_dir`'s manifest records."""
    with open(os.path.join(out_dir, "manifest.json")) as f:
        recorded = {e["file"]: e for e in json.load(f)}
    differences, compared = [], 0
    for file, target_name, target, compile_it in cases_to_check[::every]:
        got = entry(file, target_name, target, compile_it())
        compared += 1
        if got != recorded.get(file):
            differences.append(f"{file}: compiled {got}, recorded {recorded.get(file)}")
    for d in differences:
        print("DIFFERENT", d)
    print(f"{compared} dumps compiled again, {len(differences)} differences")
    return 1 if differences else 0


def write(out_dir, all_cases):
    """Compiles every case and writes its dump and the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    entries = []
    for file, target_name, target, compile_it in all_cases:
        kernel = compile_it()
        with open(os.path.join(out_dir, file), "w") as f:
            f.write(without_locations(kernel.asm["ttgir"]))
        entries.append(entry(file, target_name, target, kernel))
        print(f"ok   {file}: shared={kernel.metadata.shared}")
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    print(f"{len(entries)} dumps in {out_dir}")


def run(script, out_dir, all_cases, checked=lambda cs: cs, sample="dump"):
    """A corpus generator's command line: no argument writes the corpus; ``--check N`` compiles
    every N-th of the ``checked`` cases again."""
    if sys.argv[1:2] == ["--check"]:
        if len(sys.argv) != 3 or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
            sys.exit(f"usage: {script} [--check N]  (N >= 1: every N-th {sample})")
        sys.exit(check(int(sys.argv[2]), out_dir, checked(list(all_cases()))))
    if len(sys.argv) > 1:
        sys.exit(f"usage: {script} [--check N]")
    write(out_dir, all_cases())


def main():
    run("gen_scratch_corpus.py", OUT_DIR, cases, checked=lambda cs: [c for c in cs if c[2].backend == "hip"],
        sample="AMD dump")


if __name__ == "__main__":
    main()
