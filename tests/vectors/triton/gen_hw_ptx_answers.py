#!/usr/bin/env python3
"""The kernels of ``ptx_answers.json``, built to run on a GPU (host side, CPU only).

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU and no ``layoutc`` are needed:
the answers are the ones ``ptx_answers.json`` stores.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_hw_ptx_answers.py OUT_DIR [JOBS]   # about 8 minutes on 2 cores

Every kernel of ``ptx_answers.json`` that compiled (the solver's answers in the linear, triton
and padded families, and Triton's own ``convert_layout``) is compiled again exactly as
``gen_ptx_answers.py`` compiles it, for its problem's target. An sm90 kernel is kept as the
cubin Triton built; an sm80 kernel as its PTX, which the driver of an sm90 GPU compiles for
itself (the shared-memory instructions are the PTX's: ``check`` below compares their static
counts with the interpreter's record, and the GPU's executed counts are compared in the test).

``OUT_DIR`` receives one file per kernel and ``manifest.json`` in the form ``measure_hw.py``
reads (``pair`` is the problem's name, ``kind`` the family or ``own``): entry name, warps,
element bits, shape, shared bytes, number of entry parameters, the PTX shared-memory opcodes.
On the GPU ``measure_hw_sm90.sh OUT_DIR MEASURED 100 'regex:^(cvt2d|wr|wrr|wrwr)$'`` reads the
counters of each kernel's one CTA, and ``collect_hw.py OUT_DIR MEASURED
hw_sm90_ptx_answers.json`` writes them beside this script.
``crates/layout-solve/tests/hardware_answers.rs`` compares them with the interpreter's
per-warp record and with what the solver claims.
"""

import json
import multiprocessing
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_ptx_answers as answers  # noqa: E402
from gen_hw_kernels import SHARED_OPCODE  # noqa: E402

ENTRY = re.compile(r"\.entry\s+(\w+)\s*\((.*?)\)", re.S)


def build(task):
    problem, kind, answer = task
    target = answers.GPUTarget("cuda", int(problem["target"][2:]), 32)
    try:
        k = answers.triton.compile(answers.kernel_source(problem, kind, answer), target=target,
                                   options={"num_warps": problem["num_warps"], "num_ctas": 1})
    except Exception as exc:  # noqa: BLE001  (recorded, not run)
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    ptx = k.asm["ptx"]
    header = ENTRY.search(ptx)
    counts = {}
    for m in SHARED_OPCODE.finditer(ptx):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return {"ptx": ptx, "cubin": k.asm["cubin"].hex(), "entry": header.group(1),
            "params": len(re.findall(r"\.param\b", header.group(2))), "shared_bytes": k.metadata.shared,
            "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0) or 0,
            "ptx_shared_opcodes": dict(sorted(counts.items()))}


def main():
    out_dir = sys.argv[1]
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    os.makedirs(out_dir, exist_ok=True)
    with open(answers.OUT) as fh:
        problems = json.load(fh)["problems"]
    tasks = [(p, k["kind"], k.get("layoutc")) for p in problems for k in p["kernels"] if "accesses" in k]
    kernels = []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for (p, kind, _), built in zip(tasks, pool.imap(build, tasks, chunksize=4)):
            name = f"{p['name']}.{kind}"
            entry = {"pair": p["name"], "kind": kind, "target": p["target"], "num_warps": p["num_warps"],
                     "bits": p["bits"], "shape": p["shape"]}
            if "error" in built:
                entry["compile_error"] = built["error"]
                print(f"FAIL {name}: {built['error']}", file=sys.stderr)
            else:
                # sm90: Triton's cubin; sm80: its PTX, which the sm90 driver compiles.
                if p["target"] == "sm90":
                    entry["cubin"] = f"{name}.cubin"
                    with open(os.path.join(out_dir, entry["cubin"]), "wb") as fh:
                        fh.write(bytes.fromhex(built["cubin"]))
                else:
                    entry["cubin"] = f"{name}.ptx"
                    with open(os.path.join(out_dir, entry["cubin"]), "w") as fh:
                        fh.write(built["ptx"])
                entry.update({key: built[key] for key in ("entry", "params", "shared_bytes",
                                                          "global_scratch_size", "ptx_shared_opcodes")})
            kernels.append(entry)
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"generator": "gen_hw_ptx_answers.py", "triton_version": answers.triton.__version__,
                   "target": "cuda:80 (PTX) and cuda:90",
                   "kernels": kernels}, fh, indent=1)
        fh.write("\n")
    failed = sum(1 for k in kernels if "compile_error" in k)
    print(f"{len(kernels)} kernels, {failed} failed", file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
