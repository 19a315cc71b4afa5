#!/usr/bin/env python3
"""Variants of the kernel corpus's sm90 kernels that no test was written against.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed to build them.

Each kernel ``gen_kernel_hw.py`` runs on a GPU (its scalars make every loop run once), but for
those with device-side TMA descriptors (whose descriptor words ptxas moves through shared memory
on its own), is compiled again twice with a number of warps and of pipeline stages drawn at
random (seed 39; the stages one more or one fewer than the corpus's), for sm90 only: 74 kernels
of other layouts, other pipelines, other partitions of the same code.

Commands (from the repository root)::

    python3 tests/vectors/triton/gen_kernel_variants.py            # dumps -> tests/corpus/variants
    python3 tests/vectors/triton/gen_kernel_variants.py --hw DIR   # cubins for the GPU
    python3 tests/vectors/triton/gen_kernel_variants.py --check N  # every N-th compiled again

The first writes each variant's dump (``<variant>_sm90.ttgir``, and the dump Triton's
allocator annotated) and ``manifest.json`` as ``gen_kernel_corpus.py`` does. The second builds
the same variants as ``gen_kernel_hw.py`` builds the corpus's (the base kernel's scalars and
fills); then on the GPU machine ``SOURCE=1 measure_kernel_hw.sh DIR OUT`` and here
``collect_kernel_hw.py --variants DIR OUT`` writes ``hw_sm90_variants.json``, which
``crates/layout-db/tests/kernel_hardware.rs`` compares with the kernel summaries. The third
compiles every N-th variant again (``check_kernel_sample.py``'s comparison: the recorded
``metadata.shared``, allocations and PTX opcodes); CI runs it.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_kernel_corpus as corpus  # noqa: E402
import gen_kernel_hw as hw  # noqa: E402

# Kernels that build TMA descriptors on the device: ptxas adds loads and stores of the
# descriptor's words that no op of the dump names (kernel_hardware.rs lists them).
DEVICE_DESCRIPTORS = {"matmul_ws", "device_descriptors", "descriptor_matmul", "ws_loop_matmul", "tma_reduce_add",
                      "tma_reduce_max_i32", "persistent_descriptors_subtile", "persistent_descriptors_fp8",
                      "persistent_descriptors_fp8_subtile", "matmul_ws_f32_one_warp", "matmul_fp16_tma"}


def variants():
    """(variant, base kernel, its case with the variant's options) of every variant."""
    rng = random.Random(39)
    out, seen = [], set()
    for name, fn, sig, constexprs, div, options in corpus.CASES:
        if (name not in hw.SCALARS or name in hw.NOT_RUN or name in DEVICE_DESCRIPTORS
                or "sm90" not in dict(corpus.targets_of(options))):
            continue
        for _ in range(2):
            o = dict(options)
            warps = options.get("num_warps", 4)
            o["num_warps"] = rng.choice([w for w in (2, 4, 8) if w != warps] + [warps])
            if "num_stages" in o:
                o["num_stages"] = max(1, o["num_stages"] + rng.choice([-1, 1]))
            o["targets"] = ["sm90"]
            variant = f"v_{name}_w{o['num_warps']}_s{o.get('num_stages', 0)}"
            if variant in seen:
                continue
            seen.add(variant)
            out.append((variant, name, (variant, fn, sig, constexprs, div, o)))
    # Then each kernel without scalars (no loop to bound: reductions, scans, conversions,
    # gathers, atomics...) once more, with another number of warps (seed 40).
    rng = random.Random(40)
    for name, fn, sig, constexprs, div, options in corpus.CASES:
        if (name in hw.SCALARS or name in hw.NOT_RUN or "sm90" not in dict(corpus.targets_of(options))
                or any(t != "constexpr" and not t.startswith("*") for t in sig.values())):
            continue
        o = dict(options)
        warps = options.get("num_warps", 4)
        o["num_warps"] = rng.choice([w for w in (2, 4, 8) if w != warps])
        o["targets"] = ["sm90"]
        variant = f"v_{name}_w{o['num_warps']}_s{o.get('num_stages', 0)}"
        if variant not in seen:
            seen.add(variant)
            out.append((variant, name, (variant, fn, sig, constexprs, div, o)))
    return out


def main():
    cases = variants()
    if sys.argv[1:2] == ["--hw"]:
        for variant, name, _ in cases:
            if name in hw.SCALARS:
                hw.SCALARS[variant] = hw.SCALARS[name]
            for (kernel, arg), fill in list(hw.FILLS.items()):
                if kernel == name:
                    hw.FILLS[(variant, arg)] = fill
        hw.ttgir_corpus.CASES = []
        hw.kernel_corpus.CASES = [case for _, _, case in cases]
        sys.argv = [sys.argv[0]] + sys.argv[2:]
        hw.main()
        return
    corpus.OUT_DIR = os.path.join(corpus.base.REPO_ROOT, "tests", "corpus", "variants")
    corpus.CASES = [case for _, _, case in cases]
    if sys.argv[1:2] == ["--check"]:
        import check_kernel_sample

        sys.argv = [sys.argv[0]] + [case[0] for case in corpus.CASES[::int(sys.argv[2])]]
        check_kernel_sample.main()
        return
    corpus.FULL_LOGS = set()
    corpus.main()


if __name__ == "__main__":
    main()
