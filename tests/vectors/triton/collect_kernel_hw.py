#!/usr/bin/env python3
"""Join a gen_kernel_hw.py manifest with what measure_kernel_hw.sh read on the GPU.

Command (from the repository root)::

    python3 tests/vectors/triton/collect_kernel_hw.py HW_DIR MEASURED_DIR

writes ``tests/vectors/triton/hw_sm90_kernels.json``: for every kernel its corpus and dump file
(``tests/corpus/<corpus>/<file>``), warps, shared bytes, the PTX shared-memory opcodes of the
build that ran, the SASS ones (and how many of its loads ptxas predicates never to run), and ``hw``: the Nsight Compute counters of its one program, summed over every
warp (or ``fault``: the CUDA error of a kernel that did not run). Where measure_kernel_hw.sh
read the counters per SASS instruction (``SOURCE=1``), ``sass_shared`` lists every
shared-memory instruction of the kernel in address order with the warp-instructions executed,
the wavefronts it took and the wavefronts it would take without conflicts (Nsight Compute's
"L1 Wavefronts Shared" and "... Ideal").
"""

import json
import os
import sys

from collect_hw import read_rows, sass_shared

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "hw_sm90_kernels.json")


def main():
    hw_dir, measured = sys.argv[1], sys.argv[2]
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    gpu = open(os.path.join(measured, "gpu.txt")).read().splitlines()
    metrics = [m for m in gpu[-1].removeprefix("metrics: ").split(",") if m]
    probes = dict(line.split(" ", 1) for line in open(os.path.join(measured, "probes.txt")).read().splitlines())
    kernels = []
    for k in manifest["kernels"]:
        if "cubin" not in k:
            continue
        entry = {key: k[key] for key in ("corpus", "kernel", "file", "num_warps", "shared_bytes",
                                         "ptx_shared_opcodes", "sass_shared_opcodes",
                                         "sass_never_executed_loads")}
        entry["args"] = k["args"]
        verdict = probes.get(k["kernel"], "fault: not launched")
        if verdict != "ok":
            entry["fault"] = verdict.removeprefix("fault: ")
        else:
            rows = read_rows(os.path.join(measured, "ncu", f"{k['kernel']}.csv"))
            if len(rows) != 1 or rows[0]["Kernel Name"] != k["entry"]:
                sys.exit(f"{k['kernel']}: {len(rows)} profiled launches of {[r['Kernel Name'] for r in rows]}")
            entry["hw"] = {m.removesuffix(".sum"): int(float(rows[0][m].replace(",", ""))) for m in metrics}
            source = os.path.join(measured, "sass", f"{k['kernel']}.csv")
            if os.path.exists(source):
                entry["sass_shared"] = sass_shared(source)
        kernels.append(entry)
    doc = {"command": "tests/vectors/triton/measure_kernel_hw.sh (see gen_kernel_hw.py)",
           "triton_version": manifest["triton"], "compile_target": "cuda:90",
           "gpu": gpu[0], "ncu": gpu[1], "kernels": kernels}
    with open(OUT_PATH, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{len(kernels)} kernels -> {OUT_PATH}")


if __name__ == "__main__":
    main()
