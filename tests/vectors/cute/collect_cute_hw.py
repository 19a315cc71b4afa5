#!/usr/bin/env python3
"""Turns what ``measure_cute_hw.sh`` read on the GPU into ``hw_sm90_copies.json``.

Usage, from the repository root::

    python3 tests/vectors/cute/collect_cute_hw.py SRC_DIR OUT_DIR [JSON]

``SRC_DIR`` is where ``gen_cute_hw.py`` wrote the kernels (its
``manifest.json``), ``OUT_DIR`` what the GPU run wrote. A case of the JSON is
the manifest's case (``copy`` and ``smem`` as a ``.lay`` file writes them,
``role``: ``load``, ``store`` or ``cp_async``) with ``sass`` (the kernel's
shared-memory SASS opcodes and how many of each it holds) and ``hw`` (every
counter, summed over the CTA's warps), or ``error`` (the CUDA error of its
launch).
"""

import csv
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) == 4 else os.path.join(HERE, "hw_sm90_copies.json")
    cases = json.load(open(os.path.join(src, "manifest.json")))["cases"]
    gpu = [line.rstrip("\n") for line in open(os.path.join(out, "gpu.txt"))]
    metrics = [m[: -len(".sum")] for m in gpu[-1].split(": ", 1)[1].split(",")]
    runs = {}
    for line in open(os.path.join(out, "runs.txt")):
        m = re.match(r"^(case_\d+) (\d+) (\d+) (\S+)$", line.strip())
        if m:
            runs[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))
    rows = list(csv.reader(line for line in open(os.path.join(out, "ncu.csv"))
                           if line.startswith('"')))
    header = rows[0]
    hw = {}
    for row in rows:
        if not row[0].isdigit():
            continue
        name = re.match(r"(case_\d+)", row[header.index("Kernel Name")]).group(1)
        if name in hw:
            sys.exit(f"error: {name} was profiled twice")
        hw[name] = {m: int(row[header.index(m + ".sum")].replace(",", "")) for m in metrics}
    sass = {}
    for line in open(os.path.join(out, "sass.txt")):
        fn, op = line.split()
        name = re.search(r"case_\d+", fn).group(0)
        sass.setdefault(name, Counter())[op] += 1
    for c in cases:
        del c["copy_cpp"], c["smem_cpp"], c["unit"]
        threads, smem_bytes, status = runs[c["name"]]
        c["threads"], c["smem_bytes"] = threads, smem_bytes
        c["sass"] = dict(sorted(sass.get(c["name"], {}).items()))
        if status == "ok":
            c["hw"] = hw[c["name"]]
        else:
            c["error"] = status
    doc = {
        "command": "tests/vectors/cute/measure_cute_hw.sh (see gen_cute_hw.py)",
        "cutlass": "4.2.0 (PyPI nvidia-cutlass==4.2.0.0 headers)",
        "compile": "nvcc -std=c++17 -O2 -arch=sm_90a",
        "device": gpu[:3],
        "metrics": metrics,
        "cases": cases,
    }
    with open(target, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{len(cases)} cases, {sum('hw' in c for c in cases)} measured -> {target}")


if __name__ == "__main__":
    main()
