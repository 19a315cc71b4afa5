#!/usr/bin/env python3
"""Launch one kernel of a ``gen_kernel_hw.py`` manifest once (device side; needs CuPy).

Usage: ``launch_kernel_hw.py HW_DIR KERNEL`` builds the kernel's arguments as the manifest
describes them (pointers to 16 MiB buffers, zeroed unless the manifest says how to fill them;
scalars by value; a scratch buffer for Triton's trailing scratch parameters), launches one
program of ``32 * num_warps`` threads and prints ``KERNEL ok`` or ``KERNEL fault: ERROR``.
``measure_kernel_hw.sh`` runs it under Nsight Compute.
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


def launch(hw_dir, k):
    args = [argument(spec) for spec in k["args"]]
    scratch = cp.zeros(max(k["global_scratch_size"], 1 << 20), dtype=np.uint8)
    args += [scratch] * (k["params"] - len(args))
    module = cp.RawModule(path=os.path.join(hw_dir, k["cubin"]))
    fn = module.get_function(k["entry"])
    if k["shared_bytes"] > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = k["shared_bytes"]
    cp.cuda.Device().synchronize()
    fn((1,), (32 * k["num_warps"],), tuple(args), shared_mem=k["shared_bytes"])
    cp.cuda.Device().synchronize()


def main():
    hw_dir, name = sys.argv[1], sys.argv[2]
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    k = next(k for k in manifest["kernels"] if k["kernel"] == name)
    try:
        launch(hw_dir, k)
        print(f"{name} ok")
    except Exception as e:  # noqa: BLE001
        print(f"{name} fault: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
