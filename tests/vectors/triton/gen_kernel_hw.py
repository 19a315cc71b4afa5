#!/usr/bin/env python3
"""The sm90 kernels of both kernel corpora, built to run on a GPU, one program each.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed to build them.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_kernel_hw.py OUT_DIR [KERNEL ...]

The kernels are those of ``gen_ttgir_corpus.py`` (tests/corpus/ttgir) and
``gen_kernel_corpus.py`` (tests/corpus/kernels; only the named ``KERNEL``s, if any), compiled
for sm90 exactly as those scripts compile them, so each cubin is the kernel whose dump the corpus
holds (``kernel_hardware.rs`` compares their PTX shared-memory opcodes with the corpus
manifest's). ``OUT_DIR`` receives one
``.cubin`` per kernel and ``manifest.json``: for each kernel its corpus, dump file, entry name,
number of warps, shared bytes, global scratch size, number of entry parameters, and its
arguments in order: a pointer (element type and how to fill it) or a scalar (its value).

The scalars are chosen so that every loop runs exactly once (``K = BLOCK_K``,
``n_cols = BLOCK_N``, ``seq_len = BLOCK_N``) and every mask is full: each op then executes once
per warp, and the GPU's shared-memory counters of one program are the sum of what layoutc
counts for each op. ``measure_kernel_hw.sh`` runs them under Nsight Compute on the GPU
machine; ``collect_kernel_hw.py`` writes ``hw_sm90_kernels.json``.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as ttgir_corpus  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)
import gen_kernel_corpus as kernel_corpus  # noqa: E402

from triton.backends.compiler import GPUTarget  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)

# Scalar arguments: one program covers the whole problem and every loop runs once.
SCALARS = {
    "softmax": {"in_row_stride": 1024, "out_row_stride": 1024, "n_rows": 4, "n_cols": 1024},
    "layer_norm_fwd": {"row_stride": 1024, "n_cols": 1024, "eps": 1e-5},
    "transpose": {"M": 64, "N": 64, "in_stride": 64, "out_stride": 64},
    "row_sum": {"M": 16, "N": 256, "row_stride": 256},
    "matmul_fp16": {"M": 128, "N": 128, "K": 32, "stride_am": 32, "stride_bk": 128, "stride_cm": 128},
    "matmul_int8": {"M": 128, "N": 128, "K": 64, "stride_am": 64, "stride_bk": 128, "stride_cm": 128},
    "matmul_fp32": {"M": 64, "N": 64, "K": 32, "stride_am": 32, "stride_bk": 64, "stride_cm": 64},
    "matmul_fp16_tma": {"M": 128, "N": 128, "K": 32},
    "flash_attention_fwd": {"stride_qm": 64, "stride_kn": 64, "stride_vn": 64, "stride_om": 64,
                            "seq_len": 64, "sm_scale": 0.125},
    "matmul_trans_b": {"K": 32, "stride_am": 32, "stride_bn": 32, "stride_cm": 128},
    "batched_dot": {"K": 32},
    "matmul_fp8": {"K": 64, "stride_am": 64, "stride_bk": 128, "stride_cm": 128},
    "matmul_ws": {"M": 128, "N": 128, "K": 64},
    "matmul_fp64": {"M": 64, "N": 64, "K": 16, "stride_am": 16, "stride_bk": 64, "stride_cm": 64},
    "ws_captures": {"n": 1},
    "ws_captures_aligned": {"n": 1},
    "device_descriptors": {"M": 16, "N": 64, "P": 2},
    "attention_backward": {"L": 32},
    "persistent_matmul": {"M": 128, "N": 128, "K": 64},
    "splitk_matmul": {"M": 64, "N": 64, "K": 32},
    "descriptor_matmul": {"M": 128, "N": 64, "K": 32},
    "ws_loop_matmul": {"M": 128, "N": 128, "K": 64},
    "cluster_matmul": {"M": 128, "N": 128, "K": 64},
    "cluster_matmul_two_warps": {"M": 128, "N": 128, "K": 32},
    "cluster_matmul_4": {"M": 128, "N": 256, "K": 32},
    "pipelined_trans_a": {"M": 128, "N": 128, "K": 32},
    "pipelined_trans_a_i8": {"M": 64, "N": 128, "K": 64},
    "pipelined_trans_fp8": {"M": 32, "N": 64, "K": 32},
    "layer_norm_backward": {"stride": 1024, "N": 1024},
    "joined_transpose": {"flag": 1},
    "joined_transpose_i8": {"flag": 1},
    "joined_loads": {"flag": 1},
    "loop_carried_maximum": {"n": 1},
    "joined_words": {"flag": 1},
    "joined_words_f16": {"flag": 1},
    "scaled_words_f16": {"flag": 1},
    "scaled_words_bf16": {"flag": 1},
    "tma_reduce_add": {"M": 64, "N": 64},
    "tma_reduce_max_i32": {"M": 32, "N": 128},
    "atomic_min_masked": {"n": 256},
    "small_matmul_scaled": {"K": 16, "stride_cm": 32},
    "small_matmul_accumulate": {"K": 16, "stride_cm": 32},
    "small_matmul_i32": {"K": 64, "stride_cm": 32},
    "matmul_f16_acc": {"K": 32},
    "persistent_descriptors_subtile": {"M": 128, "N": 128, "K": 64},
    "persistent_descriptors_fp8": {"M": 128, "N": 128, "K": 64},
    "persistent_descriptors_fp8_subtile": {"M": 128, "N": 256, "K": 64},
    "bias_gelu_matmul": {"K": 32},
    "bias_matmul_f32": {"K": 32},
    "bias_matmul_f16": {"K": 32},
    "bias_matmul_i8": {"K": 32},
    "trans_b_row_sums": {"K": 64},
    "matmul_ws_f32_one_warp": {"M": 128, "N": 128, "K": 64},
    "microscaled_matmul_e5m2_e2m1": {"K": 128},
    "int4_dequant_matmul": {"K": 128},
    "matmul_row_maximum": {"K": 32},
    "matmul_row_maximum_bf16": {"K": 32},
    "microscaled_matmul_e4m3_e2m1": {"K": 128},
    "dequant_matmul_i8": {"K": 64},
    "dequant_matmul_e4m3": {"K": 32},
    "attention_fp8": {"N": 64},
    "dequant_matmul_i8_small": {"K": 64},
    "matmul_trans_b_one_stage": {"K": 64, "stride_am": 64, "stride_bn": 64, "stride_cm": 128},
    "persistent_matmul_small": {"M": 64, "N": 64, "K": 64},
}

# Kernels one program cannot run with every loop taken once: program 0 of the causal attention
# skips its off-diagonal loop (it has no block before the diagonal), and a later program runs
# it as many times as it has blocks before the diagonal.
NOT_RUN = {
    "causal_stages": "program 0 has no off-diagonal block: that loop runs no times",
    "causal_stages_wide": "program 0 has no off-diagonal block, and its diagonal loop runs twice",
}

# How a pointer argument is filled: zeros, unless the kernel reads addresses or indices from it.
# ``pointers``: addresses of a buffer's consecutive i32 elements (pointer_table);
# ``spread``: i, modulo the named bound, so lanes touch different histogram bins.
FILLS = {
    ("pointer_table", "tbl_ptr"): {"fill": "pointers"},
    ("histogram", "x_ptr"): {"fill": "spread", "modulo": 64},
    ("histogram_wide", "x_ptr"): {"fill": "spread", "modulo": 1024},
}

SHARED_OPCODE = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:ld|st|atom|red)\.shared[\w:.]*|ldmatrix[\w.]*|stmatrix[\w.]*)",
                           re.M)


def cases():
    """(corpus, name, fn, signature, constexprs, divisible args, options) of every kernel."""
    for corpus, module in (("ttgir", ttgir_corpus), ("kernels", kernel_corpus)):
        for name, fn, sig, constexprs, div_args, options in module.CASES:
            if corpus == "kernels" and "sm90" not in dict(kernel_corpus.targets_of(options)):
                continue
            if name in NOT_RUN:
                continue
            yield corpus, name, fn, sig, constexprs, div_args, options


def arguments(name, sig):
    args = []
    for arg, ty in sig.items():
        if ty == "constexpr":
            continue
        if ty.startswith("*"):
            spec = {"name": arg, "pointer": ty[1:]}
            spec.update(FILLS.get((name, arg), {"fill": "zeros"}))
        else:
            spec = {"name": arg, "scalar": ty, "value": SCALARS[name][arg]}
        args.append(spec)
    return args


def opcodes(ptx):
    counts = {}
    for m in SHARED_OPCODE.finditer(ptx):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return dict(sorted(counts.items()))


def sass_shared_opcodes(cubin_path):
    """Static counts of the SASS shared-memory opcodes (``LDS.128``, ``LDSM.16.M88.4``, ...), and
    of ``@!PT LDS RZ, [RZ]``: a load ptxas places after ``cp.async.wait_group`` whose predicate
    is never true. It moves nothing, but Nsight Compute counts it as a shared load executed."""
    sass = subprocess.run([os.path.join(os.path.dirname(ttgir_corpus.triton.__file__), "backends", "nvidia",
                                        "bin", "cuobjdump"), "-sass", cubin_path],
                          check=True, capture_output=True, text=True).stdout
    counts, never = {}, 0
    for line in sass.splitlines():
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?((?:LDS|STS|LDSM|STSM|ATOMS)\b[\w.]*)", line)
        if not m:
            continue
        counts[m.group(2)] = counts.get(m.group(2), 0) + 1
        if (m.group(1) or "").strip() == "@!PT":
            never += 1
    return dict(sorted(counts.items())), never


def main():
    out_dir, only = sys.argv[1], set(sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    ttgir_corpus._relocate_triton_library_paths()
    for helper in kernel_corpus.HELPERS:
        helper.file_name = "tests/vectors/triton/gen_kernel_corpus.py"
    kernels = []
    for corpus, name, fn, sig, constexprs, div_args, options in cases():
        if only and name not in only:
            continue
        fn.file_name = f"tests/vectors/triton/gen_{'ttgir' if corpus == 'ttgir' else 'kernel'}_corpus.py"
        divisible = [a for a in div_args if a in fn.arg_names]
        entry = {"corpus": corpus, "kernel": name, "file": f"{name}_sm90.ttgir",
                 "num_warps": options["num_warps"], "args": arguments(name, sig)}
        try:
            if corpus == "kernels":
                k = kernel_corpus.compile_kernel(fn, sig, constexprs, divisible, TARGET, options)
            else:
                k = ttgir_corpus.compile_case(fn, sig, constexprs, divisible, TARGET, options)
        except Exception as exc:  # recorded; the kernel is not run
            entry["compile_error"] = ttgir_corpus._short_error(exc)
            kernels.append(entry)
            print(f"FAIL {name}: {entry['compile_error'][:200]}", file=sys.stderr)
            continue
        ptx = k.asm["ptx"]
        header = re.search(r"\.entry\s+(\w+)\s*\((.*?)\)", ptx, re.S)
        cubin = f"{name}.cubin"
        with open(os.path.join(out_dir, cubin), "wb") as fh:
            fh.write(k.asm["cubin"])
        entry.update({
            # A warp-specialised kernel is launched with its partitions' warps too.
            "num_warps": k.metadata.num_warps,
            # A kernel on a cluster runs as one program of `ctas` CTAs.
            "ctas": k.metadata.num_ctas,
            "entry": header.group(1),
            "params": len(re.findall(r"\.param\b", header.group(2))),
            "shared_bytes": k.metadata.shared,
            "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0) or 0,
            "ptx_shared_opcodes": opcodes(ptx),
            "cubin": cubin,
        })
        entry["sass_shared_opcodes"], entry["sass_never_executed_loads"] = sass_shared_opcodes(
            os.path.join(out_dir, cubin))
        kernels.append(entry)
        print(f"ok   {name}: shared={k.metadata.shared} {entry['ptx_shared_opcodes']}")
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"triton": __import__("triton").__version__, "kernels": kernels}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
