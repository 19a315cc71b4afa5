#!/usr/bin/env python3
"""Join a gen_hw_kernels.py manifest with what measure_hw_sm90.sh read on the GPU.

Command (from the repository root)::

    python3 tests/vectors/triton/collect_hw.py HW_DIR MEASURED_DIR [OUT_NAME]

writes ``tests/vectors/triton/OUT_NAME`` (default ``hw_sm90_wavefronts.json``): for every kernel its pair, kind
(``own``: Triton's convert_layout; ``answer``: layoutc's shared layout), warps, element bits,
shape, shared bytes, the PTX shared-memory opcodes, the shared layout of an answer (its offset
bases and its TTGIR attribute) and layoutc's claims for it at the time of measuring, and ``hw``: the Nsight Compute counters of its
one launch (one CTA), summed over every warp; or, for a kernel that faulted when launched alone
(``probes.txt``: padded layouts whose padding misaligns the vectors Triton emits), ``fault``: the
CUDA error instead.
"""

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "hw_sm90_wavefronts.json")


def read_rows(path):
    rows, header = [], None
    with open(path, newline="") as fh:
        for row in csv.reader(fh):
            if not row:
                continue
            if row[0] == "ID":
                header = row
                continue
            if header is None or not row[0].isdigit():
                continue  # the units row, or a message
            rows.append(dict(zip(header, row)))
    return rows


def main():
    hw_dir, measured = sys.argv[1], sys.argv[2]
    out_path = os.path.join(HERE, sys.argv[3]) if len(sys.argv) > 3 else OUT_PATH
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    launched = open(os.path.join(measured, "launched.txt")).read().split()
    rows = read_rows(os.path.join(measured, "ncu.csv"))
    if len(rows) != len(launched):
        sys.exit(f"{len(rows)} profiled launches for {len(launched)} launched kernels")
    gpu = open(os.path.join(measured, "gpu.txt")).read().splitlines()
    metrics = [m for m in gpu[-1].removeprefix("metrics: ").split(",") if m]
    by_name = {f"{k['pair']}.{k['kind']}": k for k in manifest["kernels"]}
    probes = {}
    for line in open(os.path.join(measured, "probes.txt")).read().splitlines():
        name, verdict = line.split(" ", 1)
        probes[name] = verdict
    measured_rows = dict(zip(launched, rows))
    kernels = []
    for name in sorted(set(launched) | {n for n, v in probes.items() if v != "ok"},
                       key=lambda n: list(by_name).index(n)):
        k = by_name[name]
        row = measured_rows.get(name)
        if row is not None and row["Kernel Name"] != k["entry"]:
            sys.exit(f"{name}: profiled {row['Kernel Name']}, launched {k['entry']}")
        entry = {key: k[key] for key in ("pair", "kind", "num_warps", "bits", "shape", "shared_bytes",
                                         "ptx_shared_opcodes")}
        sol = k.get("layoutc")
        if sol is not None:
            entry["offset_bases"] = next(i["bases"] for i in sol["linear"]["ins"] if i["name"] == "offset")
            # The shared layout as TTGIR prints it: the padded notation, else the linear one.
            notations = sol["notations"]
            entry["shared_ttgir"] = notations["padded"] if k["kind"] == "padded" else notations["linear"]
            entry["layoutc"] = {key: sol.get(key) for key in ("status", "write_wavefronts", "read_wavefronts",
                                                              "accesses", "triton")}
        if row is None:
            entry["fault"] = probes[name].removeprefix("fault: ")
        else:
            entry["hw"] = {m.removesuffix(".sum"): int(float(row[m].replace(",", ""))) for m in metrics}
        kernels.append(entry)
    doc = {"command": "tests/vectors/triton/measure_hw_sm90.sh (see gen_hw_kernels.py)",
           "triton_version": manifest["triton_version"], "compile_target": manifest["target"],
           "device": gpu[:-1], "metrics": [m.removesuffix(".sum") for m in metrics],
           "uncompiled": [f"{k['pair']}.{k['kind']}: {k['compile_error']}" for k in manifest["kernels"]
                          if "compile_error" in k],
           "kernels": kernels}
    with open(out_path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    faults = sum(1 for k in kernels if "fault" in k)
    print(f"wrote {out_path}: {len(kernels)} kernels ({faults} faulted)", file=sys.stderr)


if __name__ == "__main__":
    main()
