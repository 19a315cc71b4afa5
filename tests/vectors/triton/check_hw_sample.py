#!/usr/bin/env python3
"""Re-run a sample of the hardware oracle's compile step (CPU only, Triton 3.9.0 wheel).

Command (from the repository root)::

    python3 tests/vectors/triton/check_hw_sample.py [PAIRS]      # default: 5 pairs

For PAIRS pairs spread over ``hw_sm90_answers.json``, compiles each recorded kernel again
(Triton's own ``convert_layout`` and the recorded shared layouts of layoutc's answers, exactly
as ``gen_hw_kernels.py`` compiled them) and requires the same shared-memory bytes and the same
PTX shared-memory opcodes as recorded. The GPU measurements themselves need a GPU; this checks
that what was measured is what the wheel still compiles.
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_hw_kernels import compile_kernel  # noqa: E402
from gen_triton_vectors import isolated  # noqa: E402


def recorded_answer(kernel):
    """The parts of a `layoutc solve` answer that `compile_kernel` reads, from the record."""
    return {
        "family": kernel["kind"],
        "linear": {"ins": [{"name": "offset", "bases": kernel.get("offset_bases")}]},
        "notations": {"padded": kernel.get("shared_ttgir")},
    }


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    hw = json.load(open(os.path.join(HERE, "hw_sm90_answers.json")))
    corpus = {p["name"]: p for p in json.load(open(os.path.join(HERE, "swizzle_corpus.json")))["pairs"]}
    names = sorted({k["pair"] for k in hw["kernels"]})
    step = max(1, len(names) // count)
    sample = set(names[::step][:count])
    bad, checked = [], 0
    out_dir = tempfile.mkdtemp(prefix="layoutc_hw_sample_")
    for k in hw["kernels"]:
        if k["pair"] not in sample:
            continue
        res = isolated(compile_kernel, corpus[k["pair"]], k["kind"], recorded_answer(k), out_dir,
                       timeout=300)
        name = f"{k['pair']}.{k['kind']}"
        checked += 1
        if res[0] != "ok":
            bad.append(f"{name}: {res[0]}: {res[1]}")
            continue
        got = res[1]
        for key in ("shared_bytes", "ptx_shared_opcodes"):
            if got[key] != k[key]:
                bad.append(f"{name}: {key} {got[key]}, recorded {k[key]}")
        print(f"{name}: as recorded" if not bad or not bad[-1].startswith(name) else bad[-1],
              file=sys.stderr)
    if bad:
        print("\n".join(bad), file=sys.stderr)
        os._exit(1)
    print(f"{checked} kernels of {len(sample)} pairs compile as recorded", file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
