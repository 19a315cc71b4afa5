#!/usr/bin/env python3
"""Launch every kernel of a ``gen_hw_kernels.py`` manifest once (device side; needs CuPy).

Usage: ``measure_hw.py HW_DIR LAUNCHED_TXT FIRST LAST [SKIP_TXT]`` launches kernels FIRST..LAST
(manifest indices) but those SKIP_TXT names, and appends their names to LAUNCHED_TXT.
``measure_hw.py --probe HW_DIR NAME`` launches one kernel alone and prints ``NAME ok`` or
``NAME fault: ERROR`` (a faulting kernel leaves its CUDA context unusable, so each probe is a
process of its own). Run under Nsight Compute by
``measure_hw_sm90.sh``, which reads the shared-memory counters of each launch. The kernels are launched in manifest order, one CTA each, on zeroed buffers; only
their shared-memory traffic matters, not what they compute.
"""

import json
import os
import sys

import cupy as cp
import numpy as np

DTYPE_BY_BITS = {8: np.int8, 16: np.float16, 32: np.float32, 64: np.float64}


def launch(hw_dir, k):
    elements = 1
    for s in k["shape"]:
        elements *= s
    dtype = DTYPE_BY_BITS[k["bits"]]
    # Room for two tensors: gen_ptx_answers.py's kernels read and write a second one.
    src = cp.zeros(2 * elements, dtype=dtype)
    dst = cp.zeros(2 * elements, dtype=dtype)
    scratch = cp.zeros(max(k.get("global_scratch_size") or 0, 1), dtype=np.uint8)
    module = cp.RawModule(path=os.path.join(hw_dir, k["cubin"]))
    fn = module.get_function(k["entry"])
    if k["shared_bytes"] > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = k["shared_bytes"]
    extra = [scratch] * (k["params"] - 2)
    fn((1,), (32 * k["num_warps"],), (src, dst, *extra), shared_mem=k["shared_bytes"])
    cp.cuda.Device().synchronize()


def main():
    if sys.argv[1] == "--probe":
        hw_dir, name = sys.argv[2], sys.argv[3]
        manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
        k = next(k for k in manifest["kernels"] if f"{k['pair']}.{k['kind']}" == name)
        try:
            launch(hw_dir, k)
            print(f"{name} ok")
        except Exception as e:  # noqa: BLE001
            print(f"{name} fault: {type(e).__name__}: {e}")
        return
    hw_dir = sys.argv[1]
    manifest = json.load(open(os.path.join(hw_dir, "manifest.json")))
    first, last = int(sys.argv[3]), int(sys.argv[4])
    skip = set(open(sys.argv[5]).read().split()) if len(sys.argv) > 5 else set()
    with open(sys.argv[2], "a") as log:
        for k in manifest["kernels"][first:last]:
            name = f"{k['pair']}.{k['kind']}"
            if "cubin" not in k or name in skip:
                continue
            try:
                launch(hw_dir, k)
            except Exception as e:  # noqa: BLE001
                print(f"FAILED {name}: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            print(name, file=log, flush=True)

if __name__ == "__main__":
    main()
