#!/usr/bin/env python3
"""Launch one kernel of a ``gen_kernel_hw.py`` manifest once (device side; needs CuPy).

Usage: ``launch_kernel_hw.py HW_DIR KERNEL`` builds the kernel's arguments as the manifest
describes them (pointers to 16 MiB buffers, zeroed unless the manifest says how to fill them;
scalars by value; a scratch buffer for Triton's trailing scratch parameters), launches one
program of ``32 * num_warps`` threads (on a cluster, one CTA of them for each of its ``ctas``) and prints ``KERNEL ok`` or ``KERNEL fault: ERROR``.
``measure_kernel_hw.sh`` runs it under Nsight Compute.

``launch_kernel_hw.py HW_DIR --batch NAMES_FILE FROM LOG`` launches the kernels NAMES_FILE
lists, one per line, from the FROM-th (counting from 0), in one process, appending each one's
line to LOG; zeroed buffers are shared between the launches. It stops at the first fault (the
CUDA context is then unusable): ``measure_corpus_hw.sh`` starts it again after that kernel.
"""

import json
import os
import sys

import cupy as cp
import numpy as np

BUFFER_BYTES = 16 << 20
SCALAR = {"i32": np.int32, "i64": np.int64, "fp32": np.float32}


def argument(spec):
    if "scalar" in spec:
        return SCALAR[spec["scalar"]](spec["value"])
    fill = spec["fill"]
    if fill == "pointers":
        target = cp.zeros(BUFFER_BYTES // 4, dtype=np.int32)
        return target.data.ptr + 4 * cp.arange(BUFFER_BYTES // 8, dtype=np.int64)
    if fill == "spread":
        return (cp.arange(BUFFER_BYTES // 4, dtype=np.int32) % spec["modulo"]).astype(np.int32)
    return cp.zeros(BUFFER_BYTES, dtype=np.uint8)


def launch(hw_dir, k, zeros=None):
    """One program of kernel `k`; `zeros`, if given, lends the zeroed pointer arguments (the
    kernels of a batch write zeros where they write at all, so the buffers stay zero)."""
    args = []
    for i, spec in enumerate(k["args"]):
        if zeros is not None and spec.get("fill") == "zeros":
            while len(zeros) <= i:
                zeros.append(cp.zeros(BUFFER_BYTES, dtype=np.uint8))
            args.append(zeros[i])
        else:
            args.append(argument(spec))
    scratch = cp.zeros(max(k["global_scratch_size"], 1 << 20), dtype=np.uint8)
    args += [scratch] * (k["params"] - len(args))
    module = cp.RawModule(path=os.path.join(hw_dir, k["cubin"]))
    fn = module.get_function(k["entry"])
    if k["shared_bytes"] > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = k["shared_bytes"]
    cp.cuda.Device().synchronize()
    fn((k.get("ctas", 1),), (32 * k["num_warps"],), tuple(args), shared_mem=k["shared_bytes"])
    cp.cuda.Device().synchronize()


def batch(hw_dir, manifest, names_file, start, log):
    by_name = {k["kernel"]: k for k in manifest["kernels"]}
    names = open(names_file).read().split()
    zeros = []
    for name in names[start:]:
        try:
            launch(hw_dir, by_name[name], zeros)
            verdict = f"{name} ok"
        except Exception as e:  # noqa: BLE001
            verdict = f"{name} fault: {type(e).__name__}: {e}"
        with open(log, "a") as fh:
            fh.write(verdict + "\n")
        if not verdict.endswith(" ok"):
            sys.exit(3)


def main():
    hw_dir, name = sys.argv[1], sys.argv[2]
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    if name == "--batch":
        batch(hw_dir, manifest, sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    k = next(k for k in manifest["kernels"] if k["kernel"] == name)
    try:
        launch(hw_dir, k)
        print(f"{name} ok")
    except Exception as e:  # noqa: BLE001
        print(f"{name} fault: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
