#!/usr/bin/env python3
"""The solver's answers compiled into real kernels, and their PTX run lane by lane.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed. Needs a built
``layoutc`` (``cargo build -p layoutc``; the binary is ``$LAYOUTC`` or ``target/debug/layoutc``).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_ptx_answers.py [SHARD COUNT]   # all: about 15 minutes on 2 cores
    python3 tests/vectors/triton/gen_ptx_answers.py --merge COUNT
    python3 tests/vectors/triton/gen_ptx_answers.py --check N       # CI's sample: N problems again
    python3 tests/vectors/triton/gen_ptx_answers.py --retry         # compile again what failed

A seeded generator draws shared-memory problems the swizzle corpus does not have: 2-D tensors
of 8/16/32/64-bit elements, 1 to 16 warps, sm80 or sm90, and 2 to 4 accesses (write/read,
write/read/read, write/read/write/read) in coalesced, random blocked, random linear, mma v2 and
v3 accumulator and mma v2 dot-operand layouts. Each problem is solved by ``layoutc solve`` in
the linear, triton and padded families with ``instructions = best``; each answer is compiled
as a Gluon kernel for its target that does the accesses, in order, on an explicit buffer in
the answer's layout (a barrier between two reads, so that each access is one stretch of the
PTX), and a 2-access problem is also compiled as Triton's own ``convert_layout``.

Every thread's PTX is run by the interpreter of ``gen_ptx_wavefronts.py``. Per access and per
warp the file records the shared-memory instructions the warp issues (as the PTX spells them),
the wavefronts they take under the phase rules measured on an H100, and the lanes whose
address is not a multiple of the bytes they move (a misaligned vector faults on hardware).
``crates/layout-solve/tests/compiled_answers.rs`` requires each answer's claims to be these.
"""

import json
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_swizzle_corpus import (PTR_BY_BITS, GPUTarget, GluonASTSource, coalesced, dot,  # noqa: E402
                                fitting_warps, gl, gluon, mma, mma3_params, rand_blocked, rand_linear,
                                triton, _side_child)
from gen_convert_vectors import cvt2d  # noqa: E402
from gen_triton_vectors import isolated, make_layout  # noqa: E402
from gen_hw_kernels import FAMILIES, ELEMENT_BY_BITS, shared_layout, solve_answers  # noqa: E402
import gen_ptx_wavefronts as ptx_oracle  # noqa: E402

OUT = os.path.join(HERE, "ptx_answers.json")
SEED = 0x19C0
PROBLEMS = 330
PATTERNS = {2: "WR", 3: "WRR", 4: "WRWR"}
BARRIER = re.compile(r"^(bar\.sync|barrier\.sync|bar\.warp\.sync)")


@gluon.jit
def _offsets(L: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    om = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    return om[:, None] * N + on[None, :]


@gluon.jit
def wr(ptr, out, A: gl.constexpr, B: gl.constexpr, SMEM: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(gl.load(ptr + _offsets(A, M, N)))
    gl.store(out + _offsets(B, M, N), smem.load(B))


@gluon.jit
def wrr(ptr, out, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, SMEM: gl.constexpr, M: gl.constexpr,
        N: gl.constexpr):
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(gl.load(ptr + _offsets(A, M, N)))
    y = smem.load(B)
    gl.barrier()
    z = smem.load(C)
    gl.store(out + _offsets(B, M, N), y)
    gl.store(out + M * N + _offsets(C, M, N), z)


@gluon.jit
def wrwr(ptr, out, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, D: gl.constexpr, SMEM: gl.constexpr,
         M: gl.constexpr, N: gl.constexpr):
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(gl.load(ptr + _offsets(A, M, N)))
    y = smem.load(B)
    gl.barrier()
    smem.store(gl.load(ptr + M * N + _offsets(C, M, N)))
    z = smem.load(D)
    gl.store(out + _offsets(B, M, N), y)
    gl.store(out + M * N + _offsets(D, M, N), z)


KERNELS = {"WR": wr, "WRR": wrr, "WRWR": wrwr}


# --------------------------------------------------------------------------------------
# Problems
# --------------------------------------------------------------------------------------

def draw_layout(rng, kind, shape, num_warps, bits, target):
    if kind == "coalesced":
        return coalesced(shape, bits, num_warps, 32, rng.choice([[1, 0], [0, 1]]))
    if kind == "blocked":
        return rand_blocked(rng, shape, num_warps, 32)
    if kind == "linear":
        return rand_linear(rng, shape, num_warps, 32)
    if kind == "mma2":
        return mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8])
    if kind == "mma3":
        return mma3_params(rng, shape, num_warps, 16)
    if kind == "dot":
        parent = mma(2, fitting_warps(rng, num_warps, shape, [16, 8]), [16, 8])
        return dot(rng.randint(0, 1), parent, max(1, 32 // bits))
    raise ValueError(kind)


def layout_kinds(shape, num_warps, bits, target):
    kinds = ["coalesced", "coalesced", "blocked", "linear"]
    if shape[0] >= 16 and shape[1] >= 8:
        kinds.append("mma2")
        if bits <= 32:
            kinds += ["dot", "dot"] if bits == 16 else ["dot"]
    if target == "sm90" and num_warps in (4, 8) and shape[0] >= 64:
        kinds.append("mma3")
    return kinds


def draw_problems(count):
    rng = random.Random(SEED)
    problems, seen = [], set()
    tries = 0
    while len(problems) < count and tries < count * 20:
        tries += 1
        target = rng.choice(["sm80", "sm90"])
        num_warps = rng.choice([1, 2, 4, 8, 16])
        bits = rng.choice([8, 16, 32, 64])
        shape = [rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])]
        numel = shape[0] * shape[1]
        if numel < 32 * num_warps or numel * bits // 8 > 32768:
            continue
        n = rng.choice([2, 2, 3, 4])
        kinds = layout_kinds(shape, num_warps, bits, target)
        accesses = []
        for direction in PATTERNS[n]:
            params = draw_layout(rng, rng.choice(kinds), shape, num_warps, bits, target)
            res = isolated(_side_child, params, shape, bits)
            if res[0] != "ok":
                break
            accesses.append({"direction": "write" if direction == "W" else "read", "params": params,
                             "ttgir": res[1]["ttgir"], "ll": res[1]["ll"]})
        if len(accesses) != n:
            continue
        # Two accesses in one layout would be folded together by the compiler.
        lls = [json.dumps(a["ll"]) for a in accesses]
        if len(set(lls)) != n:
            continue
        key = json.dumps([lls, shape, bits, target])
        if key in seen:
            continue
        seen.add(key)
        problems.append({"name": f"p{len(problems):03d}", "target": target, "num_warps": num_warps,
                         "bits": bits, "shape": shape, "accesses": accesses})
    return problems


# --------------------------------------------------------------------------------------
# Solving and compiling
# --------------------------------------------------------------------------------------

def solve_text(problem):
    dims = "x".join(str(s) for s in problem["shape"])
    elem = ELEMENT_BY_BITS[problem["bits"]]
    text = f"target = {problem['target']}\n"
    for i, a in enumerate(problem["accesses"]):
        text += f"#l{i} = {a['ttgir']}\n"
    for family in FAMILIES:
        text += f"solve {family} {{\n    kind = swizzle\n"
        for i, a in enumerate(problem["accesses"]):
            text += f"    {a['direction']} = tensor<{dims}x{elem}, #l{i}>\n"
        text += f"    family = {family}\n    instructions = best\n}}\n"
    return text


def layoutc_solve(binary, problem):
    return solve_answers(binary, solve_text(problem), timeout=300)


def kernel_source(problem, kind, answer):
    m, n = problem["shape"]
    layouts = [make_layout(a["params"]) for a in problem["accesses"]]
    ptr = PTR_BY_BITS[problem["bits"]]
    if kind == "own":
        consts = {"SRC": layouts[0], "DST": layouts[1], "M": m, "N": n}
        fn = cvt2d
    else:
        pattern = PATTERNS[len(layouts)]
        consts = dict(zip("ABCD", layouts))
        consts.update({"SMEM": shared_layout(answer, problem["shape"]), "M": m, "N": n})
        fn = KERNELS[pattern]
    sig = {"ptr": ptr, "out": ptr}
    sig.update({k: "constexpr" for k in consts})
    return GluonASTSource(fn, signature=sig, constexprs=consts)


def segments(ptx, num_warps):
    """Per stretch of the PTX between barriers that touches shared memory, per warp: the
    shared-memory instructions the warp issues, their wavefronts and the misaligned lanes."""
    program, labels = ptx_oracle.parse(ptx)
    stretch_of, stretch = {}, 0
    for index, (_, op, _, _) in enumerate(program):
        if BARRIER.match(op):
            stretch += 1
        stretch_of[index] = stretch
    per_warp = {}
    for tid in range(32 * num_warps):
        for index, op, addr in ptx_oracle.run_lane(program, labels, tid, {}, num_warps):
            lanes = per_warp.setdefault((stretch_of[index], tid // 32, index, op), {})
            if addr is not None:
                lanes[tid % 32] = addr
    out = {}
    for (s, warp, _, op), lanes in sorted(per_warp.items()):
        warps = out.setdefault(s, {})
        w = warps.setdefault(warp, {"instructions": {}, "wavefronts": 0, "misaligned": 0})
        w["instructions"][op] = w["instructions"].get(op, 0) + 1
        w["wavefronts"] += ptx_oracle.warp_wavefronts(op, lanes) if lanes else 0
        size = 16 if op.startswith(("ldmatrix", "stmatrix")) else ptx_oracle.width_bits(op) // 8
        w["misaligned"] += sum(1 for a in lanes.values() if a % size)
    return [[out[s][w] for w in sorted(out[s])] for s in sorted(out)]


def compile_and_run(problem, kind, answer):
    target = GPUTarget("cuda", int(problem["target"][2:]), 32)
    k = triton.compile(kernel_source(problem, kind, answer), target=target,
                       options={"num_warps": problem["num_warps"], "num_ctas": 1})
    return {"shared_bytes": k.metadata.shared, "accesses": segments(k.asm["ptx"], problem["num_warps"])}


def run_problems(binary, problems):
    for p in problems:
        t = time.time()
        answers = layoutc_solve(binary, p)
        p["kernels"] = []
        kinds = (("own",) if len(p["accesses"]) == 2 else ()) + FAMILIES
        for kind in kinds:
            sol = answers.get(kind)
            entry = {"kind": kind}
            if kind != "own":
                entry["layoutc"] = sol
                if sol is None or "linear" not in sol:
                    entry["unanswered"] = True
                    p["kernels"].append(entry)
                    continue
            res = isolated(compile_and_run, p, kind, sol, timeout=180)
            if res[0] == "ok":
                entry.update(res[1])
            else:
                entry["compile_error"] = f"{res[0]}: {res[1]}"
            p["kernels"].append(entry)
        print(f"{p['name']} {p['target']} {p['num_warps']}w {p['bits']}b {len(p['accesses'])} accesses "
              f"{time.time() - t:.1f} s", file=sys.stderr, flush=True)
    return problems


def write(problems, path):
    """One problem per line (a regeneration's diff shows which changed)."""
    head = json.dumps({"triton_version": triton.__version__, "seed": SEED})[:-1]
    lines = ",\n".join(json.dumps(p, separators=(",", ":")) for p in problems)
    with open(path, "w") as fh:
        fh.write(f"{head}, \"problems\": [\n{lines}\n]}}\n")


def main():
    binary = os.environ.get("LAYOUTC", "target/debug/layoutc")
    args = sys.argv[1:]
    if args[:1] == ["--merge"]:
        problems = []
        for shard in range(int(args[1])):
            with open(f"{OUT}.{shard}") as fh:
                problems += json.load(fh)["problems"]
        problems.sort(key=lambda p: p["name"])
        write(problems, OUT)
        os._exit(0)
    if args[:1] == ["--retry"]:
        # Compile again the kernels that failed (after the interpreter learnt an instruction).
        with open(OUT) as fh:
            problems = json.load(fh)["problems"]
        for p in problems:
            for k in p["kernels"]:
                if "compile_error" in k:
                    res = isolated(compile_and_run, p, k["kind"], k.get("layoutc"), timeout=180)
                    if res[0] == "ok":
                        del k["compile_error"]
                        k.update(res[1])
                    else:
                        k["compile_error"] = f"{res[0]}: {res[1]}"
                        print(p["name"], k["kind"], k["compile_error"][:200], file=sys.stderr)
        write(problems, OUT)
        os._exit(0)
    if args[:1] == ["--check"]:
        # Compile a sample again: the recorded kernels of the first N problems must come back.
        with open(OUT) as fh:
            recorded = json.load(fh)["problems"][:int(args[1])]
        differ = []
        for p in recorded:
            for k in p["kernels"]:
                if "accesses" not in k:
                    continue
                res = isolated(compile_and_run, p, k["kind"], k.get("layoutc"), timeout=180)
                if res[0] != "ok" or res[1] != {"shared_bytes": k["shared_bytes"], "accesses": k["accesses"]}:
                    differ.append(f"{p['name']}.{k['kind']}")
        print(f"{len(recorded)} problems compiled again; differ: {differ}")
        os._exit(1 if differ else 0)
    shard, count = (int(args[0]), int(args[1])) if len(args) >= 2 else (0, 1)
    problems = draw_problems(PROBLEMS)[shard::count]
    run_problems(binary, problems)
    write(problems, OUT if count == 1 else f"{OUT}.{shard}")
    os._exit(0)


if __name__ == "__main__":
    main()
