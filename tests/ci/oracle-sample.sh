#!/usr/bin/env bash
# A sample of the hardware oracle, re-run: the Triton 3.9.0 wheel (installed in
# a venv if missing; CPU only) compiles the recorded kernels of five corpus pairs
# again and must produce the recorded shared memory and PTX opcodes
# (tests/vectors/triton/check_hw_sample.py). The GPU measurements need a GPU;
# the Rust tests check layoutc against them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

venv="$root/target/triton-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import triton" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q triton==3.9.0
fi
"$venv/bin/python" tests/vectors/triton/check_hw_sample.py 5
# The AMD side: three pairs' kernels on gfx942 and gfx950 (LDS instructions).
"$venv/bin/python" tests/vectors/triton/check_amd_sample.py 3
# The kernel corpus (whole-kernel shared memory): a scan on seven targets, a
# pipelined dot on a cluster of two CTAs (sm90, sm100), warp-specialised kernels,
# a partitioned tensor on gfx1250, device-built TMA descriptors.
"$venv/bin/python" tests/vectors/triton/check_kernel_sample.py
# The kernel variants measured on an H200 (random warps and stages): every 15th
# compiled again.
"$venv/bin/python" tests/vectors/triton/gen_kernel_variants.py --check 15
# The compiled PTX, run lane by lane: three kernels on sm80 and sm90 must read
# and write shared memory as tests/vectors/triton/ptx_wavefronts.json says.
"$venv/bin/python" tests/vectors/triton/gen_ptx_wavefronts.py --check batched_dot atomic_scalar softmax
# The solver's answers compiled into kernels and run lane by lane: the first
# four problems of tests/vectors/triton/ptx_answers.json, every kernel again.
"$venv/bin/python" tests/vectors/triton/gen_ptx_answers.py --check 4
# sm100's reductions (f32 in 64-bit pairs): every 15th kernel of
# tests/vectors/triton/sm100_reductions.json compiled again.
"$venv/bin/python" tests/vectors/triton/gen_sm100_reductions.py --check 15
# Scratch of random conversions and reductions: every 12th AMD dump of
# tests/corpus/scratch compiled again (metadata.shared and LDS opcodes).
"$venv/bin/python" tests/vectors/triton/gen_scratch_corpus.py --check 12
# Narrow elements on sm80 to sm100 (epilogues of halves, fp8 upcasts): every
# 15th dump of tests/corpus/packed compiled again (metadata.shared and opcodes).
"$venv/bin/python" tests/vectors/triton/gen_packed_corpus.py --check 15
