#!/usr/bin/env python3
"""Kernels whose shared memory goes beyond conversions, with Triton's own allocation.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_kernel_corpus.py

For each kernel below and each target (sm80, sm89, sm90, sm100, gfx942, gfx950, gfx1250) it compiles the
kernel with ``MLIR_ENABLE_DUMP=1`` and writes, under ``tests/corpus/kernels/``:

* ``<kernel>_<target>.ttgir`` -- ``CompiledKernel.asm["ttgir"]`` verbatim: the dump a user finds
  in Triton's cache, before shared memory is allocated;
* ``<kernel>_<target>.allocated.ttgir`` -- the module as it enters the lowering to LLVM (the last
  ``// -----// IR Dump Before ConvertTritonGPUToLLVM`` / ``ConvertTritonAMDGPUToLLVM`` section):
  Triton's allocator has put ``allocation.offset`` / ``allocation.size`` on every op that uses
  shared memory and ``ttg.shared`` on the module;
* ``<kernel>_<target>.dump.log`` for the kernels in ``FULL_LOGS``: the whole ``MLIR_ENABLE_DUMP``
  output, every pass's section;
* ``manifest.json`` -- one entry per (kernel, target) pair: ``{"file", "allocated", "kernel",
  "target", "num_warps", "shared_bytes", "allocations", "shared_mnemonics" | "lds"}``.
  ``shared_bytes`` is ``CompiledKernel.metadata.shared``; ``allocations`` lists Triton's
  ``{"op", "offset", "size"}`` in the order of the allocated dump; ``shared_mnemonics`` (PTX) and
  ``lds`` (AMDGCN) count every shared-memory instruction of the compiled code by its exact
  opcode. A pair that does not compile gets ``"file": null`` and an ``"error"``.

Helpers (instruction counting, argument attributes, path relocation) come from
``gen_ttgir_corpus.py`` beside this script.
"""

import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as base  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource, GluonJITFunction  # noqa: E402
from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout  # noqa: E402

SCRIPT_REL = "tests/vectors/triton/gen_kernel_corpus.py"
OUT_DIR = os.path.join(base.REPO_ROOT, "tests", "corpus", "kernels")

TARGETS = [
    ("sm80", GPUTarget("cuda", 80, 32)),
    ("sm89", GPUTarget("cuda", 89, 32)),
    ("sm90", GPUTarget("cuda", 90, 32)),
    ("sm100", GPUTarget("cuda", 100, 32)),
    ("gfx942", GPUTarget("hip", "gfx942", 64)),
    ("gfx950", GPUTarget("hip", "gfx950", 64)),
    # CDNA5: 32-lane waves, GFX12's LDS opcodes, shared memory in physical partitions of 64 KiB.
    ("gfx1250", GPUTarget("hip", "gfx1250", 32)),
]

# Targets only some kernels are compiled for (named in the kernel's options): none at present,
# every target above compiles every kernel that does not name its own.
EXTRA_TARGETS = {}

FULL_LOGS = {("cumsum_1d", "sm80"), ("histogram", "gfx942")}


@triton.jit
def cumsum_1d(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


@triton.jit
def cumsum_2d(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


@triton.jit
def cumsum_rows_i32(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 1))


@triton.jit
def column_sum(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + tl.arange(0, N), tl.sum(tl.load(x_ptr + offs), 0))


@triton.jit
def row_argmax(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + tl.arange(0, M), tl.argmax(tl.load(x_ptr + offs), 1))


@triton.jit
def histogram(x_ptr, y_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


@triton.jit
def atomic_scalar(counter_ptr, out_ptr):
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(out_ptr + tl.program_id(0), ticket)


@triton.jit
def atomic_tensor(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    old = tl.atomic_add(x_ptr + offs % 16, 1.0)
    tl.store(out_ptr + offs, old)


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(src, idx, 0))


@triton.jit
def sort_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs), 1))


@triton.jit
def join_permute(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    joined = tl.join(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    swapped = tl.permute(joined, (1, 0, 2))
    flat = tl.reshape(swapped, (N, 2 * M))
    out = tl.arange(0, N)[:, None] * (2 * M) + tl.arange(0, 2 * M)[None, :]
    tl.store(out_ptr + out, flat)


@triton.jit
def matmul_trans_b(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bn, stride_cm, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[:, None] * stride_bn + (k + rk)[None, :])
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, K, B: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr):
    rb = tl.arange(0, B)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((B, BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rb[:, None, None] * (BLOCK_M * K) + rm[None, :, None] * K + (k + rk)[None, None, :])
        b = tl.load(b_ptr + rb[:, None, None] * (K * BLOCK_N) + (k + rk)[None, :, None] * BLOCK_N
                    + rn[None, None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rb[:, None, None] * (BLOCK_M * BLOCK_N) + rm[None, :, None] * BLOCK_N + rn[None, None, :],
             acc.to(tl.float16))


@triton.jit
def matmul_fp8(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


@triton.jit
def pointer_table(tbl_ptr, out_ptr, N: tl.constexpr):
    # A tensor of pointers goes through a conversion (64-bit elements).
    offs = tl.arange(0, N)
    ptrs = tl.load(tbl_ptr + offs).to(tl.pointer_type(tl.int32))
    vals = tl.load(ptrs)
    tl.store(out_ptr + tl.sort(offs.to(tl.int32), 0), vals)


@triton.jit(noinline=True)
def _column_total(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Not inlined: the kernel calls it, and its reduction's scratch is placed at the call.
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + tl.arange(0, N), tl.sum(tl.load(x_ptr + offs), 0))


@triton.jit
def call_reduce(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # A call beside a scan: the callee's shared memory is live only during the call.
    _column_total(x_ptr, y_ptr, M, N)
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + N + offs, tl.cumsum(tl.load(x_ptr + offs), 0))


@triton.jit
def matmul_ws(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              BLOCK_K: tl.constexpr):
    # A TMA matmul whose loop is warp-specialised (loads, mma and epilogue in partitions).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@gluon.jit
def _ws_row_sums(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, W: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [1, W], [1, 0])
    om = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    gl.store(out_ptr + om, gl.sum(gl.load(x_ptr + om[:, None] * N + on[None, :]), 1))


@gluon.jit
def _ws_column_sums(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, W: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [W, 1], [0, 1])
    om = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    gl.store(out_ptr + on, gl.sum(gl.load(x_ptr + om[:, None] * N + on[None, :]), 0))


@gluon.jit
def ws_reductions(x_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr):
    # Gluon's warp_specialize: each partition reduces across its warps, so every partition has
    # scratch; partitions run at once, so their scratch never shares bytes. 2 + 4 worker warps are
    # padded to two warp groups.
    gl.warp_specialize([
        (_ws_row_sums, (x_ptr, out_ptr, M, N, 4)),
        (_ws_column_sums, (x_ptr, out_ptr + M, M, N, 2)),
        (_ws_row_sums, (x_ptr + M * N, out_ptr + M + N, M, N, 4)),
    ], [2, 4])


@gluon.jit
def _ws_scaled(out_ptr, scale, flag, base_ptr, n, m, N: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    o = gl.arange(0, N, layout=L)
    v = gl.load(base_ptr + o) * scale + n + m
    gl.store(out_ptr + o, gl.where(flag, v, 0.0))


@gluon.jit
def _ws_copy_scaled(out_ptr, x_ptr, scale, N: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    o = gl.arange(0, N, layout=L)
    gl.store(out_ptr + o, gl.load(x_ptr + o) * scale)


@gluon.jit
def ws_captures(x_ptr, out_ptr, s_ptr, n, N: gl.constexpr):
    # What the partitions cannot recompute goes through shared memory: a loaded scalar, a
    # comparison of one, a pointer a loop advanced and a value 20 operations from the arguments
    # (more than the 16 Triton rematerialises). n * 2 + 1 and the pointers are rebuilt in each
    # partition. The stored captures pack unaligned (f32, i1, pointer, i32).
    scale = gl.load(s_ptr)
    flag = gl.load(s_ptr + 1) > 0
    base = x_ptr
    for i in range(n):
        base += N
    long = n
    for _ in gl.static_range(9):
        long = long * 3 + 1
    gl.warp_specialize([
        (_ws_copy_scaled, (out_ptr, x_ptr, scale, N)),
        (_ws_scaled, (out_ptr + N, scale, flag, base, n * 2 + 1, long, N)),
        (_ws_copy_scaled, (out_ptr + 2 * N, x_ptr, scale, N)),
    ], [1, 2])


@gluon.jit
def _ws_two_sources(out_ptr, p, q, a, b, c, d, N: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    o = gl.arange(0, N, layout=L)
    gl.store(out_ptr + o, gl.load(p + o) * c + gl.load(q + o) * d + a + b)


@gluon.jit
def _ws_one_source(out_ptr, p, a, c, N: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    o = gl.arange(0, N, layout=L)
    gl.store(out_ptr + o, gl.load(p + o) * c + a)


@gluon.jit
def ws_captures_aligned(x_ptr, y_ptr, out_ptr, s_ptr, n, N: gl.constexpr):
    # Stored captures that pack aligned: two pointers, then four 32-bit scalars. A partition
    # that uses the first pointer and two of the scalars loads the pointer alone and the four
    # scalars as one vector.
    p = x_ptr
    q = y_ptr
    for i in range(n):
        p += N
        q += 2 * N
    a = gl.load(s_ptr.to(gl.pointer_type(gl.int32)))
    b = gl.load(s_ptr.to(gl.pointer_type(gl.int32)) + 1)
    c = gl.load(s_ptr + 2)
    d = gl.load(s_ptr + 3)
    gl.warp_specialize([
        (_ws_one_source, (out_ptr, p, a, c, N)),
        (_ws_two_sources, (out_ptr + N, p, q, a, b, c, d, N)),
        (_ws_one_source, (out_ptr + 2 * N, p, a, c, N)),
    ], [1, 4])


@gluon.jit
def partitioned_pair(ptr, out, M: gl.constexpr, N: gl.constexpr, SMEM: gl.constexpr, L: gl.constexpr):
    # Two tensors in a partitioned layout (CDNA5): each piece of a tensor in its own 64 KiB
    # partition of LDS.
    om = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    offs = om[:, None] * N + on[None, :]
    a = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    b = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    a.store(gl.load(ptr + offs))
    b.store(gl.load(ptr + M * N + offs))
    gl.store(out + offs, a.load(L) + b.load(L))


@triton.jit
def device_descriptors(a_ptr, b_ptr, c_ptr, d_ptr, M, N, P):
    # TMA descriptors built on the device in each form their fields take: 1-D with a NaN fill
    # (rank field 0, fill mode 1), 2-D bytes in a box too small to swizzle (element type 0,
    # swizzle 0), 3-D halves (two global strides).
    a = tl.make_tensor_descriptor(a_ptr, shape=[N], strides=[1], block_shape=[64], padding_option="nan")
    b = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1], block_shape=[16, 16])
    c = tl.make_tensor_descriptor(c_ptr, shape=[P, M, N], strides=[M * N, N, 1], block_shape=[2, 16, 64])
    d = tl.make_tensor_descriptor(d_ptr, shape=[P, M, N], strides=[M * N, N, 1], block_shape=[2, 16, 64])
    a.store([64], a.load([0]))
    b.store([16, 0], b.load([0, 0]))
    d.store([0, 0, 0], c.load([0, 0, 0]))


MM_DIV = ["a_ptr", "b_ptr", "c_ptr", "K", "stride_am", "stride_bn", "stride_bk", "stride_cm"]


@triton.jit
def causal_attention(q_ptr, k_ptr, v_ptr, o_ptr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # Causal attention forward: the probabilities, truncated to bf16, feed the second dot.
    start = tl.program_id(0) * BM
    m = start + tl.arange(0, BM)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + m[:, None] * D + d[None, :])
    acc = tl.zeros((BM, D), tl.float32)
    m_i = tl.full((BM,), -1e9, tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    for s in range(0, start + BM, BN):
        n = s + tl.arange(0, BN)
        k = tl.load(k_ptr + n[None, :] * D + d[:, None])
        v = tl.load(v_ptr + n[:, None] * D + d[None, :])
        qk = tl.where(m[:, None] >= n[None, :], tl.dot(q, k), -1e9)
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + m[:, None] * D + d[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))


@triton.jit
def attention_backward(q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, L, D: tl.constexpr, BM: tl.constexpr,
                       BN: tl.constexpr):
    # The dK/dV half of attention's backward pass: four dots a step, two of them with a transposed
    # operand, probabilities cast to f16 between them.
    n = tl.program_id(0) * BN + tl.arange(0, BN)
    d = tl.arange(0, D)
    k = tl.load(k_ptr + n[:, None] * D + d[None, :])
    v = tl.load(v_ptr + n[:, None] * D + d[None, :])
    dk = tl.zeros((BN, D), tl.float32)
    dv = tl.zeros((BN, D), tl.float32)
    for s in range(0, L, BM):
        m = s + tl.arange(0, BM)
        q = tl.load(q_ptr + m[:, None] * D + d[None, :])
        do = tl.load(do_ptr + m[:, None] * D + d[None, :])
        p = tl.exp(tl.dot(k, tl.trans(q)))
        dv += tl.dot(p.to(do.dtype), do)
        ds = (p * tl.dot(v, tl.trans(do))).to(q.dtype)
        dk += tl.dot(ds, q)
    tl.store(dk_ptr + n[:, None] * D + d[None, :], dk.to(dk_ptr.dtype.element_ty))
    tl.store(dv_ptr + n[:, None] * D + d[None, :], dv.to(dv_ptr.dtype.element_ty))


@triton.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      SMS: tl.constexpr):
    # One program per SM walks the tiles; the pipeliner flattens the two loops into one.
    tiles_n = tl.cdiv(N, BN)
    for t in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, SMS, flatten=True):
        rm = (t // tiles_n) * BM + tl.arange(0, BM)
        rn = (t % tiles_n) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def splitk_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Each program's slice of K, added to the output tile by atomics.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.program_id(0) * BK + tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@triton.jit
def flip_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    tl.store(y_ptr + om * N + on, tl.flip(tl.load(x_ptr + om * N + on), 1))


@triton.jit
def descriptor_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Tiles through tensor descriptors made on the device (TMA on sm90 on, loads elsewhere).
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_d.load([pm * BM, k]), b_d.load([k, pn * BN]), acc)
    c_d.store([pm * BM, pn * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def ws_loop_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A K loop the compiler warp-specialises (``tl.range(warp_specialize=True)``); B is K-major.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        acc = tl.dot(a_d.load([pm * BM, k]), b_d.load([pn * BN, k]).T, acc)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def matmul_trans_a(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # A stored K-major and transposed into the dot: bytes loaded in vectors reach shared memory
    # in pairs (gfx1250 stores a register's high pair with ``ds_store_b16_d16_hi``).
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    a = tl.load(a_ptr + ok[:, None] * M + om[None, :])
    b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    tl.store(c_ptr + om[:, None] * N + on[None, :], tl.dot(tl.trans(a), b).to(c_ptr.dtype.element_ty))


@triton.jit
def cluster_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A pipelined matmul on a cluster of CTAs (``num_ctas``): each CTA allocates only its own tile
    # of a buffer the cluster splits (``CGALayout``), all of one it repeats.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def pipelined_trans_a(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      TB: tl.constexpr):
    # A pipelined matmul whose A is stored M-major and transposed into the dot (and B K-major where
    # ``TB``): the loaded vectors run across the buffer's rows, so they are stored an element at a
    # time (on AMD each register's high half with the ``_d16_hi`` form).
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.trans(tl.load(a_ptr + (k + rk)[:, None] * M + rm[None, :]))
        if TB:
            b = tl.trans(tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :]))
        else:
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def layer_norm_backward(dx_ptr, dy_ptr, dw_ptr, db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, lock_ptr, stride, N,
                        GROUP_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The tutorial's dx kernel: two row sums, then each row's partial dw/db added into a group's
    # buffer under a spin lock. The lock's compare-and-swap is used (its result goes through
    # scratch); the exchanges' results are not. MLIR numbers the lock loop's and the branch's
    # values from the same point, so both print a `%10`.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(dx_ptr + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    lock_id = row % GROUP_M
    lock = lock_ptr + lock_id
    count = lock + GROUP_M
    dw_ptrs = dw_ptr + lock_id * N + cols
    db_ptrs = db_ptr + lock_id * N + cols
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        partial_dw += tl.load(dw_ptrs, mask=mask)
        partial_db += tl.load(db_ptrs, mask=mask)
    tl.store(dw_ptrs, partial_dw, mask=mask)
    tl.store(db_ptrs, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def matmul_ieee(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # An f32 dot in full precision: FMA on NVIDIA (operands through shared memory), and on AMD an
    # `amdg.in_thread_transpose` of B into `#ttg.amd_rotating_shared`, whose stores LLVM pairs
    # only where no store of another base lies between the two.
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
    b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    tl.store(c_ptr + om[:, None] * N + on[None, :], tl.dot(a, b, input_precision="ieee"))


@triton.jit
def joined_transpose(x_ptr, y_ptr, flag, M: tl.constexpr, N: tl.constexpr):
    # A tile transposed in either branch: LLVM joins the branches' values as one vector (a phi),
    # packed in its registers. AMD stores what sits at bit 16 of a register with `_d16_hi`
    # (bytes and halves alike; straight-line arithmetic would leave each value in a register of
    # its own); sm100 moves eight such halves as two 64-bit words.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + om * N + on)
    if flag > 0:
        y = tl.trans(x) * 2
    else:
        y = tl.trans(x) + 1
    tl.store(y_ptr + on.T * M + om.T, y)


@triton.jit
def joined_loads(x_ptr, y_ptr, flag, M: tl.constexpr, N: tl.constexpr):
    # Either branch loads a tile; the joined vector is transposed after: AMD still stores its
    # registers' high halves with `_d16_hi`, and sm100 keeps 32-bit words (no arithmetic made it).
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    if flag > 0:
        x = tl.load(x_ptr + om * N + on)
    else:
        x = tl.load(x_ptr + M * N + om * N + on)
    tl.store(y_ptr + on.T * M + om.T, tl.trans(x))


@triton.jit
def loop_carried_maximum(x_ptr, y_ptr, n, M: tl.constexpr, N: tl.constexpr):
    # A tile carried through a loop is joined as one vector too (a loop phi).
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    acc = tl.load(x_ptr + om * N + on)
    for i in range(n):
        acc = tl.maximum(acc, tl.load(x_ptr + (i + 1) * M * N + om * N + on))
    tl.store(y_ptr + on.T * M + om.T, tl.trans(acc))


@gluon.jit
def joined_words(x_ptr, y_ptr, flag, M: gl.constexpr, N: gl.constexpr, VEC: gl.constexpr,
                 ACROSS: gl.constexpr, JOINED: gl.constexpr):
    # Gluon: VEC elements per thread along the rows (loaded one at a time: the pointer has no
    # divisibility), doubled in either branch (JOINED) or in straight-line code, converted to one
    # element per thread, or (ACROSS) two per thread down the columns (32-lane layouts: not for
    # 64-lane waves). From sm86 on the joined halves, and 16-bit float arithmetic's results, are
    # stored in 32-bit words (the vectoriser pairs halves; sm80 keeps them apart); sm100 stores a
    # joined vector's eight bytes as one 64-bit word (`st.shared.b64`).
    if ACROSS:
        L: gl.constexpr = gl.BlockedLayout([1, VEC], [32, 1], [1, gl.num_warps()], [1, 0])
        L2: gl.constexpr = gl.BlockedLayout([2, 1], [4, 8], [1, gl.num_warps()], [0, 1])
    else:
        L: gl.constexpr = gl.BlockedLayout([1, VEC], [4, 8], [gl.num_warps(), 1], [1, 0])
        L2: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [1, gl.num_warps()], [0, 1])
    om = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    x = gl.load(x_ptr + om[:, None] * N + on[None, :])
    if JOINED:
        if flag > 0:
            y = x * 2
        else:
            y = x + 1
    else:
        y = x * 2
    om2 = gl.arange(0, M, layout=gl.SliceLayout(1, L2))
    on2 = gl.arange(0, N, layout=gl.SliceLayout(0, L2))
    gl.store(y_ptr + om2[:, None] * N + on2[None, :], gl.convert_layout(y, L2))


@triton.jit
def _linear_step(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence(a_ptr, b_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # h[i] = a[i] * h[i-1] + b[i] along the rows, as an associative scan of (a, b) pairs of which
    # only b's result is used. A warp's prefix starts from the first warp's partial and needs only
    # its b (the accumulated side of b's combine); the later partials are combined in and need
    # both: on AMD, LLVM reads no first-warp a.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + om * N + on)
    b = tl.load(b_ptr + om * N + on)
    _, h = tl.associative_scan((a, b), 1, _linear_step)
    tl.store(y_ptr + om * N + on, h)


@triton.jit
def clamped_bytes(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Bytes loaded in vectors, clamped at zero, transposed through shared memory: gfx1250 keeps
    # them four to a register through the arithmetic (pairs stored from a register's high half
    # with `ds_store_b16_d16_hi`); gfx942 and gfx950 compute each byte in a register of its own.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + om * N + on)
    y = tl.where(x > 0, x, 0)
    tl.store(y_ptr + on.T * M + om.T, tl.trans(y))


@triton.jit
def bf16_minimum(x_ptr, z_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # The minimum of two bf16 tiles, transposed through shared memory. gfx942 has no bf16
    # conversion: LLVM takes the minimum in f32, where a bf16 is the high half of its f32, and
    # the result needs no rounding, so every element is stored with `ds_write_b16_d16_hi`.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    y = tl.minimum(tl.load(x_ptr + om * N + on), tl.load(z_ptr + om * N + on))
    tl.store(y_ptr + on.T * M + om.T, tl.trans(y))


@triton.jit
def half_row_sums(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Row sums of f16 within warps, converted to one element per thread: from sm86 on the
    # vectoriser pairs the last additions, so the sums are stored as 32-bit words.
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    tl.store(y_ptr + tl.arange(0, M), tl.sum(tl.load(x_ptr + om * N + on), 1))


@triton.jit
def small_matmul(a_ptr, b_ptr, c_ptr, K, stride_cm, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr,
                 SCALE: tl.constexpr, ACCUMULATE: tl.constexpr):
    # A one-warp matmul over a K loop that may run no times, its accumulator converted (and
    # scaled) after the loop. On the path that skips the loop the epilogue folds to a constant (or,
    # accumulating into C, to C as loaded: the narrowing undoes the widening), so LLVM moves it
    # into the loop exit's phi: the value is joined, and sm100 (whose registers hold pairs of
    # 32-bit values) stores eight halves or two words as 64-bit words.
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, BK)
    if ACCUMULATE:
        acc = tl.load(c_ptr + om[:, None] * stride_cm + on[None, :]).to(tl.float32)
    else:
        acc = tl.zeros((M, N), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + om[:, None] * K + (k + ok)[None, :])
        b = tl.load(b_ptr + (k + ok)[:, None] * N + on[None, :])
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    if SCALE:
        c = c * 2
    tl.store(c_ptr + om[:, None] * stride_cm + on[None, :], c)


@triton.jit
def static_k_matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr, K: tl.constexpr):
    # A matmul whose K loop has constant bounds: it runs at least once, so LLVM has no path that
    # skips it, and sm80 converts the accumulator to f16 two at a time (`cvt.rn.f16x2.f32`) as
    # in straight-line code, storing words.
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, BK)
    acc = tl.zeros((M, N), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + om[:, None] * K + (k + ok)[None, :])
        b = tl.load(b_ptr + (k + ok)[:, None] * N + on[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def reduce_or_select(x_ptr, z_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, CONSTANTS: tl.constexpr):
    # Whether any row of a column is positive, as the condition of a select whose result a
    # conversion stores: from that vector store (four floats a lane), LLVM's vectoriser takes the
    # four selects as one (sm86 on), and their booleans as one 32-bit load of the reduction's
    # result; on sm80, and where the conversion stores two floats a lane (32x256), the load's
    # bytes go apart (`ld.shared.b16`, two `ld.shared.b8`).
    om = tl.arange(0, M)[:, None]
    on = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + om * N + on)
    r = tl.reduce_or(x > 0, 0)
    if CONSTANTS:
        v = tl.where(r, 1.0, 2.0)
    else:
        v = tl.where(r, tl.load(z_ptr + tl.arange(0, N)), 0.0)
    tl.store(y_ptr + tl.arange(0, N), v)


@triton.jit
def atomic_repeated(x_ptr, c_ptr, y_ptr, BLOCK: tl.constexpr, KIND: tl.constexpr):
    # A tensor atomic whose layout repeats its elements across threads (fewer elements than
    # threads): the thread that did each atomic stores what it returned into scratch (Triton's
    # `storeShared`, `st.shared::cta` on NVIDIA) and every thread reads its copy back. On AMD an
    # add to a buffer is `amdg.buffer_atomic_rmw`, which goes through scratch the same way.
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    if KIND == 0:
        old = tl.atomic_add(c_ptr + o, x)
    else:
        old = tl.atomic_max(c_ptr + o, x)
    tl.store(y_ptr + o, old)


@triton.jit
def atomic_tile(x_ptr, c_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr, KIND: tl.constexpr):
    # A 2-D tensor atomic with fewer elements than threads, whose result is used: each element's
    # result goes through scratch at its row-major index, stored by the thread that owns it (the
    # copies' lanes, and warps of copies, are masked off) and read back by every thread. KIND:
    # add, max, exchange, compare-and-swap.
    o = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    x = tl.load(x_ptr + o)
    if KIND == 0:
        old = tl.atomic_add(c_ptr + o, x)
    elif KIND == 1:
        old = tl.atomic_max(c_ptr + o, x)
    elif KIND == 2:
        old = tl.atomic_xchg(c_ptr + o, x)
    else:
        old = tl.atomic_cas(c_ptr + o, x, x + 1)
    tl.store(y_ptr + o, old)


@triton.jit
def unstaged_matmul_bias(a_ptr, b_ptr, c_ptr, bias_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                         BK: tl.constexpr, INTEGER: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if INTEGER:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float32) + bias)


@triton.jit
def column_max(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + tl.arange(0, N), tl.max(tl.load(x_ptr + offs), 0))


@triton.jit
def conv_implicit_gemm(x_ptr, w_ptr, y_ptr, H, W, C: tl.constexpr, K: tl.constexpr, BM: tl.constexpr,
                       BK: tl.constexpr):
    # A 3x3 convolution as an implicit GEMM over NHWC input: the taps are unrolled, each a K loop.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    oh = rm // W
    ow = rm % W
    rn = tl.arange(0, K)
    acc = tl.zeros((BM, K), tl.float32)
    for r in tl.static_range(3):
        for s in tl.static_range(3):
            ih = oh + r - 1
            iw = ow + s - 1
            inside = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            for c in range(0, C, BK):
                rc = c + tl.arange(0, BK)
                a = tl.load(x_ptr + ((ih * W + iw) * C)[:, None] + rc[None, :], mask=inside[:, None], other=0.0)
                b = tl.load(w_ptr + ((r * 3 + s) * C + rc)[:, None] * K + rn[None, :])
                acc = tl.dot(a, b, acc)
    tl.store(y_ptr + rm[:, None] * K + rn[None, :], acc.to(y_ptr.dtype.element_ty))


@triton.jit
def unrolled_dot(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, loop_unroll_factor=2):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :]), tl.load(b_ptr + rk[:, None] * BN + rn[None, :]), acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def drained_stages_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A pipelined K loop whose drained stages read the loop's last buffers
    # after it: gfx942 pairs fewer of those reads than the loop's.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def tma_reduce(a_ptr, b_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, MAXIMUM: tl.constexpr):
    # A tile loaded by TMA and reduced into another tensor by TMA (`desc.atomic_add`,
    # `desc.atomic_max`): `cp.reduce.async.bulk.tensor` from the tile's buffer.
    da = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    db = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = da.load([tl.program_id(0) * BM, 0])
    if MAXIMUM:
        db.atomic_max([tl.program_id(0) * BM, 0], x)
    else:
        db.atomic_add([tl.program_id(0) * BM, 0], x)


@triton.jit
def tma_gather_scatter(a_ptr, b_ptr, idx_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, SCALE: tl.constexpr):
    # Blackwell's TMA gather and scatter of rows (`desc.gather`, `desc.scatter`): each warp moves
    # four rows at a time of the offsets its lanes share, each row in 128-byte messages
    # (`tile::gather4`, `tile::scatter4`); scaled, the rows go through registers between the two.
    rows = tl.load(idx_ptr + tl.arange(0, BM))
    dg = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    ds = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    x = dg.gather(rows, 0)
    if SCALE:
        x = x * 2
    ds.scatter(x, rows, 0)


@triton.jit
def atomic_min_masked(x_ptr, c_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # A float minimum, masked: Triton takes it as two integer atomics (`min` where the value is
    # not negative, `umax` where it is), each masked by the load's mask and the sign, and selects
    # between their results. The booleans converted for the masks and the select are read a byte
    # at a time on NVIDIA (LLVM keeps them as `i1` through the `and` with the mask).
    o = tl.arange(0, BLOCK)
    m = o < n
    x = tl.load(x_ptr + o, mask=m)
    old = tl.atomic_min(c_ptr + o, x, mask=m, sem="relaxed", scope="cta")
    tl.store(y_ptr + o, old, mask=m)


@triton.jit
def _causal_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, start_m, qk_scale, n_ctx, stride_k, stride_v,
                   BM: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, STAGE: tl.constexpr):
    # One sweep of the tutorial's attention: the blocks left of the diagonal (STAGE 1), or the
    # diagonal block itself (STAGE 2, masked), whose trip count BM / BN is a constant though its
    # bounds are not.
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    if STAGE == 1:
        lo, hi = 0, start_m * BM
    else:
        lo, hi = start_m * BM, (start_m + 1) * BM
        lo = tl.multiple_of(lo, BM)
    for start_n in tl.range(lo, hi, BN):
        start_n = tl.multiple_of(start_n, BN)
        k = tl.load(k_ptr + offs_d[:, None] + (start_n + offs_n)[None, :] * stride_k)
        qk = tl.dot(q, k)
        if STAGE == 2:
            qk = qk * qk_scale + tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + (start_n + offs_n)[:, None] * stride_v + offs_d[None, :])
        p = p.to(v.dtype)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def causal_stages(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, stride_q, stride_k, stride_v, stride_o, n_ctx,
                  D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # The tutorial's causal attention forward (its STAGE 3): the off-diagonal blocks, then the
    # diagonal block. On AMD the pipeliner peels each loop into a prologue, a loop and `scf.if`
    # stages under `trip >= k`; the diagonal's trip count folds, so LLVM removes the stages that
    # cannot run (and the reads that only feed them), and a loop whose bounds fold equal.
    start_m = tl.program_id(0)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptr + offs_m[:, None] * stride_q + offs_d[None, :])
    acc, l_i, m_i = _causal_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, start_m, qk_scale, n_ctx, stride_k, stride_v,
                                   BM, D, BN, 1)
    acc, l_i, m_i = _causal_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, start_m, qk_scale, n_ctx, stride_k, stride_v,
                                   BM, D, BN, 2)
    tl.store(o_ptr + offs_m[:, None] * stride_o + offs_d[None, :], (acc / l_i[:, None]).to(o_ptr.type.element_ty))


def _causal_stages_signature(dtype):
    return {"q_ptr": "*" + dtype, "k_ptr": "*" + dtype, "v_ptr": "*" + dtype, "o_ptr": "*" + dtype,
            "sm_scale": "fp32", "stride_q": "i32", "stride_k": "i32", "stride_v": "i32", "stride_o": "i32",
            "n_ctx": "i32", "D": "constexpr", "BM": "constexpr", "BN": "constexpr"}


@triton.jit
def matmul_f16_acc(a_ptr, b_ptr, c_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float16)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def split_pairs(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None, None]
    c = tl.arange(0, N)[None, :, None]
    t = tl.arange(0, 2)[None, None, :]
    x = tl.load(x_ptr + r * 2 * N + c * 2 + t)
    a, b = tl.split(x)
    o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + o, a)
    tl.store(z_ptr + o, b)


@triton.jit
def scan_partials(x_ptr, y_ptr, N: tl.constexpr, PROD: tl.constexpr):
    c = tl.arange(0, N)
    x = tl.load(x_ptr + c)
    if PROD:
        y = tl.cumprod(x, axis=0)
    else:
        y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + c, y)


@triton.jit
def scan_partials_columns(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r * N + c)
    tl.store(y_ptr + r * N + c, tl.cumsum(x, axis=0))


@triton.jit
def persistent_descriptors(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                           SUBTILE: tl.constexpr, NUM_SMS: tl.constexpr, WS: tl.constexpr):
    dtype = c_ptr.dtype.element_ty
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    if SUBTILE:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN // 2])
    else:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = tl.cdiv(M, BM) * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        offs_am = tile_id // num_pid_n * BM
        offs_bn = tile_id % num_pid_n * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([offs_am, ki * BK])
            b = b_desc.load([offs_bn, ki * BK])
            acc = tl.dot(a, b.T, acc)
        if SUBTILE:
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
            c_desc.store([offs_am, offs_bn], acc0.to(dtype))
            c_desc.store([offs_am, offs_bn + BN // 2], acc1.to(dtype))
        else:
            c_desc.store([offs_am, offs_bn], acc.to(dtype))


@triton.jit
def bias_gelu_matmul(a_ptr, b_ptr, bias_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    acc += tl.load(bias_ptr + rn)[None, :]
    acc = 0.5 * acc * (1 + tl.erf(acc * 0.7071067811865476))
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def bias_matmul(a_ptr, b_ptr, bias_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                INT: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if INT:
        acc = tl.zeros((BM, BN), tl.int32)
    else:
        acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc + tl.load(bias_ptr + rn)[None, :])


@triton.jit
def trans_b_row_sums(a_ptr, b_ptr, out_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((M, N), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.trans(tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :]))
        acc = tl.dot(a, b, acc)
    tl.store(out_ptr + rm, tl.sum(acc, 1))


@triton.jit
def gather_columns_transposed(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    # Columns gathered within warps, then written transposed through shared memory.
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.gather(tl.load(x_ptr + r * N + c), (c * 3 + r * 0) % N, 1)
    tl.store(y_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], tl.trans(x))


@triton.jit
def gather_rows_i64(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    src = tl.load(src_ptr + r * N + c)
    idx = tl.load(idx_ptr + r * N + c)
    tl.store(out_ptr + r * N + c, tl.gather(src, idx, 0))


@triton.jit
def microscaled_matmul(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr):
    # e2m1 operands come two to a byte along K; every 32 elements of K share one e8m0 scale.
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    groups = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * (K // A_PACK) + (k // A_PACK + tl.arange(0, BK // A_PACK))[None, :])
        b = tl.load(b_ptr + (k // B_PACK + tl.arange(0, BK // B_PACK))[:, None] * BN + cols[None, :])
        a_scale = tl.load(a_scale_ptr + rows[:, None] * (K // 32) + (k // 32 + groups)[None, :])
        b_scale = tl.load(b_scale_ptr + cols[:, None] * (K // 32) + (k // 32 + groups)[None, :])
        acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


@triton.jit
def microscaled_tile(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr):
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    groups = tl.arange(0, BK // 32)
    a = tl.load(a_ptr + rows[:, None] * (BK // A_PACK) + tl.arange(0, BK // A_PACK)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BK // B_PACK)[:, None] * BN + cols[None, :])
    a_scale = tl.load(a_scale_ptr + rows[:, None] * (BK // 32) + groups[None, :])
    b_scale = tl.load(b_scale_ptr + cols[:, None] * (BK // 32) + groups[None, :])
    c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], c.to(c_ptr.dtype.element_ty))


@triton.jit
def int4_dequant_matmul(a_ptr, b_ptr, scale_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                        GROUP: tl.constexpr):
    # B holds two signed 4-bit weights a byte along K, each group of GROUP rows sharing a scale.
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * K + (k + tl.arange(0, BK))[None, :])
        packed = tl.load(b_ptr + (k // 2 + tl.arange(0, BK // 2))[:, None] * BN + cols[None, :])
        low = (packed & 0xF).to(tl.int8) - 8
        high = ((packed >> 4) & 0xF).to(tl.int8) - 8
        weights = tl.join(low, high).permute(0, 2, 1).reshape(BK, BN)
        scale = tl.load(scale_ptr + (k // GROUP) * BN + cols)
        acc = tl.dot(a, weights.to(tl.float16) * scale[None, :], acc)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc.to(tl.float16))


@triton.jit
def matmul_row_maximum(a_ptr, b_ptr, c_ptr, max_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        ks = k + tl.arange(0, BK)
        acc = tl.dot(tl.load(a_ptr + rows[:, None] * K + ks[None, :]), tl.load(b_ptr + ks[:, None] * BN + cols[None, :]),
                     acc)
    tl.store(max_ptr + rows, tl.max(acc, 1))
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def dot_to_fp8(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c.to(c_ptr.dtype.element_ty))


@triton.jit
def dequant_matmul(a_ptr, b_ptr, scale_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :]).to(a.dtype)
        acc = tl.dot(a, b, acc)
    acc = acc * tl.load(scale_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def column_max_narrowed(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(z_ptr + tl.arange(0, N), tl.max(x.to(tl.int32), 0).to(z_ptr.dtype.element_ty))


@triton.jit
def boolean_cumsum(x_ptr, y_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(y_ptr + i, tl.cumsum(tl.load(x_ptr + i).to(tl.int32), 0))


@triton.jit
def swapped_pairs(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    a, b = tl.split(tl.reshape(x, (M, N // 2, 2)))
    t = tl.trans(tl.reshape(tl.join(b, a), (M, N)))
    tl.store(y_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], t)


@triton.jit
def permuted_3d(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A)[:, None, None] * B * C + tl.arange(0, B)[None, :, None] * C + tl.arange(0, C)[None, None, :]
    o = tl.arange(0, C)[:, None, None] * A * B + tl.arange(0, A)[None, :, None] * B + tl.arange(0, B)[None, None, :]
    tl.store(y_ptr + o, tl.permute(tl.load(x_ptr + i), (2, 0, 1)))


@triton.jit
def attention_fp8(q_ptr, k_ptr, v_ptr, o_ptr, N, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    m = tl.full((BM,), float("-inf"), tl.float32)
    den = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for n in range(0, N, BN):
        rn = n + tl.arange(0, BN)
        s = tl.dot(q, tl.load(k_ptr + rn[None, :] * D + rd[:, None]))
        new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - new[:, None])
        scale = tl.exp(m - new)
        den = den * scale + tl.sum(p, 1)
        vt = tl.load(v_ptr + rd[:, None] * N + rn[None, :])
        acc = tl.dot(p.to(vt.dtype), tl.trans(vt), acc * scale[:, None])
        m = new
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], (acc / den[:, None]).to(o_ptr.dtype.element_ty))


def _atomic_tile_signature(dtype):
    return {"x_ptr": "*" + dtype, "c_ptr": "*" + dtype, "y_ptr": "*" + dtype, "BM": "constexpr", "BN": "constexpr",
            "KIND": "constexpr"}


def _dequant_signature(activations, weights):
    """`dequant_matmul`'s arguments: activations, weights of another type, f32 scales."""
    return {"a_ptr": "*" + activations, "b_ptr": "*" + weights, "scale_ptr": "*fp32", "c_ptr": "*" + activations,
            "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}


def _microscaled_signature(a_format, b_format, out, loop):
    pointer = {"e2m1": "*u8", "e4m3": "*fp8e4nv", "e5m2": "*fp8e5"}
    signature = {"a_ptr": pointer[a_format], "a_scale_ptr": "*u8", "b_ptr": pointer[b_format],
                 "b_scale_ptr": "*u8", "c_ptr": out}
    if loop:
        signature["K"] = "i32"
    return signature | {name: "constexpr" for name in ["BM", "BN", "BK", "A_FORMAT", "B_FORMAT"]}


def _persistent_descriptors_signature(dtype):
    return {"a_ptr": "*" + dtype, "b_ptr": "*" + dtype, "c_ptr": "*" + dtype, "M": "i32", "N": "i32", "K": "i32",
            "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "SUBTILE": "constexpr", "NUM_SMS": "constexpr",
            "WS": "constexpr"}


def _joined_words_signature(dtype):
    return {"x_ptr": "*" + dtype, "y_ptr": "*" + dtype, "flag": "i32", "M": "constexpr", "N": "constexpr",
            "VEC": "constexpr", "ACROSS": "constexpr", "JOINED": "constexpr"}


def _tile_matmul_signature(ab, c):
    """The signature of a matmul of ``ab`` tiles into ``c`` with runtime sizes ``M``, ``N``, ``K``."""
    return {"a_ptr": "*" + ab, "b_ptr": "*" + ab, "c_ptr": "*" + c, "M": "i32", "N": "i32", "K": "i32",
            "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}


def _unstaged_signature(dtype):
    return {"a_ptr": "*" + dtype, "b_ptr": "*" + dtype, "c_ptr": "*fp32", "bias_ptr": "*fp32", "K": "i32",
            "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "INTEGER": "constexpr"}


_ATTENTION_BACKWARD_SIGNATURE = {
    "q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "do_ptr": "*fp16", "dk_ptr": "*fp16", "dv_ptr": "*fp16",
    "L": "i32", "D": "constexpr", "BM": "constexpr", "BN": "constexpr"}
_ATTENTION_BACKWARD_DIVISIBLE = ["q_ptr", "k_ptr", "v_ptr", "do_ptr", "dk_ptr", "dv_ptr", "L"]

CASES = [
    ("cumsum_1d", cumsum_1d, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"}, {"N": 1024},
     ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("cumsum_2d", cumsum_2d, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    # Scans whose partial stores LLVM folds onto the warp id (the chunk's offset sets every bit of
    # the wave's range above the warps): on CDNA they keep a base of their own, the 64-bit ones
    # alone, the 32-bit ones paired among themselves (a lone one: alone).
    ("cumsum_1d_i64_chunks", cumsum_1d, {"x_ptr": "*i64", "y_ptr": "*i64", "N": "constexpr"},
     {"N": 2048}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("cumsum_1d_i32_chunks", cumsum_1d, {"x_ptr": "*i32", "y_ptr": "*i32", "N": "constexpr"},
     {"N": 4096}, ["x_ptr", "y_ptr"], {"num_warps": 2}),
    # f32 sums of many chunks: on CDNA, with packed f32 arithmetic, the SLP vectoriser loads the
    # partials as vectors of growing width, read by their alignment (`ds_read2_b64`).
    ("cumsum_1d_f32_chunks", cumsum_1d, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"},
     {"N": 4096}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("cumsum_1d_f32_long", cumsum_1d, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"},
     {"N": 8192}, ["x_ptr", "y_ptr"], {"num_warps": 2}),
    ("cumsum_rows_i64_folded", cumsum_rows_i32, {"x_ptr": "*i64", "y_ptr": "*i64", "M": "constexpr", "N": "constexpr"},
     {"M": 4, "N": 1024}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("cumsum_rows_i32", cumsum_rows_i32, {"x_ptr": "*i32", "y_ptr": "*i32", "M": "constexpr", "N": "constexpr"},
     {"M": 16, "N": 512}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("column_sum", column_sum, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("row_argmax", row_argmax, {"x_ptr": "*fp32", "y_ptr": "*i32", "M": "constexpr", "N": "constexpr"},
     {"M": 16, "N": 1024}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("histogram", histogram, {"x_ptr": "*i32", "y_ptr": "*i32", "N": "constexpr", "BINS": "constexpr"},
     {"N": 1024, "BINS": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("causal_attention", causal_attention,
     {"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16", "o_ptr": "*bf16", "D": "constexpr", "BM": "constexpr",
      "BN": "constexpr"},
     {"D": 64, "BM": 64, "BN": 64}, ["q_ptr", "k_ptr", "v_ptr", "o_ptr"], {"num_warps": 4, "num_stages": 2}),
    # More bins than threads: each thread zeroes and reads several (vectors, AMD's pairs).
    ("histogram_wide", histogram, {"x_ptr": "*i32", "y_ptr": "*i32", "N": "constexpr", "BINS": "constexpr"},
     {"N": 4096, "BINS": 1024}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("atomic_scalar", atomic_scalar, {"counter_ptr": "*i32", "out_ptr": "*i32"}, {}, ["counter_ptr", "out_ptr"],
     {"num_warps": 4}),
    ("atomic_tensor", atomic_tensor, {"x_ptr": "*fp32", "out_ptr": "*fp32", "N": "constexpr"}, {"N": 256},
     ["x_ptr", "out_ptr"], {"num_warps": 4}),
    ("gather_rows", gather_rows,
     {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 32}, ["src_ptr", "idx_ptr", "out_ptr"], {"num_warps": 4}),
    ("sort_rows", sort_rows, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 8, "N": 256}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("join_permute", join_permute,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 64}, ["x_ptr", "y_ptr", "out_ptr"], {"num_warps": 4}),
    ("matmul_trans_b", matmul_trans_b,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "stride_am": "i32", "stride_bn": "i32",
      "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, MM_DIV, {"num_warps": 4, "num_stages": 3}),
    ("batched_dot", batched_dot,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "B": "constexpr", "BLOCK_M": "constexpr",
      "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"B": 2, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, MM_DIV, {"num_warps": 8, "num_stages": 4}),
    ("matmul_fp8", matmul_fp8,
     {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", "K": "i32", "stride_am": "i32",
      "stride_bk": "i32", "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
      "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, MM_DIV, {"num_warps": 4, "num_stages": 3}),
    ("pointer_table", pointer_table, {"tbl_ptr": "*i64", "out_ptr": "*i32", "N": "constexpr"}, {"N": 1024},
     ["tbl_ptr", "out_ptr"], {"num_warps": 4}),
    # As a launch from PyTorch specialises them on AMD: every pointer argument addresses less than
    # 2 GiB (``tt.pointer_range = 32``), so loads become buffer loads, and on gfx950 the
    # pipeliner's copies into LDS ``amdg.buffer_load_to_local``.
    ("matmul_trans_b_buffer", matmul_trans_b,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "stride_am": "i32", "stride_bn": "i32",
      "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, MM_DIV,
     {"num_warps": 4, "num_stages": 3, "targets": ["gfx942", "gfx950"], "pointer_range": 32}),
    ("batched_dot_buffer", batched_dot,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "B": "constexpr", "BLOCK_M": "constexpr",
      "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"B": 2, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, MM_DIV,
     {"num_warps": 8, "num_stages": 4, "targets": ["gfx942", "gfx950"], "pointer_range": 32}),
    ("call_reduce", call_reduce, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 128}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("matmul_ws", matmul_ws,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("ws_reductions", ws_reductions, {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 128}, [], {"num_warps": 4, "targets": ["sm90", "sm100", "gfx1250"]}),
    ("ws_captures", ws_captures, {"x_ptr": "*fp32", "out_ptr": "*fp32", "s_ptr": "*fp32", "n": "i32", "N": "constexpr"},
     {"N": 128}, [], {"num_warps": 4, "targets": ["sm90", "sm100", "gfx1250"]}),
    ("ws_captures_aligned", ws_captures_aligned,
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "s_ptr": "*fp32", "n": "i32", "N": "constexpr"},
     {"N": 128}, [], {"num_warps": 4, "targets": ["sm90", "sm100", "gfx1250"]}),
    ("device_descriptors", device_descriptors,
     {"a_ptr": "*fp32", "b_ptr": "*i8", "c_ptr": "*fp16", "d_ptr": "*fp16", "M": "i32", "N": "i32", "P": "i32"},
     {}, ["a_ptr", "b_ptr", "c_ptr", "d_ptr", "M", "N"], {"num_warps": 4, "targets": ["sm90", "sm100"]}),
    ("partitioned_pair", partitioned_pair,
     {"ptr": "*fp32", "out": "*fp32", "M": "constexpr", "N": "constexpr", "SMEM": "constexpr", "L": "constexpr"},
     {"M": 128, "N": 64,
      "SMEM": PartitionedSharedLayout(2, 2, 0, gl.SwizzledSharedLayout(1, 1, 1, [1, 0])),
      "L": gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])},
     [], {"num_warps": 4, "targets": ["gfx1250"]}),
    # Pieces of two rows: the lanes of one access reach both partitions.
    ("partitioned_lanes", partitioned_pair,
     {"ptr": "*fp32", "out": "*fp32", "M": "constexpr", "N": "constexpr", "SMEM": "constexpr", "L": "constexpr"},
     {"M": 64, "N": 32,
      "SMEM": PartitionedSharedLayout(2, 16, 0, gl.SwizzledSharedLayout(1, 1, 1, [1, 0])),
      "L": gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])},
     [], {"num_warps": 4, "targets": ["gfx1250"]}),
    # Halves cut along the columns into four partitions, each piece swizzled.
    ("partitioned_columns", partitioned_pair,
     {"ptr": "*fp16", "out": "*fp16", "M": "constexpr", "N": "constexpr", "SMEM": "constexpr", "L": "constexpr"},
     {"M": 128, "N": 64,
      "SMEM": PartitionedSharedLayout(4, 1, 1, gl.SwizzledSharedLayout(8, 1, 2, [1, 0])),
      "L": gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])},
     [], {"num_warps": 4, "targets": ["gfx1250"]}),
    ("attention_backward", attention_backward, _ATTENTION_BACKWARD_SIGNATURE,
     {"D": 64, "BM": 32, "BN": 64}, _ATTENTION_BACKWARD_DIVISIBLE, {"num_warps": 4, "num_stages": 2}),
    ("persistent_matmul", persistent_matmul,
     dict(_tile_matmul_signature("bf16", "bf16"), SMS="constexpr"),
     {"BM": 128, "BN": 128, "BK": 64, "SMS": 132}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 8, "num_stages": 3}),
    ("splitk_matmul", splitk_matmul, _tile_matmul_signature("fp16", "fp32"),
     {"BM": 64, "BN": 64, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4}),
    ("flip_rows", flip_rows, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("descriptor_matmul", descriptor_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 128, "BN": 64, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4, "num_stages": 3}),
    ("matmul_trans_a", matmul_trans_a,
     {"a_ptr": "*fp8e5", "b_ptr": "*fp8e5", "c_ptr": "*fp16", "M": "constexpr", "N": "constexpr", "K": "constexpr"},
     {"M": 64, "N": 64, "K": 64}, ["a_ptr", "b_ptr", "c_ptr"], {"num_warps": 4}),
    ("ws_loop_matmul", ws_loop_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 128, "BN": 128, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3}),
    ("cluster_matmul", cluster_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 128, "BN": 128, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3, "num_ctas": 2, "targets": ["sm90", "sm100"]}),
    # Two warps: mma.sync, not wgmma, so each CTA reads its operands with ldmatrix; the CTAs split N,
    # and each reads the whole A tile.
    ("cluster_matmul_two_warps", cluster_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 128, "BN": 128, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 2, "num_stages": 3, "num_ctas": 2, "targets": ["sm90", "sm100"]}),
    ("cluster_matmul_4", cluster_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 128, "BN": 256, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 8, "num_stages": 3, "num_ctas": 4, "targets": ["sm90", "sm100"]}),
    ("pipelined_trans_a", pipelined_trans_a, dict(_tile_matmul_signature("bf16", "bf16"), TB="constexpr"),
     {"BM": 128, "BN": 128, "BK": 32, "TB": False}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 2}),
    ("pipelined_trans_a_i8", pipelined_trans_a, dict(_tile_matmul_signature("i8", "i32"), TB="constexpr"),
     {"BM": 64, "BN": 128, "BK": 64, "TB": False}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 8, "num_stages": 3}),
    # fp8 both ways transposed: the dot widens each operand to f16 (`tt.fp_to_fp`), two to a word.
    ("pipelined_trans_fp8", pipelined_trans_a, dict(_tile_matmul_signature("fp8e5", "fp16"), TB="constexpr"),
     {"BM": 32, "BN": 64, "BK": 32, "TB": True}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 8, "num_stages": 2}),
    ("layer_norm_backward", layer_norm_backward,
     {"dx_ptr": "*fp16", "dy_ptr": "*fp16", "dw_ptr": "*fp16", "db_ptr": "*fp16", "x_ptr": "*fp16",
      "w_ptr": "*fp16", "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "lock_ptr": "*i32", "stride": "i32",
      "N": "i32", "GROUP_M": "constexpr", "BLOCK_N": "constexpr"},
     {"GROUP_M": 64, "BLOCK_N": 1024}, ["dx_ptr", "dy_ptr", "dw_ptr", "db_ptr", "x_ptr", "w_ptr", "stride"],
     {"num_warps": 8}),
    ("matmul_ieee", matmul_ieee,
     {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "constexpr", "N": "constexpr", "K": "constexpr"},
     {"M": 64, "N": 64, "K": 32}, ["a_ptr", "b_ptr", "c_ptr"], {"num_warps": 4}),
    ("joined_transpose", joined_transpose,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "flag": "i32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("joined_transpose_i8", joined_transpose,
     {"x_ptr": "*i8", "y_ptr": "*i8", "flag": "i32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("joined_loads", joined_loads,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "flag": "i32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("loop_carried_maximum", loop_carried_maximum,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "n": "i32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("joined_words", joined_words, _joined_words_signature("i8"),
     {"M": 64, "N": 64, "VEC": 2, "ACROSS": False, "JOINED": True}, [],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100", "gfx1250"]}),
    ("joined_words_f16", joined_words, _joined_words_signature("fp16"),
     {"M": 64, "N": 64, "VEC": 4, "ACROSS": True, "JOINED": True}, [],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100", "gfx1250"]}),
    ("scaled_words_f16", joined_words, _joined_words_signature("fp16"),
     {"M": 64, "N": 64, "VEC": 4, "ACROSS": True, "JOINED": False}, [],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100", "gfx1250"]}),
    ("linear_recurrence", linear_recurrence,
     {"a_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 16, "N": 256}, ["a_ptr", "b_ptr", "y_ptr"], {"num_warps": 4}),
    ("clamped_bytes", clamped_bytes, {"x_ptr": "*i8", "y_ptr": "*i8", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("bf16_minimum", bf16_minimum,
     {"x_ptr": "*bf16", "z_ptr": "*bf16", "y_ptr": "*bf16", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "z_ptr", "y_ptr"], {"num_warps": 4}),
    ("half_row_sums", half_row_sums, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("scaled_words_bf16", joined_words, _joined_words_signature("bf16"),
     {"M": 64, "N": 64, "VEC": 2, "ACROSS": True, "JOINED": False}, [],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    ("atomic_repeated_add", atomic_repeated,
     {"x_ptr": "*fp32", "c_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr", "KIND": "constexpr"},
     {"BLOCK": 32, "KIND": 0}, ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("atomic_repeated_max_i64", atomic_repeated,
     {"x_ptr": "*i64", "c_ptr": "*i64", "y_ptr": "*i64", "BLOCK": "constexpr", "KIND": "constexpr"},
     {"BLOCK": 64, "KIND": 1}, ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 8}),
    ("tma_reduce_add", tma_reduce,
     {"a_ptr": "*fp32", "b_ptr": "*fp32", "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr",
      "MAXIMUM": "constexpr"},
     {"BM": 64, "BN": 64, "MAXIMUM": False}, ["a_ptr", "b_ptr", "N"], {"num_warps": 4, "targets": ["sm90", "sm100"]}),
    ("tma_reduce_max_i32", tma_reduce,
     {"a_ptr": "*i32", "b_ptr": "*i32", "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr",
      "MAXIMUM": "constexpr"},
     {"BM": 32, "BN": 128, "MAXIMUM": True}, ["a_ptr", "b_ptr", "N"], {"num_warps": 4, "targets": ["sm90", "sm100"]}),
    ("tma_gather_scatter", tma_gather_scatter,
     {"a_ptr": "*fp32", "b_ptr": "*fp32", "idx_ptr": "*i32", "M": "i32", "N": "i32", "BM": "constexpr",
      "BN": "constexpr", "SCALE": "constexpr"},
     {"BM": 64, "BN": 128, "SCALE": False}, ["a_ptr", "b_ptr", "idx_ptr", "N"],
     {"num_warps": 4, "targets": ["sm100"]}),
    ("tma_gather_scatter_f16", tma_gather_scatter,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "idx_ptr": "*i32", "M": "i32", "N": "i32", "BM": "constexpr",
      "BN": "constexpr", "SCALE": "constexpr"},
     {"BM": 32, "BN": 32, "SCALE": True}, ["a_ptr", "b_ptr", "idx_ptr", "N"],
     {"num_warps": 2, "targets": ["sm100"]}),
    ("atomic_min_masked", atomic_min_masked,
     {"x_ptr": "*fp32", "c_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 256}, ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("causal_stages", causal_stages, _causal_stages_signature("fp16"), {"D": 64, "BM": 64, "BN": 64},
     ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_q", "stride_k", "stride_v", "stride_o", "n_ctx"],
     {"num_warps": 4, "num_stages": 4}),
    ("causal_stages_wide", causal_stages, _causal_stages_signature("bf16"), {"D": 128, "BM": 128, "BN": 64},
     ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_q", "stride_k", "stride_v", "stride_o", "n_ctx"],
     {"num_warps": 8, "num_stages": 3, "targets": ["sm90", "sm100", "gfx942", "gfx950"]}),
    ("reduce_or_select", reduce_or_select,
     {"x_ptr": "*fp32", "z_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr",
      "CONSTANTS": "constexpr"},
     {"M": 64, "N": 64, "CONSTANTS": False}, ["x_ptr", "z_ptr", "y_ptr"],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    ("reduce_or_select_pairs", reduce_or_select,
     {"x_ptr": "*fp32", "z_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr",
      "CONSTANTS": "constexpr"},
     {"M": 32, "N": 256, "CONSTANTS": True}, ["x_ptr", "z_ptr", "y_ptr"],
     {"num_warps": 4, "targets": ["sm89", "sm90", "sm100"]}),
    ("small_matmul_scaled", small_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "stride_cm": "i32", "M": "constexpr",
      "N": "constexpr", "BK": "constexpr", "SCALE": "constexpr", "ACCUMULATE": "constexpr"},
     {"M": 32, "N": 32, "BK": 16, "SCALE": True, "ACCUMULATE": False}, ["a_ptr", "b_ptr", "c_ptr", "K", "stride_cm"],
     {"num_warps": 1, "num_stages": 2}),
    ("small_matmul_accumulate", small_matmul,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "K": "i32", "stride_cm": "i32", "M": "constexpr",
      "N": "constexpr", "BK": "constexpr", "SCALE": "constexpr", "ACCUMULATE": "constexpr"},
     {"M": 32, "N": 32, "BK": 16, "SCALE": False, "ACCUMULATE": True}, ["a_ptr", "b_ptr", "c_ptr", "K", "stride_cm"],
     {"num_warps": 1, "num_stages": 2}),
    # The same over four warps: each thread stores two halves at a time, which sm80 keeps apart
    # (`st.shared.v2.b16`): instcombine folds the narrowing into the loop exit's phi, where the
    # skipped loop's C needs none.
    ("small_matmul_accumulate_four_warps", small_matmul,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "K": "i32", "stride_cm": "i32", "M": "constexpr",
      "N": "constexpr", "BK": "constexpr", "SCALE": "constexpr", "ACCUMULATE": "constexpr"},
     {"M": 32, "N": 32, "BK": 16, "SCALE": False, "ACCUMULATE": True}, ["a_ptr", "b_ptr", "c_ptr", "K", "stride_cm"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    ("small_matmul_i32", small_matmul,
     {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32", "K": "i32", "stride_cm": "i32", "M": "constexpr",
      "N": "constexpr", "BK": "constexpr", "SCALE": "constexpr", "ACCUMULATE": "constexpr"},
     {"M": 32, "N": 32, "BK": 64, "SCALE": False, "ACCUMULATE": False}, ["a_ptr", "b_ptr", "c_ptr", "K", "stride_cm"],
     {"num_warps": 2, "num_stages": 3}),
    ("static_k_matmul", static_k_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "constexpr", "N": "constexpr", "BK": "constexpr",
      "K": "constexpr"},
     {"M": 64, "N": 64, "BK": 32, "K": 128}, ["a_ptr", "b_ptr", "c_ptr"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    ("matmul_f16_acc", matmul_f16_acc,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "M": "constexpr", "N": "constexpr",
      "BK": "constexpr"},
     {"M": 64, "N": 64, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "K"], {"num_warps": 4, "num_stages": 3}),
    ("split_pairs", split_pairs,
     {"x_ptr": "*bf16", "y_ptr": "*bf16", "z_ptr": "*bf16", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 64}, ["x_ptr", "y_ptr", "z_ptr"], {"num_warps": 4}),
    ("scan_partials_i64", scan_partials, {"x_ptr": "*i64", "y_ptr": "*i64", "N": "constexpr", "PROD": "constexpr"},
     {"N": 1024, "PROD": True}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("scan_partials_f16", scan_partials, {"x_ptr": "*fp16", "y_ptr": "*fp16", "N": "constexpr", "PROD": "constexpr"},
     {"N": 2048, "PROD": False}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("scan_partials_bf16", scan_partials, {"x_ptr": "*bf16", "y_ptr": "*bf16", "N": "constexpr", "PROD": "constexpr"},
     {"N": 4096, "PROD": False}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("scan_partials_f32_w8", scan_partials, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr",
     "PROD": "constexpr"}, {"N": 256, "PROD": False}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("scan_partials_f32_w2", scan_partials, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr",
     "PROD": "constexpr"}, {"N": 1024, "PROD": False}, ["x_ptr", "y_ptr"], {"num_warps": 2}),
    ("scan_partials_columns", scan_partials_columns,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr"},
     {"M": 1024, "N": 4}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("persistent_descriptors_subtile", persistent_descriptors, _persistent_descriptors_signature("fp16"),
     {"BM": 128, "BN": 128, "BK": 64, "SUBTILE": True, "NUM_SMS": 132, "WS": False},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("persistent_descriptors_fp8", persistent_descriptors, _persistent_descriptors_signature("fp8e4nv"),
     {"BM": 128, "BN": 128, "BK": 64, "SUBTILE": False, "NUM_SMS": 132, "WS": False},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("persistent_descriptors_fp8_subtile", persistent_descriptors, _persistent_descriptors_signature("fp8e4nv"),
     {"BM": 128, "BN": 256, "BK": 64, "SUBTILE": True, "NUM_SMS": 132, "WS": False},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 8, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("persistent_descriptors_ws", persistent_descriptors, _persistent_descriptors_signature("fp16"),
     {"BM": 128, "BN": 128, "BK": 64, "SUBTILE": False, "NUM_SMS": 132, "WS": True},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4, "num_stages": 3, "targets": ["sm100"]}),
    ("bias_gelu_matmul", bias_gelu_matmul,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "bias_ptr": "*fp32", "c_ptr": "*bf16", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 32}, ["a_ptr", "b_ptr", "bias_ptr", "c_ptr", "K"], {"num_warps": 4, "num_stages": 3}),
    ("gather_rows_i64", gather_rows_i64,
     {"src_ptr": "*fp16", "idx_ptr": "*i64", "out_ptr": "*fp16", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 16}, ["src_ptr", "idx_ptr", "out_ptr"],
     {"num_warps": 8, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    # bf16 rows gathered within warps: AMD shuffles sign-extend each source half to 32 bits, which
    # LLVM folds into the reads (`ds_read_i16`).
    ("gather_rows_bf16", gather_rows,
     {"src_ptr": "*bf16", "idx_ptr": "*i32", "out_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 64}, ["src_ptr", "idx_ptr", "out_ptr"], {"num_warps": 8}),
    # Sums of halves across warps: from sm86 on the vectoriser pairs the combine, and the partials
    # are stored as 32-bit words.
    ("half_row_sums_across_warps", half_row_sums, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr",
     "N": "constexpr"}, {"M": 8, "N": 512}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("half_row_sums_across_warps_bf16", half_row_sums, {"x_ptr": "*bf16", "y_ptr": "*bf16", "M": "constexpr",
     "N": "constexpr"}, {"M": 4, "N": 1024}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    # An argmax of bf16 across warps: from sm86 on the vectoriser pairs the compares, and a warp
    # round's four loaded halves are read as two words.
    ("row_argmax_bf16", row_argmax, {"x_ptr": "*bf16", "y_ptr": "*i32", "M": "constexpr", "N": "constexpr"},
     {"M": 8, "N": 512}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    # bf16 rows joined and permuted: NVPTX keeps halves loaded in vectors in 32-bit registers, and
    # packs the joined pairs into words (`prmt`) before storing them.
    ("join_permute_bf16", join_permute,
     {"x_ptr": "*bf16", "y_ptr": "*bf16", "out_ptr": "*bf16", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 32}, ["x_ptr", "y_ptr", "out_ptr"], {"num_warps": 4}),
    # Two 64-bit indices per thread: NVIDIA reads the vector's bits as 32-bit words.
    ("gather_rows_i64_vectors", gather_rows_i64,
     {"src_ptr": "*fp16", "idx_ptr": "*i64", "out_ptr": "*fp16", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["src_ptr", "idx_ptr", "out_ptr"],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    # A descriptor matmul before TMA: its store's offsets come through `tt.reshape` of a range.
    ("descriptor_matmul_64", descriptor_matmul, _tile_matmul_signature("fp16", "fp16"),
     {"BM": 64, "BN": 64, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm80", "sm89"]}),
    # A bias added to the accumulator, kept as f32, converted to halves, or to integers.
    ("bias_matmul_f32", bias_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp32", "c_ptr": "*fp32", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr", "INT": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 32, "INT": False}, ["a_ptr", "b_ptr", "bias_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("bias_matmul_f16", bias_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp32", "c_ptr": "*fp16", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr", "INT": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 32, "INT": False}, ["a_ptr", "b_ptr", "bias_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    ("bias_matmul_i8", bias_matmul,
     {"a_ptr": "*i8", "b_ptr": "*i8", "bias_ptr": "*fp32", "c_ptr": "*i32", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr", "INT": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 32, "INT": True}, ["a_ptr", "b_ptr", "bias_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "sm100"]}),
    # B loaded as rows of K and transposed in registers: its conversion makes the mma's operand.
    ("trans_b_row_sums", trans_b_row_sums,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp32", "K": "i32", "M": "constexpr", "N": "constexpr",
      "BK": "constexpr"},
     {"M": 32, "N": 16, "BK": 64}, ["a_ptr", "b_ptr", "out_ptr", "K"],
     {"num_warps": 8, "num_stages": 1, "targets": ["sm80", "sm89", "sm90"]}),
    # TMA copies of more than one box: f32 under a 128-byte swizzle takes two messages per 64
    # columns (one warp issues them all), a 128x256 f16 store four, sent by the partition's warps.
    ("matmul_ws_f32_one_warp", matmul_ws,
     {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 1, "num_stages": 3, "targets": ["sm90"]}),
    ("persistent_descriptors_ws_256", persistent_descriptors, _persistent_descriptors_signature("fp16"),
     {"BM": 128, "BN": 256, "BK": 64, "SUBTILE": False, "NUM_SMS": 132, "WS": True},
     ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], {"num_warps": 4, "num_stages": 2, "targets": ["sm100"]}),
    # 64-bit values gathered within warps: shuffled as 32-bit halves, read and stored as words.
    ("gather_columns_i64", gather_columns_transposed,
     {"x_ptr": "*i64", "y_ptr": "*i64", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 32}, ["x_ptr", "y_ptr"], {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    # Microscaled (MX) matmuls, `tl.dot_scaled`: Blackwell keeps e2m1 beside e5m2 padded to a byte
    # each in shared memory (`fp4Padded`, twice the packed bytes); sm90 and earlier upcast the
    # operands in registers (e5m2 to bf16 four bytes to a register: their pairs stay `.v2.b8`).
    ("microscaled_matmul_e5m2_e2m1", microscaled_matmul, _microscaled_signature("e5m2", "e2m1", "*fp32", True),
     {"BM": 128, "BN": 128, "BK": 128, "A_FORMAT": "e5m2", "B_FORMAT": "e2m1"},
     ["a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr", "K"], {"num_warps": 4, "num_stages": 3}),
    # Scales loaded two bytes to a thread and converted as they are: stored as one 16-bit word.
    ("microscaled_tile_e2m1", microscaled_tile, _microscaled_signature("e2m1", "e2m1", "*fp16", False),
     {"BM": 64, "BN": 64, "BK": 128, "A_FORMAT": "e2m1", "B_FORMAT": "e2m1"},
     ["a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"], {"num_warps": 4}),
    # 4-bit weights unpacked and scaled in registers: halves converted from integers one at a time
    # are multiplied one at a time too (`mul.f16`), and stored as halves (`st.shared.v2.b16`).
    ("int4_dequant_matmul", int4_dequant_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*u8", "scale_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr", "GROUP": "constexpr"},
     {"BM": 32, "BN": 128, "BK": 128, "GROUP": 128}, ["a_ptr", "b_ptr", "scale_ptr", "c_ptr", "K"],
     {"num_warps": 8, "num_stages": 2}),
    # An accumulator the K loop may never touch, taken by a row maximum and converted to halves:
    # with two uses the conversion stays after the loop's merge, and sm80 converts in pairs.
    ("matmul_row_maximum", matmul_row_maximum,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "max_ptr": "*fp32", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "max_ptr", "K"],
     {"num_warps": 8, "num_stages": 3}),
    # A product narrowed to fp8 two at a time (`cvt.rn.satfinite.e5m2x2.f32`): its bytes come two to
    # a 16-bit word, and a conversion stores four or eight of them as `.v2.b16` / `.v4.b16`.
    ("dot_to_fp8_wide", dot_to_fp8,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp8e5", "M": "constexpr", "N": "constexpr", "K": "constexpr"},
     {"M": 128, "N": 128, "K": 32}, ["a_ptr", "b_ptr", "c_ptr"],
     {"num_warps": 8, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    ("dot_to_fp8_narrow", dot_to_fp8,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp8e5", "M": "constexpr", "N": "constexpr", "K": "constexpr"},
     {"M": 32, "N": 128, "K": 32}, ["a_ptr", "b_ptr", "c_ptr"],
     {"num_warps": 4, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    # A row maximum of a bf16 accumulator across warps: from sm86 on (before sm100) the vectoriser
    # pairs the combine after each round's load, and LLVM reads each vector of four f32 as two pairs.
    ("matmul_row_maximum_bf16", matmul_row_maximum,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "max_ptr": "*fp32", "K": "i32", "BM": "constexpr",
      "BN": "constexpr", "BK": "constexpr"},
     {"BM": 128, "BN": 64, "BK": 32}, ["a_ptr", "b_ptr", "c_ptr", "max_ptr", "K"],
     {"num_warps": 4, "num_stages": 3}),
    # A microscaled loop of four stages: gfx1250 reads the scales the loop body then refills from
    # registers one request at a time (`ds_load_b32`), pairing them only after the loop.
    ("microscaled_matmul_e4m3_e2m1", microscaled_matmul, _microscaled_signature("e4m3", "e2m1", "*fp32", True),
     {"BM": 64, "BN": 128, "BK": 128, "A_FORMAT": "e4m3", "B_FORMAT": "e2m1"},
     ["a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 4, "targets": ["sm90", "sm100", "gfx950", "gfx1250"]}),
    # Weight-only quantised matmuls: int8 (or e4m3) weights upcast to the activations' type in a
    # pipelined K loop. The upcast operand read before the loop and for the next iteration feeds the
    # loop's phi as plain bytes (`ld.shared.b8`; the one read and used in the same iteration is
    # `ld.shared.s8`); sm80 keeps the loop-carried f16 operand as halves (`ld.shared.v4.b16`).
    ("dequant_matmul_i8", dequant_matmul, _dequant_signature("fp16", "i8"),
     {"BM": 64, "BN": 128, "BK": 64}, ["a_ptr", "b_ptr", "scale_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 3}),
    ("dequant_matmul_e4m3", dequant_matmul, _dequant_signature("bf16", "fp8e4nv"),
     {"BM": 128, "BN": 64, "BK": 32}, ["a_ptr", "b_ptr", "scale_ptr", "c_ptr", "K"],
     {"num_warps": 8, "num_stages": 2, "targets": ["sm89", "sm90", "sm100", "gfx942", "gfx950", "gfx1250"]}),
    # A column maximum of bytes (16-bit integers) widened to i32 and narrowed back: NVIDIA reads the
    # reduced values' conversion to the result's layout as 64-bit words (`ld.shared.b64`).
    ("column_max_bytes", column_max_narrowed,
     {"x_ptr": "*u8", "z_ptr": "*u8", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 256}, ["x_ptr", "z_ptr"], {"num_warps": 8}),
    # Two bytes per thread: NVIDIA stores each pair to global memory as a
    # 16-bit word and reads it so; gfx1250 keeps two pairs to a register.
    ("column_max_bytes_pairs", column_max_narrowed,
     {"x_ptr": "*u8", "z_ptr": "*u8", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 512}, ["x_ptr", "z_ptr"], {"num_warps": 8}),
    ("column_max_i16", column_max_narrowed,
     {"x_ptr": "*i16", "z_ptr": "*i16", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 512}, ["x_ptr", "z_ptr"], {"num_warps": 4}),
    # A cumulative sum of booleans widened to i32: their conversion's loads keep the truncation to
    # `i1`, and NVIDIA reads the bytes apart (`ld.shared.b16` and two `ld.shared.b8` for four).
    ("boolean_cumsum", boolean_cumsum, {"x_ptr": "*i1", "y_ptr": "*i32", "N": "constexpr"},
     {"N": 1024}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    # Pairs of fp8 swapped by split and join, then transposed: AMD keeps the loaded bytes packed
    # through the shuffles and stores every fourth from a register's high half (`ds_write_b8_d16_hi`).
    ("swapped_pairs", swapped_pairs, {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"],
     {"num_warps": 4, "targets": ["sm89", "sm90", "sm100", "gfx942", "gfx950", "gfx1250"]}),
    # A 3-D permute of halves an AMD buffer load read in vectors (`amdg.buffer_load`, its
    # `contiguity`): every second stored from a register's high half.
    ("permuted_3d", permuted_3d, {"x_ptr": "*fp16", "y_ptr": "*fp16", "A": "constexpr", "B": "constexpr",
                                  "C": "constexpr"},
     {"A": 8, "B": 8, "C": 64}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    # Attention on e4m3 (V stored transposed): gfx950 narrows the probabilities to fp8 two at a
    # time into either half of a register, and stores every fourth byte from a high half.
    ("attention_fp8", attention_fp8,
     {"q_ptr": "*fp8e4nv", "k_ptr": "*fp8e4nv", "v_ptr": "*fp8e4nv", "o_ptr": "*fp16", "N": "i32",
      "BM": "constexpr", "BN": "constexpr", "D": "constexpr"},
     {"BM": 64, "BN": 64, "D": 64}, ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "N"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm89", "sm90", "sm100", "gfx942", "gfx950", "gfx1250"]}),
    # A four-stage int8 weight loop with a small tile: gfx942 reads the weights a byte at a time,
    # sign-extended (`ds_read_i8`), where they are upcast in the same iteration.
    ("dequant_matmul_i8_small", dequant_matmul, _dequant_signature("fp16", "i8"),
     {"BM": 32, "BN": 64, "BK": 64}, ["a_ptr", "b_ptr", "scale_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 4}),
    # One stage in shared memory (`num_stages = 2`): on gfx942 the pipeliner keeps one buffer per
    # operand, and LLVM peels the small loop's first trip, a second copy of its accesses.
    ("matmul_trans_b_one_stage", matmul_trans_b,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "K": "i32", "stride_am": "i32", "stride_bn": "i32",
      "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
     {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, MM_DIV, {"num_warps": 4, "num_stages": 2}),
    # A small persistent matmul: the flattened loop carries the tile's rows and columns, which
    # still step by one, so the epilogue's stores are vectors.
    ("persistent_matmul_small", persistent_matmul, dict(_tile_matmul_signature("fp16", "fp16"), SMS="constexpr"),
     {"BM": 64, "BN": 64, "BK": 64, "SMS": 100}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3}),
    ("atomic_tile_add_2d", atomic_tile, _atomic_tile_signature("fp32"), {"BM": 8, "BN": 16, "KIND": 0},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 8}),
    ("atomic_tile_xchg_lanes", atomic_tile, _atomic_tile_signature("i32"), {"BM": 1, "BN": 16, "KIND": 2},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("atomic_tile_cas", atomic_tile, _atomic_tile_signature("i32"), {"BM": 4, "BN": 8, "KIND": 3},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 2}),
    ("atomic_tile_add_f16", atomic_tile, _atomic_tile_signature("fp16"), {"BM": 8, "BN": 8, "KIND": 0},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("atomic_tile_max_i64", atomic_tile, _atomic_tile_signature("i64"), {"BM": 4, "BN": 16, "KIND": 1},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("atomic_tile_xchg_i64_lanes", atomic_tile, _atomic_tile_signature("i64"), {"BM": 2, "BN": 8, "KIND": 2},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 2}),
    ("atomic_tile_xchg_columns", atomic_tile, _atomic_tile_signature("fp32"), {"BM": 32, "BN": 2, "KIND": 2},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 4}),
    ("atomic_tile_max_columns", atomic_tile, _atomic_tile_signature("i32"), {"BM": 16, "BN": 4, "KIND": 1},
     ["x_ptr", "c_ptr", "y_ptr"], {"num_warps": 8}),
    ("cumsum_2d_i64", cumsum_2d, {"x_ptr": "*i64", "y_ptr": "*i64", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 256}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    ("cumsum_2d_i64_narrow", cumsum_2d, {"x_ptr": "*i64", "y_ptr": "*i64", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 16}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("cumsum_rows_i64", cumsum_rows_i32, {"x_ptr": "*i64", "y_ptr": "*i64", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 128}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    # Blackwell, one stage: the K loop carries the MMA's `use_acc` flag (false, then true), and
    # LLVM peels the first trip of a small loop (its operand stores twice) but not of a larger one.
    ("unstaged_matmul_bias_i8", unstaged_matmul_bias, _unstaged_signature("i8"),
     {"BM": 64, "BN": 128, "BK": 32, "INTEGER": True}, ["a_ptr", "b_ptr", "c_ptr", "bias_ptr", "K"],
     {"num_warps": 4, "num_stages": 1, "targets": ["sm90", "sm100"]}),
    ("unstaged_matmul_bias_f16", unstaged_matmul_bias, _unstaged_signature("fp16"),
     {"BM": 128, "BN": 64, "BK": 64, "INTEGER": False}, ["a_ptr", "b_ptr", "c_ptr", "bias_ptr", "K"],
     {"num_warps": 8, "num_stages": 1, "targets": ["sm90", "sm100"]}),
    ("unstaged_matmul_bias_bf16_wide", unstaged_matmul_bias, _unstaged_signature("bf16"),
     {"BM": 128, "BN": 64, "BK": 64, "INTEGER": False}, ["a_ptr", "b_ptr", "c_ptr", "bias_ptr", "K"],
     {"num_warps": 4, "num_stages": 1, "targets": ["sm90", "sm100"]}),
    ("unstaged_matmul_bias_fp8_deep", unstaged_matmul_bias, _unstaged_signature("fp8e4nv"),
     {"BM": 256, "BN": 64, "BK": 128, "INTEGER": False}, ["a_ptr", "b_ptr", "c_ptr", "bias_ptr", "K"],
     {"num_warps": 8, "num_stages": 1, "targets": ["sm100"]}),
    # bf16 down a 2-D tile: gfx942 and gfx950 compute neighbouring chunks two to a register where
    # the warp's scan takes two shuffle steps or more (every second partial stored from the high
    # half), not where it takes one.
    ("cumsum_2d_bf16", cumsum_2d, {"x_ptr": "*bf16", "y_ptr": "*bf16", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4}),
    ("cumsum_2d_bf16_one_step", cumsum_2d, {"x_ptr": "*bf16", "y_ptr": "*bf16", "M": "constexpr", "N": "constexpr"},
     {"M": 32, "N": 256}, ["x_ptr", "y_ptr"], {"num_warps": 8}),
    # An argmax of bf16 with two rows per thread across two warps: after the one shuffle step left,
    # the vectoriser pairs both rows' compares from sm86 on (`setp.gt.bf16x2` on sm90), and the
    # round's two loaded halves are read as one word; sm80 keeps them halves.
    ("paired_rows_argmax_bf16", row_argmax, {"x_ptr": "*bf16", "y_ptr": "*i32", "M": "constexpr",
     "N": "constexpr"}, {"M": 8, "N": 512}, ["x_ptr", "y_ptr"],
     {"num_warps": 8, "targets": ["sm80", "sm89", "sm90", "sm100"]}),
    # 32-bit column reductions whose result only a conversion takes: on sm100 the reduction's
    # conversion to the result's layout loads pairs of words into 64-bit registers, and the next
    # conversion stores them untouched (`ld/st.shared.v2.b64`); sm90 moves words.
    ("column_sum_i32", column_sum, {"x_ptr": "*i32", "y_ptr": "*i32", "M": "constexpr", "N": "constexpr"},
     {"M": 64, "N": 128}, ["x_ptr", "y_ptr"], {"num_warps": 8, "targets": ["sm90", "sm100"]}),
    ("f32_column_max", column_max, {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "constexpr", "N": "constexpr"},
     {"M": 128, "N": 64}, ["x_ptr", "y_ptr"], {"num_warps": 4, "targets": ["sm90", "sm100"]}),
    # 3x3 convolutions as implicit GEMMs, their taps unrolled: where a tap's K loop runs twice,
    # its two stages' buffers are indexed by constants, and gfx942 pairs the weight reads of the
    # two stages (`ds_read2st64_b64`); one trip per tap leaves them single.
    ("conv_implicit_gemm_bf16", conv_implicit_gemm,
     {"x_ptr": "*bf16", "w_ptr": "*bf16", "y_ptr": "*bf16", "H": "i32", "W": "i32", "C": "constexpr",
      "K": "constexpr", "BM": "constexpr", "BK": "constexpr"},
     {"C": 128, "K": 128, "BM": 128, "BK": 64}, ["x_ptr", "w_ptr", "y_ptr"],
     {"num_warps": 8, "num_stages": 3, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
    ("conv_implicit_gemm_fp16", conv_implicit_gemm,
     {"x_ptr": "*fp16", "w_ptr": "*fp16", "y_ptr": "*fp16", "H": "i32", "W": "i32", "C": "constexpr",
      "K": "constexpr", "BM": "constexpr", "BK": "constexpr"},
     {"C": 64, "K": 64, "BM": 64, "BK": 32}, ["x_ptr", "w_ptr", "y_ptr"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
    # A K loop unrolled twice, its remainder a loop that may run no times and starts from the
    # unrolled loop's accumulator: LLVM keeps the narrowing after the merge, so sm80 converts the
    # halves in pairs and stores them as words (a loop from zeros would convert them one at a time).
    ("unrolled_tail_matmul_bf16", unrolled_dot,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "K": "i32", "BM": "constexpr", "BN": "constexpr",
      "BK": "constexpr"}, {"BM": 64, "BN": 64, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "K"],
     {"num_warps": 4, "num_stages": 2, "targets": ["sm80", "sm89", "sm90"]}),
    ("drained_stages_matmul_fp16", drained_stages_matmul,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
      "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
     {"BM": 128, "BN": 128, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
    ("drained_stages_matmul_bf16", drained_stages_matmul,
     {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32", "N": "i32", "K": "i32",
      "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
     {"BM": 64, "BN": 128, "BK": 64}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
    # Attention backward whose Q and dO tiles are stored one after the other into buffers of one
    # layout: gfx942 pairs the two stores' writes (`ds_write2st64_b64`), before the loop and in
    # it; with one buffer each (two pipeline stages) the distance is fixed, with two the loop
    # picks both by one index.
    ("attention_backward_paired_stores", attention_backward, _ATTENTION_BACKWARD_SIGNATURE,
     {"D": 64, "BM": 32, "BN": 32}, _ATTENTION_BACKWARD_DIVISIBLE,
     {"num_warps": 8, "num_stages": 2, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
    ("attention_backward_staged_stores", attention_backward, _ATTENTION_BACKWARD_SIGNATURE,
     {"D": 32, "BM": 32, "BN": 32}, _ATTENTION_BACKWARD_DIVISIBLE,
     {"num_warps": 4, "num_stages": 3, "targets": ["sm90", "gfx942", "gfx950", "gfx1250"]}),
]

HELPERS = [_column_total, _linear_step, _ws_row_sums, _ws_column_sums, _ws_scaled, _ws_copy_scaled, _ws_two_sources,
           _ws_one_source, _causal_blocks]

SECTION = re.compile(r"^// -----// IR Dump Before (\w+)")
LOWERINGS = ("ConvertTritonGPUToLLVM", "ConvertTritonAMDGPUToLLVM")


def sections(log):
    """(pass name, text) of each ``IR Dump Before`` section of a log."""
    out, name, lines = [], None, []
    for line in log.splitlines(keepends=True):
        m = SECTION.match(line)
        if m:
            if name is not None:
                out.append((name, "".join(lines)))
            name, lines = m.group(1), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        out.append((name, "".join(lines)))
    return out


ALLOCATION = re.compile(
    r"allocation\.offset = (\[[^\]]*\]|\d+ : i32)(?:, allocation\.size = (\d+) : i32)?")
OP_NAME = re.compile(r'^\s*(?:%[\w#:,% ]+=\s*)?"?([a-z_]+\.[\w.]+)"?')


def allocations(text):
    """Triton's ``{"op", "offset", "size"}`` of each op with ``allocation.offset``, in order. A
    region op (``tt.reduce``, ``tt.scan``) carries them on its closing line; the op is the one
    that opened the innermost region. A partitioned tensor has one offset per piece
    (``allocation.offset = [0 : i32, 65536 : i32]``): ``offset`` is the first, ``offsets`` all."""
    out, open_ops = [], []
    for line in text.splitlines():
        s = line.strip()
        m = OP_NAME.match(line)
        closes = s.startswith("}")
        if closes and open_ops and not s.startswith("} else") and not s.startswith("} do"):
            op = open_ops.pop()
        elif m:
            op = m.group(1)
        else:
            op = None
        if not closes and (s.endswith("({") or re.search(r"\{\s*(loc\(.*\))?$", s)):
            # A region opener without an op name (``default {``, ``partition0(...) {``) still
            # opens a region its ``}`` closes.
            open_ops.append(m.group(1) if m else None)
        a = ALLOCATION.search(line)
        if a and op:
            offsets = [int(x.split(":")[0]) for x in a.group(1).strip("[]").split(",")]
            entry = {"op": op, "offset": offsets[0], "size": int(a.group(2)) if a.group(2) else None}
            if a.group(1).startswith("["):
                entry["offsets"] = offsets
            out.append(entry)
    return out


count_async_copies = base.count_async_copies


class CapturedStderr:
    """The process's file descriptor 2 (where MLIR prints its dumps) into a file."""

    def __enter__(self):
        self.file = tempfile.TemporaryFile(mode="w+")
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read()
        self.file.close()
        return False


def compile_kernel(fn, sig, constexprs, divisible, target, options):
    """A ``@triton.jit`` kernel through ``gen_ttgir_corpus``; a Gluon kernel through its own
    source (its layouts are constexpr arguments)."""
    pointer_range = options.get("pointer_range")
    options = {k: v for k, v in options.items() if k not in ("targets", "pointer_range")}
    if isinstance(fn, GluonJITFunction):
        src = GluonASTSource(fn, signature=sig, constexprs=constexprs)
        return triton.compile(src, target=target, options=options)
    if pointer_range:
        names = fn.arg_names
        attrs = {(names.index(a),): [["tt.divisibility", 16]] for a in divisible}
        for i, a in enumerate(names):
            if sig.get(a, "").startswith("*"):
                attrs.setdefault((i,), []).append(["tt.pointer_range", pointer_range])
        src = triton.compiler.ASTSource(fn, signature=sig, constexprs=constexprs, attrs=attrs)
        return triton.compile(src, target=target, options=options)
    return base.compile_case(fn, sig, constexprs, divisible, target, options)


def targets_of(options):
    """The (name, GPUTarget) pairs a kernel is compiled for: all six unless it names some."""
    named = options.get("targets")
    if named is None:
        return TARGETS
    every = dict(TARGETS) | EXTRA_TARGETS
    return [(name, every[name]) for name in named]


def report_repository_paths():
    """Kernels and their helpers report this script's repository-relative path, Triton's own
    helpers ``triton/language/<file>.py``."""
    for case in CASES:
        case[1].file_name = SCRIPT_REL
    for helper in HELPERS:
        helper.file_name = SCRIPT_REL
    base._relocate_triton_library_paths()


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    report_repository_paths()
    os.environ["MLIR_ENABLE_DUMP"] = "1"
    # Named kernels are recompiled; the others keep their manifest entries.
    only, manifest_path, kept = base.kept_entries(OUT_DIR)
    manifest = []
    for name, fn, sig, constexprs, div_args, options in CASES:
        if only and name not in only:
            continue
        for tname, target in targets_of(options):
            entry = {"file": None, "kernel": name, "target": tname, "num_warps": options["num_warps"]}
            try:
                with CapturedStderr() as err:
                    divisible = [a for a in div_args if a in fn.arg_names]
                    k = compile_kernel(fn, sig, constexprs, divisible, target, options)
            except Exception as exc:  # recorded, the pair is skipped
                entry["error"] = base._short_error(exc)
                manifest.append(entry)
                print(f"FAIL {name} {tname}: {entry['error'][:200]}", file=sys.stderr)
                continue
            lowered = [text for pass_name, text in sections(err.text) if pass_name in LOWERINGS]
            if not lowered:
                entry["error"] = "no section before the lowering to LLVM"
                manifest.append(entry)
                continue
            stem = f"{name}_{tname}"
            with open(os.path.join(OUT_DIR, stem + ".ttgir"), "w") as f:
                f.write(k.asm["ttgir"])
            with open(os.path.join(OUT_DIR, stem + ".allocated.ttgir"), "w") as f:
                f.write(lowered[-1])
            if (name, tname) in FULL_LOGS:
                with open(os.path.join(OUT_DIR, stem + ".dump.log"), "w") as f:
                    f.write(err.text)
            backend = target.backend
            asm = k.asm["ptx"] if backend == "cuda" else k.asm["amdgcn"]
            entry.update({
                "file": stem + ".ttgir",
                "allocated": stem + ".allocated.ttgir",
                "num_warps": k.metadata.num_warps,
                "shared_bytes": k.metadata.shared,
                "allocations": allocations(lowered[-1]),
            })
            if backend == "hip":
                entry["lds"] = base.count_lds_mnemonics(asm)
            else:
                entry["shared_mnemonics"] = base.count_shared_mnemonics(asm)
                descriptors = base.count_descriptor_mnemonics(asm)
                if descriptors:
                    entry["descriptor_mnemonics"] = descriptors
            entry["async_copies"] = count_async_copies(asm, backend)
            manifest.append(entry)
            print(f"ok   {name} {tname}: shared={k.metadata.shared} {entry['allocations']}")
    order = [c[0] for c in CASES]
    manifest = sorted(kept + manifest, key=lambda e: order.index(e["kernel"]))
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
