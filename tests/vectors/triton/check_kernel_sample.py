#!/usr/bin/env python3
"""Re-runs a sample of gen_kernel_corpus.py and compares it with the checked-in corpus.

Command (from the repository root, with the Triton 3.9.0 wheel installed)::

    python3 tests/vectors/triton/check_kernel_sample.py [KERNEL ...]

Each named kernel (by default a scan, a pipelined dot on a cluster of two CTAs, a warp-specialised kernel with a reduction
in every partition, a partitioned tensor, device-built TMA descriptors and warp-specialised
captures that go through shared memory)
is compiled again for every target, with ``MLIR_ENABLE_DUMP=1``, and must give the recorded
``metadata.shared``, Triton's recorded ``allocation.offset``/``allocation.size`` of every op,
and the recorded shared-memory opcodes of its PTX/AMDGCN. Exit status 1 on any difference.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_kernel_corpus as gen  # noqa: E402

DEFAULT = ["cumsum_2d", "cluster_matmul", "ws_reductions", "partitioned_pair", "device_descriptors",
           "ws_captures"]


def main():
    names = sys.argv[1:] or DEFAULT
    with open(os.path.join(gen.OUT_DIR, "manifest.json")) as f:
        recorded = {(e["kernel"], e["target"]): e for e in json.load(f)}
    gen.report_repository_paths()
    os.environ["MLIR_ENABLE_DUMP"] = "1"
    differences, compared = [], 0
    for name, fn, sig, constexprs, div_args, options in gen.CASES:
        if name not in names:
            continue
        for tname, target in gen.targets_of(options):
            want = recorded.get((name, tname))
            if want is None or want.get("file") is None:
                continue
            with gen.CapturedStderr() as err:
                divisible = [a for a in div_args if a in fn.arg_names]
                k = gen.compile_kernel(fn, sig, constexprs, divisible, target, options)
            lowered = [t for p, t in gen.sections(err.text) if p in gen.LOWERINGS]
            asm = k.asm["ptx"] if target.backend == "cuda" else k.asm["amdgcn"]
            got = {
                "shared_bytes": k.metadata.shared,
                "allocations": gen.allocations(lowered[-1]) if lowered else None,
            }
            if target.backend == "hip":
                got["lds"] = gen.base.count_lds_mnemonics(asm)
            else:
                got["shared_mnemonics"] = gen.base.count_shared_mnemonics(asm)
                descriptors = gen.base.count_descriptor_mnemonics(asm)
                if descriptors or "descriptor_mnemonics" in want:
                    got["descriptor_mnemonics"] = descriptors
            got["async_copies"] = gen.count_async_copies(asm, target.backend)
            for key, value in got.items():
                if want.get(key) != value:
                    differences.append(f"{name} {tname} {key}: recorded {want.get(key)}, now {value}")
            compared += 1
    print(f"{compared} kernels compiled again, {len(differences)} differences")
    for d in differences:
        print("  " + d)
    sys.exit(1 if differences or compared == 0 else 0)


if __name__ == "__main__":
    main()
