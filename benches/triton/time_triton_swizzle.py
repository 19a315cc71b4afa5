#!/usr/bin/env python3
"""Time Triton's own optimal-swizzle search inside the triton==3.9.0 wheel, per corpus pair.

Command (from the repository root)::

    python3 benches/triton/time_triton_swizzle.py

The wheel does not bind ``optimalSwizzling`` to Python, but its shared-memory allocation
pass calls it: for every ``ttg.convert_layout`` that goes through shared memory, the pass
sizes the scratch buffer with ``getNumScratchElemsSwizzledCvt``, which builds the optimal
swizzle for the conversion's store/load pair. So, for each pair of
``tests/vectors/triton/swizzle_corpus.json`` (the pairs layoutc's solver bench solves), this
script builds a one-function TTGIR module with that conversion and times the allocation pass
on it (NVIDIA's pass for ``cuda:*`` pairs, AMD's for ``hip:*``), and subtracts the time of the
same module whose conversion is trivial (source layout to itself: no swizzle, no scratch).
The difference is Triton's swizzle planning for that pair, plus the layout checks the pass
does first. Each module is parsed afresh before every run (the pass writes attributes);
only ``pass_manager.run`` is timed, with ``time.perf_counter_ns``, ``RUNS`` times each, and
the medians are subtracted.

Writes ``triton_swizzle_timings.json`` next to this script: per pair the median of each
module and their difference, and the median, p99 and max of the differences. The scratch
bytes the pass allocates are recorded too, and may not exceed the corpus's own record where
the corpus compiled the pair for its own target (the kernel's shared memory).

Only the installed wheel is called; no Triton source is copied here.
"""

import json
import os
import statistics
import sys
import tempfile
import time

TRITON_VERSION = "3.9.0"
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_PATH = os.path.join(HERE, "..", "..", "tests", "vectors", "triton", "swizzle_corpus.json")
OUT_PATH = os.path.join(HERE, "triton_swizzle_timings.json")
RUNS = 21

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton._C.libtriton import amd, ir, nvidia  # noqa: E402

ELEMENT = {8: "i8", 16: "f16", 32: "f32", 64: "i64"}


def module_text(pair, trivial):
    shape = "x".join(str(d) for d in pair["shape"])
    tensor = f"tensor<{shape}x{ELEMENT[pair['bits']]}, #{{}}>"
    dst = "src" if trivial else "dst"
    target = pair["target"]
    return (
        f"#src = {pair['src_ttgir']}\n"
        f"#dst = {pair['dst_ttgir']}\n"
        f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {pair["num_warps"]} : i32, '
        f'ttg.target = "{target}", "ttg.threads-per-warp" = {pair["warp_size"]} : i32}} {{\n'
        f"  tt.func public @cvt(%arg0: {tensor.format('src')}) -> {tensor.format(dst)} {{\n"
        f"    %0 = ttg.convert_layout %arg0 : {tensor.format('src')} -> {tensor.format(dst)}\n"
        f"    tt.return %0 : {tensor.format(dst)}\n"
        "  }\n"
        "}\n"
    )


def allocation_pass(ctx, target):
    pm = ir.pass_manager(ctx)
    backend, arch = target.split(":")
    if backend == "cuda":
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, int(arch), 86)
    else:
        amd.passes.ttgpuir.add_allocate_shared_memory(pm, arch)
    return pm


def time_module(ctx, path, text, target):
    with open(path, "w") as f:
        f.write(text)
    samples, shared = [], None
    for _ in range(RUNS):
        module = ir.parse_mlir_module(path, ctx)
        module.context = ctx
        pm = allocation_pass(ctx, target)
        start = time.perf_counter_ns()
        pm.run(module, "allocate")
        samples.append(time.perf_counter_ns() - start)
        shared = module.get_int_attr("ttg.shared") if hasattr(module, "get_int_attr") else None
        if shared is None:
            text_out = str(module)
            marker = "ttg.shared = "
            at = text_out.find(marker)
            shared = int(text_out[at + len(marker):].split(" ")[0]) if at >= 0 else None
    return statistics.median(samples), shared


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    with open(CORPUS_PATH) as f:
        corpus = json.load(f)
    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    amd.load_dialects(ctx)
    path = os.path.join(tempfile.mkdtemp(prefix="layoutc_triton_swizzle_"), "cvt.ttgir")
    rows = []
    for pair in corpus["pairs"]:
        with_swizzle, shared = time_module(ctx, path, module_text(pair, False), pair["target"])
        trivial, _ = time_module(ctx, path, module_text(pair, True), pair["target"])
        # The corpus compiled some sm80 pairs for sm90, whose tiles differ.
        recorded = pair.get("shared_bytes") if pair.get("compile_target") == pair["target"] else None
        if recorded is not None and shared is not None and shared > recorded:
            sys.exit(f"{pair['name']}: the pass allocates {shared} bytes, the kernel {recorded}")
        rows.append(
            {
                "name": pair["name"],
                "target": pair["target"],
                "scratch_bytes": shared,
                "median_ns_with_conversion": with_swizzle,
                "median_ns_trivial": trivial,
                "swizzle_ns": max(0, with_swizzle - trivial),
            }
        )
    differences = [r["swizzle_ns"] for r in rows]
    summary = {
        "pairs": len(rows),
        "median_ms": statistics.median(differences) / 1e6,
        "p99_ms": percentile(differences, 0.99) / 1e6,
        "max_ms": max(differences) / 1e6,
    }
    out = {
        "triton_version": TRITON_VERSION,
        "command": "python3 benches/triton/time_triton_swizzle.py",
        "runs_per_module": RUNS,
        "summary": summary,
        "pairs": rows,
    }
    with open(OUT_PATH, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
