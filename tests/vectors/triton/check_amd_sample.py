#!/usr/bin/env python3
"""Re-runs a sample of the AMD oracle: the Triton 3.9.0 wheel compiles the recorded kernels of
a few pairs of ``amd_kernels.json`` again (Triton's own convert and the recorded answers, on
gfx942 and gfx950) and must emit the recorded LDS instructions and shared memory.

Command (from the repository root)::

    python3 tests/vectors/triton/check_amd_sample.py [PAIRS]   # default 3
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_amd_kernels import compile_kernel  # noqa: E402
from gen_triton_vectors import isolated  # noqa: E402


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    kernels = json.load(open(os.path.join(HERE, "amd_kernels.json")))["kernels"]
    corpus = {p["name"]: p for p in json.load(open(os.path.join(HERE, "swizzle_corpus.json")))["pairs"]}
    names = sorted({k["pair"] for k in kernels})
    sample = set(names[::max(1, len(names) // count)][:count])
    bad, checked = [], 0
    for k in kernels:
        if k["pair"] not in sample or "lds" not in k:
            continue
        res = isolated(compile_kernel, corpus[k["pair"]], k["arch"], k["kind"], k.get("layoutc"),
                       timeout=300)
        name = f"{k['pair']}.{k['arch']}.{k['kind']}"
        checked += 1
        if res[0] != "ok":
            bad.append(f"{name}: {res[0]}: {res[1]}")
        else:
            for key in ("shared_bytes", "lds"):
                if res[1][key] != k[key]:
                    bad.append(f"{name}: {key} {res[1][key]}, recorded {k[key]}")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        os._exit(1)
    print(f"{checked} AMD kernels of {len(sample)} pairs compile as recorded", file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
