#!/usr/bin/env python3
"""layoutc's answers and Triton's own conversions compiled for AMD (CPU only).

Triton version: 3.9.0 (``pip install triton==3.9.0``). Needs a built ``layoutc``
(``cargo build -p layoutc``; the binary is taken from ``$LAYOUTC`` or ``target/debug/layoutc``).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_amd_kernels.py 0 2 &   # one shard per core
    python3 tests/vectors/triton/gen_amd_kernels.py 1 2
    python3 tests/vectors/triton/gen_amd_kernels.py --merge 2  # writes amd_kernels.json

about 20 minutes on 2 cores.

For every 64-lane pair of ``swizzle_corpus.json`` (``target`` ``hip:gfx942``: mfma accumulators,
64-lane blocked and linear layouts) and for each of gfx942 and gfx950, four Gluon kernels are
compiled for ``GPUTarget("hip", ARCH, 64)``, as ``gen_hw_kernels.py`` does for sm90:

- ``own``: load in the source layout, ``gl.convert_layout``, store in the destination layout
  (Triton's own shared layout, or no shared memory at all);
- ``linear``, ``triton``, ``padded``: an explicit shared buffer in layoutc's answer of that
  family (``layoutc solve`` with ``target = ARCH`` and ``instructions = best``), written with
  ``smem.store`` and read with ``smem.load``.

``amd_kernels.json`` holds, per kernel, its pair, arch, kind, warps, element bits, shape,
``shared_bytes`` (``metadata.shared``), ``lds`` (every LDS instruction of the AMDGCN by its exact
mnemonic, with its static count) and for answers ``layoutc`` (the solve JSON: family, notations,
accesses with the instruction each uses and how many). The test
``crates/layout-db/tests/amd_kernels.rs`` requires the instructions layoutc claims to be the
ones the compiler emitted.
"""

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_hw_kernels import FAMILIES, kernel_source, layoutc_solve  # noqa: E402
from gen_swizzle_corpus import triton, GPUTarget  # noqa: E402
from gen_triton_vectors import isolated  # noqa: E402
from gen_ttgir_corpus import count_lds_mnemonics  # noqa: E402


ARCHS = ("gfx942", "gfx950")
OUT = os.path.join(HERE, "amd_kernels.json")


def compile_kernel(pair, arch, kind, answer):
    k = triton.compile(kernel_source(pair, kind, answer), target=GPUTarget("hip", arch, 64),
                       options={"num_warps": pair["num_warps"], "num_ctas": 1})
    return {"shared_bytes": k.metadata.shared, "lds": count_lds_mnemonics(k.asm["amdgcn"])}


def main():
    t0 = time.time()
    if sys.argv[1:2] == ["--merge"]:
        count = int(sys.argv[2])
        kernels = []
        for shard in range(count):
            with open(f"{OUT}.{shard}") as fh:
                kernels += json.load(fh)
        order = ("own", *FAMILIES)
        kernels.sort(key=lambda k: (k["pair"], k["arch"], order.index(k["kind"])))
        with open(OUT, "w") as fh:
            json.dump({"triton_version": triton.__version__,
                       "command": "python3 tests/vectors/triton/gen_amd_kernels.py",
                       "kernels": kernels}, fh, indent=1)
            fh.write("\n")
        for shard in range(count):
            os.unlink(f"{OUT}.{shard}")
        os._exit(0)
    shard, count = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (0, 1)
    binary = os.environ.get("LAYOUTC", "target/debug/layoutc")
    corpus = json.load(open(os.path.join(HERE, "swizzle_corpus.json")))
    pairs = [p for p in corpus["pairs"] if p["warp_size"] == 64][shard::count]
    kernels = []
    for p in pairs:
        for arch in ARCHS:
            answers = layoutc_solve(binary, p, arch)
            for kind in ("own", *FAMILIES):
                sol = answers.get(kind)
                entry = {"pair": p["name"], "arch": arch, "kind": kind, "num_warps": p["num_warps"],
                         "bits": p["bits"], "shape": p["shape"]}
                if kind != "own":
                    entry["layoutc"] = sol
                    if sol is None or "linear" not in sol:
                        entry["unanswered"] = True
                        kernels.append(entry)
                        continue
                res = isolated(compile_kernel, p, arch, kind, sol, timeout=120)
                if res[0] == "ok":
                    entry.update(res[1])
                else:
                    entry["compile_error"] = f"{res[0]}: {res[1]}"
                kernels.append(entry)
        print(p["name"], f"{time.time() - t0:.0f} s", file=sys.stderr)
    with open(f"{OUT}.{shard}", "w") as fh:
        json.dump(kernels, fh, indent=1)
    bad = sum(1 for k in kernels if "compile_error" in k)
    print(f"{len(kernels)} kernels ({bad} compile errors), {time.time() - t0:.0f} s", file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
