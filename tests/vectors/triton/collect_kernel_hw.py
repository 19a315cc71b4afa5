#!/usr/bin/env python3
"""Join a gen_kernel_hw.py manifest with what measure_kernel_hw.sh read on the GPU.

Command (from the repository root)::

    python3 tests/vectors/triton/collect_kernel_hw.py HW_DIR MEASURED_DIR
    python3 tests/vectors/triton/collect_kernel_hw.py --corpora HW_DIR MEASURED_DIR
    python3 tests/vectors/triton/collect_kernel_hw.py --corpora-add HW_DIR MEASURED_DIR
    python3 tests/vectors/triton/collect_kernel_hw.py --add OUT_NAME HW_DIR MEASURED_DIR
    python3 tests/vectors/triton/collect_kernel_hw.py --variants HW_DIR MEASURED_DIR

writes ``tests/vectors/triton/hw_sm90_kernels.json``: for every kernel its corpus and dump file
(``tests/corpus/<corpus>/<file>``), warps, shared bytes, the PTX shared-memory opcodes of the
build that ran, the SASS ones (and how many of its loads ptxas predicates never to run), and ``hw``: the Nsight Compute counters of its one program, summed over every
warp (or ``fault``: the CUDA error of a kernel that did not run). Where measure_kernel_hw.sh
read the counters per SASS instruction (``SOURCE=1``), ``sass_shared`` lists every
shared-memory instruction of the kernel in address order with the warp-instructions executed,
the wavefronts it took and the wavefronts it would take without conflicts (Nsight Compute's
"L1 Wavefronts Shared" and "... Ideal").

With ``--corpora`` it joins a ``gen_corpus_hw.py`` manifest with what ``measure_corpus_hw.sh``
read (one row of kernel-wide counters per launch, in the order of each ``batch.NN.txt``) and writes
``hw_sm90_corpora.json`` in the same form, each kernel with ``ptx_target`` and no ``sass_shared``;
``--corpora-add`` adds such a run's kernels to the file.

With ``--add`` it adds a later ``measure_kernel_hw.sh`` run (of a manifest holding only some
kernels) to ``OUT_NAME``: new kernels whole, and to kernels the file holds their
per-instruction counters.

With ``--variants`` it writes ``hw_sm90_variants.json`` from a run of the
``gen_kernel_variants.py --hw`` build (joining the kernels the file holds): the same form,
each kernel's dump in ``tests/corpus/variants``.
"""

import glob
import json
import os
import sys

from collect_hw import read_rows, sass_shared

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "hw_sm90_kernels.json")
CORPORA_PATH = os.path.join(HERE, "hw_sm90_corpora.json")
VARIANTS_PATH = os.path.join(HERE, "hw_sm90_variants.json")
KEPT = ("corpus", "kernel", "file", "num_warps", "shared_bytes", "ptx_shared_opcodes", "sass_shared_opcodes",
        "sass_never_executed_loads")


def gpu_and_metrics(measured):
    gpu = open(os.path.join(measured, "gpu.txt")).read().splitlines()
    return gpu, [m for m in gpu[-1].removeprefix("metrics: ").split(",") if m]


def dump(path, doc):
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")


def write(path, script, manifest, target, gpu, kernels):
    """The file of one measurement: how it was made, on what, and its kernels."""
    dump(path, {"command": f"tests/vectors/triton/{script}", "triton_version": manifest["triton"],
                "compile_target": target, "gpu": gpu[0], "ncu": gpu[1], "kernels": kernels})


def counters(row, metrics):
    return {m.removesuffix(".sum"): int(float(row[m].replace(",", ""))) for m in metrics}


def corpora(hw_dir, measured, merge=False):
    """Writes ``hw_sm90_corpora.json`` from a ``measure_corpus_hw.sh`` run; with ``merge``, adds
    its kernels to the file (replacing those it holds), each with the GPU it ran on where that is
    not the file's."""
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    gpu, metrics = gpu_and_metrics(measured)
    probes = dict(line.split(" ", 1) for line in open(os.path.join(measured, "probes.txt")).read().splitlines())
    by_name = {k["kernel"]: k for k in manifest["kernels"]}
    measured_rows = {}
    for batch in sorted(glob.glob(os.path.join(measured, "batch.*.txt"))):
        ran = open(batch).read().split()
        number = os.path.basename(batch).removeprefix("batch.").removesuffix(".txt")
        raw = os.path.join(measured, f"raw.{number}.csv")
        rows = read_rows(raw) if os.path.exists(raw) else []
        if len(rows) != len(ran):
            print(f"{batch}: {len(rows)} profiled launches for {len(ran)} kernels: left out", file=sys.stderr)
            continue
        for name, row in zip(ran, rows):
            if row["Kernel Name"] != by_name[name]["entry"]:
                sys.exit(f"{name}: launch of {row['Kernel Name']} where {by_name[name]['entry']} was due")
            measured_rows[name] = row
    kernels = []
    for k in manifest["kernels"]:
        entry = {key: k[key] for key in KEPT}
        entry["ptx_target"] = k["ptx_target"]
        entry["args"] = k["args"]
        if k["kernel"] in measured_rows:
            entry["hw"] = counters(measured_rows[k["kernel"]], metrics)
        elif probes.get(k["kernel"]) == "ok":
            entry["fault"] = "not profiled: its batch's profile was cut short"
        else:
            entry["fault"] = probes.get(k["kernel"], "fault: not launched").removeprefix("fault: ")
        kernels.append(entry)
    if merge:
        doc = json.load(open(CORPORA_PATH))
        new = {k["kernel"] for k in kernels}
        for k in kernels:
            if gpu[0] != doc["gpu"]:
                k["gpu"] = gpu[0]
        doc["kernels"] = [k for k in doc["kernels"] if k["kernel"] not in new] + kernels
        dump(CORPORA_PATH, doc)
    else:
        write(CORPORA_PATH, "measure_corpus_hw.sh (see gen_corpus_hw.py)", manifest,
              "cuda:90 (older targets' PTX assembled for sm90)", gpu, kernels)
    print(f"{len(kernels)} kernels, {len(measured_rows)} measured -> {CORPORA_PATH}")


def measured_kernels(hw_dir, measured):
    """The manifest, the GPU's lines and an entry per kernel of a measure_kernel_hw.sh run."""
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    gpu, metrics = gpu_and_metrics(measured)
    probes = dict(line.split(" ", 1) for line in open(os.path.join(measured, "probes.txt")).read().splitlines())
    kernels = []
    for k in manifest["kernels"]:
        if "cubin" not in k:
            continue
        entry = {key: k[key] for key in KEPT}
        if "ptx_target" in k:
            entry["ptx_target"] = k["ptx_target"]
        if k.get("ctas", 1) != 1:
            entry["ctas"] = k["ctas"]
        entry["args"] = k["args"]
        verdict = probes.get(k["kernel"], "fault: not launched")
        if verdict != "ok":
            entry["fault"] = verdict.removeprefix("fault: ")
        else:
            rows = read_rows(os.path.join(measured, "ncu", f"{k['kernel']}.csv"))
            if len(rows) != 1 or rows[0]["Kernel Name"] != k["entry"]:
                sys.exit(f"{k['kernel']}: {len(rows)} profiled launches of {[r['Kernel Name'] for r in rows]}")
            entry["hw"] = counters(rows[0], metrics)
            source = os.path.join(measured, "sass", f"{k['kernel']}.csv")
            if os.path.exists(source):
                entry["sass_shared"] = sass_shared(source)
        kernels.append(entry)
    return manifest, gpu, kernels


def add(out_name, hw_dir, measured):
    """Adds what a later run measured to an existing file: a kernel it holds gains the run's
    per-instruction counters (its kernel-wide ones stay), a new kernel comes whole, with the
    GPU it ran on where that is not the file's."""
    path = os.path.join(HERE, out_name)
    doc = json.load(open(path))
    _, gpu, kernels = measured_kernels(hw_dir, measured)
    held = {k["kernel"]: k for k in doc["kernels"]}
    for entry in kernels:
        if entry["kernel"] in held:
            if "fault" in entry:
                sys.exit(f"{entry['kernel']}: {entry['fault']} when measured again")
            if "sass_shared" in entry:
                held[entry["kernel"]]["sass_shared"] = entry["sass_shared"]
            continue
        if gpu[0] != doc["gpu"]:
            entry["gpu"] = gpu[0]
        doc["kernels"].append(entry)
    dump(path, doc)
    print(f"{len(kernels)} kernels of {measured} in {path}")


def main():
    if sys.argv[1] in ("--corpora", "--corpora-add"):
        corpora(sys.argv[2], sys.argv[3], merge=sys.argv[1] == "--corpora-add")
        return
    if sys.argv[1] == "--add":
        add(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    if sys.argv[1] == "--variants":
        manifest, gpu, kernels = measured_kernels(sys.argv[2], sys.argv[3])
        for k in kernels:
            k["corpus"] = "variants"
        if os.path.exists(VARIANTS_PATH):
            # A later run (of some variants) joins the file's kernels.
            new = {k["kernel"] for k in kernels}
            held = json.load(open(VARIANTS_PATH))["kernels"]
            kernels = [k for k in held if k["kernel"] not in new] + kernels
        write(VARIANTS_PATH, "measure_kernel_hw.sh (see gen_kernel_variants.py)", manifest, "cuda:90", gpu,
              kernels)
        print(f"{len(kernels)} kernels -> {VARIANTS_PATH}")
        return
    hw_dir, measured = sys.argv[1], sys.argv[2]
    manifest, gpu, kernels = measured_kernels(hw_dir, measured)
    write(OUT_PATH, "measure_kernel_hw.sh (see gen_kernel_hw.py)", manifest, "cuda:90", gpu, kernels)
    print(f"{len(kernels)} kernels -> {OUT_PATH}")


if __name__ == "__main__":
    main()
