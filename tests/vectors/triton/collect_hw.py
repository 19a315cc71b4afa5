#!/usr/bin/env python3
"""Join a gen_hw_kernels.py manifest with what measure_hw_sm90.sh read on the GPU.

Command (from the repository root)::

    python3 tests/vectors/triton/collect_hw.py HW_DIR MEASURED_DIR [OUT_NAME [SASS_DIR]]
    python3 tests/vectors/triton/collect_hw.py --add-sass OUT_NAME SASS_DIR

writes ``tests/vectors/triton/OUT_NAME`` (default ``hw_sm90_wavefronts.json``): for every kernel its pair, kind
(``own``: Triton's convert_layout; ``answer``: layoutc's shared layout), warps, element bits,
shape, shared bytes, the PTX shared-memory opcodes, the shared layout of an answer (its offset
bases and its TTGIR attribute) and layoutc's claims for it at the time of measuring, and ``hw``: the Nsight Compute counters of its
one launch (one CTA), summed over every warp; or, for a kernel that faulted when launched alone
(``probes.txt``: padded layouts whose padding misaligns the vectors Triton emits), ``fault``: the
CUDA error instead. With ``SASS_DIR`` (what ``measure_hw_sass.sh`` read for chosen kernels),
those kernels also have ``sass_runs``: per run, the kernel-wide ``counters`` and
``sass_shared``, every shared-memory SASS instruction in address order with the
warp-instructions executed, its wavefronts and its wavefronts without conflicts.
``--add-sass`` adds such runs to the kernels of an existing file (measured earlier, their
kernels rebuilt by ``gen_hw_kernels.py --rebuild``), after the runs they already have.
"""

import csv
import glob
import json
import os
import re
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


SHARED_SASS = re.compile(r"^(?:@!?U?P\w+\s+)?((?:LDS|STS|LDSM|STSM|ATOMS)\b[\w.]*)")


def sass_shared(path):
    """Every shared-memory SASS instruction of a source-page export, with its counters.
    ``conditional``: it follows a predicated ``EXIT`` or ``BRA`` (warps may skip it)."""
    rows = list(csv.reader(open(path, newline="")))
    header = next(r for r in rows if "Source" in r and "Address" in r)
    col = {name: header.index(name) for name in header}
    out, conditional = [], False
    for row in rows[rows.index(header) + 1:]:
        if len(row) < len(header):
            continue
        source = re.sub(r"\s+", " ", row[col["Source"]].strip())
        if re.match(r"^@!?U?P\w+ (EXIT|BRA)\b", source):
            conditional = True
        m = SHARED_SASS.match(source)
        if not m:
            continue
        number = lambda name: int(float(row[col[name]].replace(",", "") or 0))  # noqa: E731
        entry = {"sass": source, "executed": number("Instructions Executed"),
                 "wavefronts": number("L1 Wavefronts Shared"), "ideal": number("L1 Wavefronts Shared Ideal")}
        if conditional:
            entry["conditional"] = True
        out.append(entry)
    return out


def sass_runs(sass_dir, name):
    """The runs measure_hw_sass.sh made of one kernel, in order."""
    runs = []
    for path in sorted(glob.glob(os.path.join(sass_dir, "sass", f"{name}.*.csv"))):
        run = path.rsplit(".", 2)[-2]
        row = read_rows(os.path.join(sass_dir, "raw", f"{name}.{run}.csv"))[0]
        counters = {m.removesuffix(".sum"): int(float(v.replace(",", ""))) for m, v in row.items()
                    if m.endswith(".sum")}
        runs.append({"counters": counters, "sass_shared": sass_shared(path)})
    return runs


def add_sass(out_name, sass_dir):
    out_path = os.path.join(HERE, out_name)
    doc = json.load(open(out_path))
    added = 0
    for k in doc["kernels"]:
        runs = sass_runs(sass_dir, f"{k['pair']}.{k['kind']}")
        if runs:
            k["sass_runs"] = k.get("sass_runs", []) + runs
            added += 1
    with open(out_path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{out_path}: runs per SASS instruction for {added} kernels", file=sys.stderr)


def main():
    if sys.argv[1] == "--add-sass":
        add_sass(sys.argv[2], sys.argv[3])
        return
    hw_dir, measured = sys.argv[1], sys.argv[2]
    out_path = os.path.join(HERE, sys.argv[3]) if len(sys.argv) > 3 else OUT_PATH
    sass_dir = sys.argv[4] if len(sys.argv) > 4 else None
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
        if sass_dir and (runs := sass_runs(sass_dir, name)):
            entry["sass_runs"] = runs
        kernels.append(entry)
    generator = manifest.get("generator", "gen_hw_kernels.py")
    doc = {"command": f"tests/vectors/triton/measure_hw_sm90.sh (see {generator})",
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
