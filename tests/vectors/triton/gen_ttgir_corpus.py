#!/usr/bin/env python3
"""Corpus of real TTGIR dumps produced by the Triton 3.9.0 wheel.

Triton version: 3.9.0 (``pip install triton==3.9.0``). No GPU is needed: ``triton.compile``
runs the whole pipeline (TTIR -> TTGIR -> LLVM IR -> PTX/AMDGCN) on the CPU.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_ttgir_corpus.py

It compiles the small tutorial-style ``@triton.jit`` kernels below for these targets

* ``sm80``   -- ``GPUTarget("cuda", 80, 32)``
* ``sm90``   -- ``GPUTarget("cuda", 90, 32)``
* ``gfx942`` -- ``GPUTarget("hip", "gfx942", 64)``
* ``sm100``  -- ``GPUTarget("cuda", 100, 32)`` (Blackwell: tensor memory, tcgen05)
* ``gfx950`` -- ``GPUTarget("hip", "gfx950", 64)`` (CDNA4: ``#ttg.padded_shared``)
* ``gfx1250`` -- ``GPUTarget("hip", "gfx1250", 32)`` (CDNA5: GFX12's LDS opcodes, TDM copies)

and writes, under ``tests/corpus/ttgir/``:

* ``<kernel>_<target>.ttgir`` -- ``CompiledKernel.asm["ttgir"]`` verbatim;
* ``manifest.json`` -- a list with one entry per (kernel, target) pair, in a fixed order:
  ``{"file", "kernel", "target", "num_warps", "num_stages", "shared_bytes", "instructions"}``.
  ``shared_bytes`` is ``CompiledKernel.metadata.shared`` (``tensor_memory_columns``: ``tmem_size``); ``instructions`` counts selected
  instructions in ``asm["ptx"]``/``asm["amdgcn"]`` (``PTX_KEYS``, ``AMDGCN_KEYS``); exact opcodes in
  ``lds`` (AMD, ``ds_read2st64_b64``) and ``shared_mnemonics`` (NVIDIA, ``st.shared.v4.b32``); on AMD
  ``async_copies``, the copies into and out of LDS by exact opcode.
  A pair that fails to compile gets ``"file": null`` and an ``"error"`` string instead.

Determinism: the kernels, signatures and options are fixed, Triton's cache is redirected to
a fresh temporary directory (so nothing stale is reused), and each kernel's ``file_name``
(which ends up in the ``#loc`` lines) is set to this script's path relative to the
repository root; Triton's own ``@jit`` helpers (``tl.cdiv``, ``tl.max``, ...) get paths
relative to site-packages (``triton/language/standard.py``). So the dumps depend neither on
where the checkout lives nor on where the wheel is installed.

Arguments that a JIT launch would specialise as 16-divisible (pointers, leading strides and
the problem sizes) carry ``tt.divisibility = 16`` through ``ASTSource(attrs=...)``, as a
real launch with aligned tensors would. Inner strides are 1 and written into the kernels.
"""

import json
import os
import re
import sys
import tempfile

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="layoutc-ttgir-cache-")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

SCRIPT_REL = "tests/vectors/triton/gen_ttgir_corpus.py"
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
OUT_DIR = os.path.join(REPO_ROOT, "tests", "corpus", "ttgir")

TARGETS = [
    ("sm80", GPUTarget("cuda", 80, 32)),
    ("sm90", GPUTarget("cuda", 90, 32)),
    ("gfx942", GPUTarget("hip", "gfx942", 64)),
    ("sm100", GPUTarget("cuda", 100, 32)),
    ("gfx950", GPUTarget("hip", "gfx950", 64)),
    ("gfx1250", GPUTarget("hip", "gfx1250", 32)),
]

# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


@triton.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr):
    # Each program normalises BLOCK_M rows; one row fits in BLOCK_N columns.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_row_stride + cols[None, :], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    den = tl.sum(num, axis=1)
    y = num / den[:, None]
    tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :], y, mask=mask)


@triton.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols, eps,
                   BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride
    # mean
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    # variance
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    # normalise and apply the affine transform
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y.to(tl.float16), mask=mask)


@triton.jit
def transpose(in_ptr, out_ptr, M, N, in_stride, out_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(in_ptr + rm[:, None] * in_stride + rn[None, :],
                   mask=(rm[:, None] < M) & (rn[None, :] < N))
    tile_t = tl.trans(tile)
    tl.store(out_ptr + rn[:, None] * out_stride + rm[None, :], tile_t,
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@triton.jit
def row_sum(in_ptr, out_ptr, M, N, row_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(in_ptr + rows[:, None] * row_stride + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + rows, acc, mask=rows < M)


@triton.jit
def _matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, ACC_TYPE: tl.constexpr):
    # Grouped ordering of the output tiles, as in the Triton matmul tutorial.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0)
        acc = tl.dot(a, b, acc, out_dtype=ACC_TYPE)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk

    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_fp16(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    _matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M, BLOCK_N, BLOCK_K,
                 GROUP_M, tl.float32)


@triton.jit
def matmul_int8(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    _matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M, BLOCK_N, BLOCK_K,
                 GROUP_M, tl.int32)


@triton.jit
def matmul_fp32(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # fp32 inputs with tl.dot's default precision (tf32: tensor cores on sm80/sm90, xf32 MFMA on gfx942).
    _matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M, BLOCK_N, BLOCK_K,
                 GROUP_M, tl.float32)


@triton.jit
def matmul_fp16_tma(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    # Same product through device-side tensor descriptors (TMA on sm90).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def flash_attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, stride_qm, stride_kn, stride_vn, stride_om, seq_len, sm_scale,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # One (batch*head) slice per program_id(1); q/k/v/o are [seq_len, HEAD_DIM] row-major.
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    q_ptr += off_bh * seq_len * stride_qm
    k_ptr += off_bh * seq_len * stride_kn
    v_ptr += off_bh * seq_len * stride_vn
    o_ptr += off_bh * seq_len * stride_om

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e)
    for start_n in range(0, seq_len, BLOCK_N):
        cur_n = start_n + offs_n
        k = tl.load(k_ptr + cur_n[:, None] * stride_kn + offs_d[None, :], mask=cur_n[:, None] < seq_len, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        qk = tl.where(cur_n[None, :] < seq_len, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + cur_n[:, None] * stride_vn + offs_d[None, :], mask=cur_n[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16),
             mask=offs_m[:, None] < seq_len)


# --------------------------------------------------------------------------------------
# Cases: (name, fn, signature, constexprs, names of 16-divisible args, options)
# --------------------------------------------------------------------------------------

MM_SIG_INT = {"M": "i32", "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
MM_DIV = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]
MM_CONST = ["BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"]


@triton.jit
def matmul_fp64(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # f64 on tensor cores: mma.sync.m8n8k4 on NVIDIA (instrShape [8, 8]), f64 MFMA/WMMA on AMD.
    _matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M, BLOCK_N, BLOCK_K,
                 GROUP_M, tl.float64)


def _mm_sig(a, b, c):
    sig = {"a_ptr": a, "b_ptr": b, "c_ptr": c}
    sig.update(MM_SIG_INT)
    sig.update({k: "constexpr" for k in MM_CONST})
    return sig


CASES = [
    ("softmax", softmax,
     {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32", "out_row_stride": "i32", "n_rows": "i32",
      "n_cols": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
     {"BLOCK_M": 4, "BLOCK_N": 1024},
     ["out_ptr", "in_ptr", "in_row_stride", "out_row_stride"],
     {"num_warps": 4}),
    ("layer_norm_fwd", layer_norm_fwd,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32", "mean_ptr": "*fp32",
      "rstd_ptr": "*fp32", "row_stride": "i32", "n_cols": "i32", "eps": "fp32", "BLOCK_N": "constexpr"},
     {"BLOCK_N": 1024},
     ["x_ptr", "y_ptr", "w_ptr", "b_ptr", "mean_ptr", "rstd_ptr", "row_stride", "n_cols"],
     {"num_warps": 4}),
    ("transpose", transpose,
     {"in_ptr": "*fp16", "out_ptr": "*fp16", "M": "i32", "N": "i32", "in_stride": "i32", "out_stride": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
     {"BLOCK_M": 64, "BLOCK_N": 64},
     ["in_ptr", "out_ptr", "M", "N", "in_stride", "out_stride"],
     {"num_warps": 4}),
    ("row_sum", row_sum,
     {"in_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "row_stride": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
     {"BLOCK_M": 16, "BLOCK_N": 256},
     ["in_ptr", "out_ptr", "M", "N", "row_stride"],
     {"num_warps": 4}),
    ("matmul_fp16", matmul_fp16, _mm_sig("*fp16", "*fp16", "*fp16"),
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, MM_DIV,
     {"num_warps": 4, "num_stages": 3}),
    ("matmul_int8", matmul_int8, _mm_sig("*i8", "*i8", "*i32"),
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, MM_DIV,
     {"num_warps": 4, "num_stages": 3}),
    ("matmul_fp32", matmul_fp32, _mm_sig("*fp32", "*fp32", "*fp32"),
     {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, MM_DIV,
     {"num_warps": 4, "num_stages": 3}),
    ("matmul_fp64", matmul_fp64, _mm_sig("*fp64", "*fp64", "*fp64"),
     {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 16, "GROUP_M": 8}, MM_DIV,
     {"num_warps": 4, "num_stages": 3}),
    ("matmul_fp16_tma", matmul_fp16_tma,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3}),
    ("flash_attention_fwd", flash_attention_fwd,
     {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "stride_qm": "i32",
      "stride_kn": "i32", "stride_vn": "i32", "stride_om": "i32", "seq_len": "i32", "sm_scale": "fp32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD_DIM": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": 64},
     ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_qm", "stride_kn", "stride_vn", "stride_om", "seq_len"],
     {"num_warps": 4, "num_stages": 3}),
]

# --------------------------------------------------------------------------------------
# Instruction counts. A line counts for a key when its mnemonic (first token after an
# optional predicate such as "@%p1" / "@!%p1") starts with the key.
# --------------------------------------------------------------------------------------

PTX_KEYS = [
    "ldmatrix", "stmatrix", "ld.shared", "st.shared", "ld.global", "st.global", "shfl.sync",
    "cp.async.ca", "cp.async.cg", "cp.async.commit_group", "cp.async.wait_group",
    "cp.async.bulk.tensor", "mbarrier", "fence.proxy.async",
    "wgmma.mma_async", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
    "mma.sync", "bar.sync", "barrier.sync",
]

AMDGCN_KEYS = [
    "ds_read", "ds_read_b128", "ds_read_b64", "ds_read2", "ds_write", "ds_write_b128", "ds_write_b64",
    "ds_write2", "ds_bpermute", "ds_swizzle", "v_mfma", "buffer_load", "buffer_store", "global_load",
    "global_store", "s_barrier", "s_waitcnt",
    # GFX12's spelling (gfx1250).
    "ds_load", "ds_load_b128", "ds_load_b64", "ds_load_2addr", "ds_store", "ds_store_b128",
    "ds_store_b64", "ds_store_2addr", "v_wmma", "tensor_load_to_lds", "tensor_store_from_lds",
]


def _mnemonic_lines(text, backend):
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if backend == "cuda":
            if s.startswith("//") or s.startswith(".") or s.startswith("$") or s.endswith(":") or s in "{}":
                continue
            if s.startswith("@"):
                parts = s.split(None, 1)
                if len(parts) < 2:
                    continue
                s = parts[1]
        else:
            if s[0] in ";.#" or s.endswith(":") or s.startswith("//"):
                continue
        yield s.split(None, 1)[0].rstrip(";")


def count_instructions(text, backend):
    keys = PTX_KEYS if backend == "cuda" else AMDGCN_KEYS
    counts = {k: 0 for k in keys}
    for mn in _mnemonic_lines(text, backend):
        for k in keys:
            if mn.startswith(k):
                counts[k] += 1
    return counts


def count_async_copies(asm, backend):
    """Copies between global and shared memory by exact mnemonic: PTX ``cp.async.cg.shared.global``
    and ``cp.async.ca.shared.global`` (not commit/wait), ``cp.async.bulk.tensor.*`` and
    ``cp.reduce.async.bulk.tensor.*`` (TMA);
    AMDGCN's direct-to-LDS loads (``global_load_lds_dwordx4``, ``buffer_load_dword ... lds``, GFX12's
    ``global_load_async_to_lds_b128``) and gfx1250's tensor data mover (``tensor_load_to_lds``,
    ``tensor_store_from_lds``)."""
    counts = {}
    for line in asm.splitlines():
        s = line.strip()
        if s.startswith("@"):
            s = s.split(None, 1)[1] if " " in s else ""
        mn = s.split(None, 1)[0].rstrip(";") if s else ""
        if backend == "cuda":
            keep = mn.startswith(("cp.async.", "cp.reduce.async.")) and ".shared" in mn
        else:
            keep = mn.startswith(("global_load_lds", "global_load_async_to_lds", "tensor_load_to_lds",
                                  "tensor_store_from_lds")) or (
                mn.startswith("buffer_load") and s.rstrip().endswith(" lds"))
        if keep:
            counts[mn] = counts.get(mn, 0) + 1
    return dict(sorted(counts.items()))


def count_lds_mnemonics(text):
    """Every LDS instruction of ``asm["amdgcn"]`` by its exact mnemonic
    (``ds_read2st64_b64``, ``ds_read_b64_tr_b16``, ...), for AMD targets."""
    counts = {}
    for mn in _mnemonic_lines(text, "hip"):
        if mn.startswith("ds_"):
            counts[mn] = counts.get(mn, 0) + 1
    return dict(sorted(counts.items()))


def count_shared_mnemonics(text):
    """Every shared-memory instruction of ``asm["ptx"]`` by its exact opcode
    (``st.shared.v4.b32``, ``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16``,
    ``atom.relaxed.sys.shared.add.u32``), for NVIDIA targets. Generic loads and
    stores, cp.async and TMA are not counted: they name the shared address as
    an operand, not in the opcode."""
    counts = {}
    for mn in _mnemonic_lines(text, "cuda"):
        shared_atomic = mn.startswith(("atom.", "red.")) and ".shared" in mn
        if shared_atomic or mn.startswith(("ld.shared", "st.shared", "ldmatrix", "stmatrix")):
            counts[mn] = counts.get(mn, 0) + 1
    return dict(sorted(counts.items()))


def count_descriptor_mnemonics(text):
    """The instructions that build a TMA descriptor in shared memory on the device
    (``ttng.tensormap_create``): each ``tensormap.replace.tile.<field>.shared::cta...`` and the
    ``tensormap.cp_fenceproxy...`` that copies the 128 bytes to global memory, by exact opcode."""
    counts = {}
    for mn in _mnemonic_lines(text, "cuda"):
        if mn.startswith(("tensormap.replace", "tensormap.cp_fenceproxy")):
            counts[mn] = counts.get(mn, 0) + 1
    return dict(sorted(counts.items()))


def kept_entries(out_dir):
    """The kernels named on the command line (all when none are), the manifest's path, and the
    entries of the kernels not named, which keep what the manifest has."""
    only = set(sys.argv[1:])
    manifest_path = os.path.join(out_dir, "manifest.json")
    kept = []
    if only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            kept = [e for e in json.load(f) if e["kernel"] not in only]
    return only, manifest_path, kept


def compile_case(fn, sig, constexprs, div_args, target, options):
    names = fn.arg_names
    attrs = {(names.index(a), ): [["tt.divisibility", 16]] for a in div_args}
    src = triton.compiler.ASTSource(fn, signature=sig, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=target, options=dict(options))


def _short_error(exc):
    msg = f"{type(exc).__name__}: {exc}"
    msg = re.sub(r"\s+", " ", msg).strip()
    return msg[:500]


def _relocate_triton_library_paths():
    """Make Triton's own @jit helpers (tl.cdiv, tl.max, ...) report ``triton/language/<file>.py``.

    Their ``#loc`` lines would otherwise carry the absolute path of the installed wheel.
    """
    site_dir = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    for mod_name, mod in sorted(sys.modules.items()):
        if mod is None or not (mod_name == "triton" or mod_name.startswith("triton.")):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, triton.runtime.jit.JITFunction) and os.path.isabs(obj.file_name):
                if obj.file_name.startswith(site_dir + os.sep):
                    obj.file_name = os.path.relpath(obj.file_name, site_dir)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    # All kernels (and helpers they call) report this script's repository-relative path.
    for case in CASES:
        case[1].file_name = SCRIPT_REL
    _matmul_body.file_name = SCRIPT_REL
    _relocate_triton_library_paths()

    only, manifest_path, kept = kept_entries(OUT_DIR)
    manifest = []
    for name, fn, sig, constexprs, div_args, options in CASES:
        if only and name not in only:
            continue
        for tname, target in TARGETS:
            entry = {"file": None, "kernel": name, "target": tname, "num_warps": options["num_warps"],
                     "num_stages": options.get("num_stages")}
            try:
                k = compile_case(fn, sig, constexprs, div_args, target, options)
            except Exception as exc:  # recorded, the pair is skipped
                entry["error"] = _short_error(exc)
                manifest.append(entry)
                print(f"FAIL {name} {tname}: {entry['error'][:200]}", file=sys.stderr)
                continue
            fname = f"{name}_{tname}.ttgir"
            with open(os.path.join(OUT_DIR, fname), "w") as f:
                f.write(k.asm["ttgir"])
            backend = target.backend
            asm = k.asm["ptx"] if backend == "cuda" else k.asm["amdgcn"]
            entry["file"] = fname
            entry["num_warps"] = k.metadata.num_warps
            entry["num_stages"] = k.metadata.num_stages
            entry["shared_bytes"] = k.metadata.shared
            if getattr(k.metadata, "tmem_size", 0):
                # Blackwell's tensor memory: the columns Triton allocates.
                entry["tensor_memory_columns"] = k.metadata.tmem_size
            entry["instructions"] = count_instructions(asm, backend)
            if backend == "hip":
                entry["lds"] = count_lds_mnemonics(asm)
                entry["async_copies"] = count_async_copies(asm, backend)
            else:
                entry["shared_mnemonics"] = count_shared_mnemonics(asm)
                descriptors = count_descriptor_mnemonics(asm)
                if descriptors:
                    entry["descriptor_mnemonics"] = descriptors
            manifest.append(entry)
            print(f"ok   {name} {tname}: {len(k.asm['ttgir'])} chars, shared={k.metadata.shared}")
    order = [c[0] for c in CASES]
    targets = [t[0] for t in TARGETS]
    manifest = sorted(kept + manifest, key=lambda e: (order.index(e["kernel"]), targets.index(e["target"])))
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
