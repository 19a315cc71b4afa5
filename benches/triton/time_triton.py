#!/usr/bin/env python3
"""Time Triton's own C++ layout code (through the triton==3.9.0 wheel's Python bindings).

Command (from the repository root)::

    python3 benches/triton/time_triton.py

Everything is measured in-process (Python start-up and imports are not counted) with
``timeit.Timer(..., timer=time.perf_counter_ns)``: the statement is compiled into timeit's
loop, garbage collection is off while timing, each repeat runs for about 0.5 s, there are 5
repeats, and the median ns/op is reported. Nothing is subtracted: every figure includes the
Python -> C++ binding call (argument conversion, result conversion). ``binding_overhead_ns``
(``ll.num_in_dims``, a trivial property getter) is reported separately so that readers can judge
how much of a figure is call overhead.

Writes, next to this script:

* ``triton_timings.json``: {"triton_version", "python", "binding_overhead_ns", ...,
  "cases": [{"name", "ns_per_op", "iterations", "min_ns_per_op",
  "repeats_ns_per_op"}], "supplementary": [...]}  (iterations = loop count of one repeat)
* ``bench_cases.json``: inputs and results of every case, so that the Rust benchmark can
  check it computes the same thing on the same inputs.

Only the installed wheel is called; no Triton source is copied here.
"""

import json
import os
import platform
import statistics
import sys
import time
import timeit

TRITON_VERSION = "3.9.0"
HERE = os.path.dirname(os.path.abspath(__file__))
TIMINGS_PATH = os.path.join(HERE, "triton_timings.json")
CASES_PATH = os.path.join(HERE, "bench_cases.json")

TARGET_NS = 500_000_000  # per repeat
REPEATS = 5
COLD_BUDGET_NS = 400_000_000  # per supplementary cold case
COLD_MAX_SAMPLES = 200

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton._C.libtriton import gluon_ir, ir  # noqa: E402
from triton._C.libtriton.linear_layout import LinearLayout  # noqa: E402
from triton.experimental.gluon.language._layouts import (  # noqa: E402
    DistributedLinearLayout, SharedLinearLayout)

SHAPES = [[64, 64], [128, 128], [256, 256]]

# Layout parameters (one CTA).
BLOCKED = dict(sizePerThread=[1, 4], threadsPerWarp=[2, 16], warpsPerCTA=[4, 1], order=[1, 0], CGALayout=[])
MMA_V2 = dict(version=[2, 0], warpsPerCTA=[2, 2], instrShape=[16, 8], CGALayout=[])
SWIZZLED = dict(vec=8, perPhase=1, maxPhase=8, order=[1, 0], CGALayout=[])


def new_builder():
    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx, "")
    return ctx, b


def make_attrs(b):
    blocked = b.get_blocked_layout(BLOCKED["sizePerThread"], BLOCKED["threadsPerWarp"], BLOCKED["warpsPerCTA"],
                                   BLOCKED["order"], BLOCKED["CGALayout"])
    mma = b.get_mma_layout(MMA_V2["version"], MMA_V2["warpsPerCTA"], MMA_V2["CGALayout"], MMA_V2["instrShape"])
    swizzled = b.get_swizzled_shared_layout(SWIZZLED["vec"], SWIZZLED["perPhase"], SWIZZLED["maxPhase"],
                                            SWIZZLED["order"], SWIZZLED["CGALayout"])
    return {"blocked": blocked, "mma_v2": mma, "swizzled": swizzled}


CTX, B = new_builder()
# get_shared_bank_conflicts needs an insertion point inside a module.
_MODULE = B.create_module()
_FN = B.get_or_insert_function(_MODULE, "layoutc_bench", B.get_function_ty([], []), "public", False)
_MODULE.push_back(_FN)
B.set_insertion_point_to_start(_FN.add_entry_block())
ATTRS = make_attrs(B)

# --------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------


def dist_to_ll(res):
    """DistributedLinearLayout (Python) -> LinearLayout (C++ object via from_bases)."""
    bases = [("register", res.reg_bases), ("lane", res.lane_bases), ("warp", res.warp_bases),
             ("block", res.block_bases)]
    shape = list(res.shape)
    return LinearLayout.from_bases(bases, [f"dim{i}" for i in range(len(shape))], shape, False)


def shared_to_ll(res, shape):
    bases = [("offset", res.offset_bases), ("block", res.block_bases)]
    return LinearLayout.from_bases(bases, [f"dim{i}" for i in range(len(shape))], list(shape), False)


def ll_json(ll):
    return {"bases": [[n, [list(v) for v in bs]] for n, bs in ll.bases],
            "outDims": [[n, int(s)] for n, s in ll.out_dims],
            "surjective": bool(ll.is_surjective())}


def encode_result_json(kind, res, shape):
    if kind == "swizzled":
        return {"bases": [["offset", [list(v) for v in res.offset_bases]],
                          ["block", [list(v) for v in res.block_bases]]],
                "outDims": [[f"dim{i}", int(s)] for i, s in enumerate(shape)],
                "alignment": res.alignment}
    return {"bases": [["register", [list(v) for v in res.reg_bases]], ["lane", [list(v) for v in res.lane_bases]],
                      ["warp", [list(v) for v in res.warp_bases]], ["block", [list(v) for v in res.block_bases]]],
            "outDims": [[f"dim{i}", int(s)] for i, s in enumerate(res.shape)]}


PARAMS = {
    "blocked": dict(kind="blocked", **BLOCKED),
    "mma_v2": dict(kind="nvidia_mma", versionMajor=2, versionMinor=0, warpsPerCTA=MMA_V2["warpsPerCTA"],
                   instrShape=MMA_V2["instrShape"], CGALayout=[]),
    "swizzled": dict(kind="swizzled_shared", **SWIZZLED),
}

# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


def bench(stmt, g):
    """Median ns/op over REPEATS repeats of about TARGET_NS each."""
    t = timeit.Timer(stmt, timer=time.perf_counter_ns, globals=g)
    n = 1
    while True:  # calibrate: grow until one run takes >= 50 ms
        el = t.timeit(n)
        if el >= 50_000_000:
            break
        n = n * 10 if el < 5_000_000 else max(n + 1, int(n * 60_000_000 / max(el, 1)))
    n = max(1, int(n * TARGET_NS / el))
    samples = [t.timeit(n) / n for _ in range(REPEATS)]
    return statistics.median(samples), n, samples


def cold_encode(kind, shape):
    """First to_linear_layout call for the attribute in a fresh MLIR context (the context's
    LinearLayout cache is empty). One timed call per context; median over the samples."""
    samples = []
    spent = 0
    while spent < COLD_BUDGET_NS and len(samples) < COLD_MAX_SAMPLES:
        t0 = time.perf_counter_ns()
        ctx, b = new_builder()
        attr = make_attrs(b)[kind]
        s0 = time.perf_counter_ns()
        b.to_linear_layout(attr, shape)
        s1 = time.perf_counter_ns()
        samples.append(s1 - s0)
        del attr, b, ctx
        spent += time.perf_counter_ns() - t0
    return statistics.median(samples), len(samples)


def main():
    t_start = time.perf_counter()
    cases = []  # timing rows
    dumps = []  # bench_cases.json rows
    supp = []

    def record(name, stmt, g):
        med, n, samples = bench(stmt, g)
        cases.append({"name": name, "ns_per_op": round(med, 1), "iterations": n, "min_ns_per_op": round(min(samples), 1),
                      "repeats_ns_per_op": [round(s, 1) for s in samples]})
        print(f"  {name:<45} {med:>12.1f} ns/op  ({n} iters x {REPEATS})", file=sys.stderr)

    # Encodings -------------------------------------------------------------------------
    lls = {}
    for kind, label in (("blocked", "blocked"), ("mma_v2", "mma_v2"), ("swizzled", "swizzled")):
        for shape in SHAPES:
            name = f"encode_{label}_{shape[0]}x{shape[1]}"
            attr = ATTRS[kind]
            res = B.to_linear_layout(attr, shape)
            dumps.append({"name": name, "inputs": {"layout": PARAMS[kind], "shape": shape},
                          "result": encode_result_json(kind, res, shape)})
            lls[(kind, tuple(shape))] = (shared_to_ll(res, shape) if kind == "swizzled" else dist_to_ll(res))
            record(name, "b.to_linear_layout(attr, shape)", {"b": B, "attr": attr, "shape": shape})

    # LinearLayout operations -----------------------------------------------------------
    L1 = lls[("blocked", (128, 128))]
    S = lls[("swizzled", (128, 128))]
    M = lls[("mma_v2", (128, 128))]
    L2 = S.invert()

    res = L1.compose(L2)
    dumps.append({"name": "compose_128x128", "op": "L1.compose(L2)",
                  "inputs": {"L1": ll_json(L1), "L2": ll_json(L2), "L2_is_invert_of": ll_json(S)},
                  "result": ll_json(res)})
    record("compose_128x128", "L1.compose(L2)", {"L1": L1, "L2": L2})

    res = L1.invert_and_compose(S)
    dumps.append({"name": "invert_and_compose_128x128", "op": "L1.invert_and_compose(S)",
                  "inputs": {"L1": ll_json(L1), "S": ll_json(S)}, "result": ll_json(res)})
    record("invert_and_compose_128x128", "L1.invert_and_compose(S)", {"L1": L1, "S": S})

    res = M.invert_and_compose(L1)
    dumps.append({"name": "invert_and_compose_mma_to_blocked_128x128", "op": "M.invert_and_compose(L1)",
                  "inputs": {"M": ll_json(M), "L1": ll_json(L1)}, "result": ll_json(res)})
    record("invert_and_compose_mma_to_blocked_128x128", "M.invert_and_compose(L1)", {"M": M, "L1": L1})

    # Bank conflicts --------------------------------------------------------------------
    shape = [128, 128]
    for name, reg in (("bank_conflicts_128x128_f16", "blocked"), ("bank_conflicts_mma_128x128_f16", "mma_v2")):
        ra, sa = ATTRS[reg], ATTRS["swizzled"]
        n = B.get_shared_bank_conflicts(ra, sa, shape, 16)
        dumps.append({"name": name, "op": "get_shared_bank_conflicts(reg, shared, shape, 16)",
                      "inputs": {"reg": PARAMS[reg], "shared": PARAMS["swizzled"], "shape": shape, "bitwidth": 16,
                                 "reg_ll": ll_json(lls[(reg, (128, 128))]),
                                 "shared_ll": ll_json(lls[("swizzled", (128, 128))])},
                      "result": int(n)})
        record(name, "b.get_shared_bank_conflicts(ra, sa, shape, 16)",
               {"b": B, "ra": ra, "sa": sa, "shape": shape})

    # Overheads (reported, never subtracted) --------------------------------------------
    print("  -- overheads --", file=sys.stderr)
    ov_bind, ov_n, _ = bench("ll.num_in_dims", {"ll": L1})
    ov_meth, _, _ = bench("ll.get_in_dim_names()", {"ll": L1})
    ov_loop, _, _ = bench("pass", {})
    print(f"  {'binding_overhead_ns (ll.num_in_dims)':<45} {ov_bind:>12.1f} ns/op", file=sys.stderr)
    print(f"  {'ll.get_in_dim_names() (4-str list)':<45} {ov_meth:>12.1f} ns/op", file=sys.stderr)
    print(f"  {'loop_overhead_ns (empty statement)':<45} {ov_loop:>12.1f} ns/op", file=sys.stderr)

    # Supplementary: cold encodes and the Python-side result construction ----------------
    print("  -- supplementary --", file=sys.stderr)
    for kind in ("blocked", "mma_v2", "swizzled"):
        for shp in SHAPES:
            name = f"encode_{kind}_{shp[0]}x{shp[1]}_first_call_fresh_context"
            med, n = cold_encode(kind, shp)
            supp.append({"name": name, "ns_per_op": round(med, 1), "samples": n,
                         "what": "first to_linear_layout call for this attribute+shape in a fresh MLIR context "
                                 "(empty LinearLayout cache); one timed call per context, median of samples"})
            print(f"  {name:<55} {med:>12.1f} ns/op  ({n} samples)", file=sys.stderr)
    # How much of a (cached) encode is building the Python result object?
    for kind, shp in (("blocked", [128, 128]), ("mma_v2", [128, 128]), ("swizzled", [128, 128])):
        res = B.to_linear_layout(ATTRS[kind], shp)
        if kind == "swizzled":
            stmt, g = "C(ob, bb, al)", {"C": SharedLinearLayout, "ob": res.offset_bases, "bb": res.block_bases,
                                        "al": res.alignment}
        else:
            stmt, g = "C(r, l, w, k, s)", {"C": DistributedLinearLayout, "r": res.reg_bases, "l": res.lane_bases,
                                           "w": res.warp_bases, "k": res.block_bases, "s": res.shape}
        med, n, _ = bench(stmt, g)
        name = f"python_result_object_{kind}_128x128"
        supp.append({"name": name, "ns_per_op": round(med, 1), "iterations": n,
                     "what": f"constructing the Python {type(res).__name__} dataclass that to_linear_layout "
                             "returns, from already-Python lists (a lower bound on the Python-side share of "
                             "encode_*; the C++ -> Python list conversion is not included)"})
        print(f"  {name:<55} {med:>12.1f} ns/op", file=sys.stderr)

    out = {
        "triton_version": triton.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "command": "python3 benches/triton/time_triton.py",
        "method": f"timeit.Timer(stmt, timer=time.perf_counter_ns) in-process, gc off, {REPEATS} repeats of "
                  f"~{TARGET_NS / 1e9:.1f} s, median ns/op; nothing subtracted",
        "binding_overhead_ns": round(ov_bind, 1),
        "binding_overhead_call": "ll.num_in_dims (nanobind property getter returning an int) on a LinearLayout",
        "method_call_overhead_ns": round(ov_meth, 1),
        "method_call_overhead_call": "ll.get_in_dim_names() (bound C++ method returning a list of 4 str)",
        "loop_overhead_ns": round(ov_loop, 1),
        "notes": [
            "encode_*: GluonOpBuilder.to_linear_layout(attr, shape) calls C++ toLinearLayout, which is memoised "
            "per MLIR context (TritonGPU dialect LinearLayoutCache), so repeated calls measure a cache hit plus "
            "converting the C++ LinearLayout into a new Python DistributedLinearLayout/SharedLinearLayout "
            "dataclass on every call; see supplementary *_first_call_fresh_context for the uncached cost.",
            "bank_conflicts_*: get_shared_bank_conflicts returns an int; its two toLinearLayout calls hit the "
            "same cache, so the figure is mostly the bank-conflict computation itself.",
            "compose/invert_and_compose: C++ LinearLayout methods on objects built once with from_bases; the "
            "result is a new wrapped C++ LinearLayout (no Python-side conversion of the bases).",
        ],
        "cases": cases,
        "supplementary": supp,
    }
    with open(TIMINGS_PATH, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    with open(CASES_PATH, "w") as fh:
        fh.write('{\n "triton_version": %s,\n "command": %s,\n "cases": [\n' % (
            json.dumps(triton.__version__), json.dumps("python3 benches/triton/time_triton.py")))
        for i, d in enumerate(dumps):
            fh.write("  " + json.dumps(d, separators=(",", ":")) + (",\n" if i + 1 < len(dumps) else "\n"))
        fh.write(" ]\n}\n")

    # Table -------------------------------------------------------------------------------
    print(f"triton {triton.__version__}, python {out['python']}, {platform.machine()}")
    print(f"binding overhead (ll.num_in_dims): {ov_bind:.1f} ns/op; ll.get_in_dim_names(): {ov_meth:.1f} ns/op; "
          f"empty loop: {ov_loop:.1f} ns/op")
    print(f"{'case':<45} {'ns/op (median)':>15} {'min':>12} {'iterations':>11}")
    print("-" * 86)
    for c in cases:
        print(f"{c['name']:<45} {c['ns_per_op']:>15.1f} {c['min_ns_per_op']:>12.1f} {c['iterations']:>11}")
    print("supplementary:")
    for c in supp:
        print(f"  {c['name']:<55} {c['ns_per_op']:>12.1f}")
    print(f"wrote {TIMINGS_PATH}\nwrote {CASES_PATH}\n(total {time.perf_counter() - t_start:.1f} s)")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip nanobind leak reports at interpreter shutdown


if __name__ == "__main__":
    main()
