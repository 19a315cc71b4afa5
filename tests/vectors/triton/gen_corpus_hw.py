#!/usr/bin/env python3
"""The conversions, reductions and epilogues of tests/corpus/scratch and tests/corpus/packed,
built to run on an sm90 GPU, one program each.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed to build them.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_corpus_hw.py OUT_DIR [DUMP ...]

Each dump of ``gen_scratch_corpus.py`` compiled for sm90, and each of ``gen_packed_corpus.py``
compiled for sm80, sm86, sm89 or sm90, is compiled again exactly as those scripts compile it. An
sm90 build's cubin is the one Triton makes; an older target's PTX (its shared-memory
instructions are the ones that target's LLVM chose) is assembled for sm90 by the wheel's
``ptxas``, so that an H100 runs that target's instructions. ``OUT_DIR`` receives one ``.cubin``
per dump (only the named ``DUMP``s, without ``.ttgir``, if any) and ``manifest.json`` in
``gen_kernel_hw.py``'s form (its ``kernel`` is the dump's name without ``.ttgir``, ``ptx_target``
the target whose PTX it is). The scalars make each loop run
once and each mask full, so the GPU's counters of one program are the sum of what layoutc counts
for each op. ``measure_corpus_hw.sh`` runs them on the GPU machine, ``collect_kernel_hw.py``
(``--corpora``) writes ``hw_sm90_corpora.json``.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as base  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)
import gen_scratch_corpus as scratch  # noqa: E402
import gen_packed_corpus as packed  # noqa: E402
from gen_kernel_hw import opcodes, sass_shared_opcodes  # noqa: E402

PTXAS = os.path.join(os.path.dirname(base.triton.__file__), "backends", "nvidia", "bin", "ptxas")

# The packed corpus's targets whose instructions an sm90 GPU can run (sm100's cannot).
PACKED_TARGETS = {"sm80", "sm86", "sm89", "sm90"}


def cases():
    """(corpus, dump name, target name, compile) of every dump built to run."""
    for file, target_name, _, compile_it in scratch.cases():
        if target_name == "sm90":
            yield "scratch", file, target_name, compile_it
    for file, target_name, _, compile_it in packed.cases():
        if target_name in PACKED_TARGETS:
            yield "packed", file, target_name, compile_it


def scalar(name, consts):
    """A scalar argument's value: the tile's own size, so that every loop runs once and every
    bound keeps the whole tile."""
    block = {"M": consts.get("BLOCK_M", consts.get("M")), "N": consts.get("BLOCK_N", consts.get("N")),
             "K": consts.get("BLOCK_K", consts.get("K"))}
    return {"n": block["N"], "stride_cm": block["N"], "M": block["M"], "N": block["N"], "K": block["K"],
            "stride_am": block["K"], "stride_bk": block["N"]}[name]


def arguments(kernel, compile_it):
    """The kernel's arguments in order, from its source's signature; constexprs are not passed."""
    src = kernel.src
    fn = src.fn
    captured = dict(zip(compile_it.__code__.co_varnames, compile_it.__defaults__ or ()))
    consts = captured.get("consts", {})
    args = []
    for name in fn.arg_names:
        ty = src.signature[name]
        if ty == "constexpr":
            continue
        if ty.startswith("*"):
            args.append({"name": name, "pointer": ty[1:], "fill": "zeros"})
        else:
            args.append({"name": name, "scalar": ty, "value": scalar(name, consts)})
    return args


def cubin_for_sm90(ptx, out_path):
    """Assembles an older target's PTX for sm90."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as fh:
        fh.write(ptx)
    try:
        subprocess.run([PTXAS, "-arch=sm_90", fh.name, "-o", out_path], check=True, capture_output=True, text=True)
    finally:
        os.unlink(fh.name)


def main():
    out_dir, only = sys.argv[1], set(sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    kernels = []
    for corpus, file, target_name, compile_it in cases():
        name = file.removesuffix(".ttgir")
        if only and name not in only:
            continue
        k = compile_it()
        ptx = k.asm["ptx"]
        header = re.search(r"\.entry\s+(\w+)\s*\((.*?)\)", ptx, re.S)
        cubin = f"{name}.cubin"
        path = os.path.join(out_dir, cubin)
        if target_name == "sm90":
            with open(path, "wb") as fh:
                fh.write(k.asm["cubin"])
        else:
            cubin_for_sm90(ptx, path)
        entry = {"corpus": corpus, "kernel": name, "file": file, "ptx_target": target_name,
                 "num_warps": k.metadata.num_warps, "args": arguments(k, compile_it),
                 "entry": header.group(1), "params": len(re.findall(r"\.param\b", header.group(2))),
                 "shared_bytes": k.metadata.shared,
                 "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0) or 0,
                 "ptx_shared_opcodes": opcodes(ptx), "cubin": cubin}
        entry["sass_shared_opcodes"], entry["sass_never_executed_loads"] = sass_shared_opcodes(path)
        kernels.append(entry)
        print(f"ok   {name}: shared={k.metadata.shared}")
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"triton": base.triton.__version__, "kernels": kernels}, fh, indent=1)
        fh.write("\n")
    print(f"{len(kernels)} kernels in {out_dir}")


if __name__ == "__main__":
    main()
