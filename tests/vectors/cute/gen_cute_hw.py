#!/usr/bin/env python3
"""CuTe tiled copies as real kernels, for measuring their shared-memory
wavefronts on a GPU.

Each case is one tiled copy (ldmatrix, stmatrix, cp.async, or a plain
``UniversalCopy`` read or write) of a whole shared tensor in one CuTe layout
(swizzled, padded or plain). The kernel does exactly what a CuTe mainloop
does with it: ``ThrCopy::partition_S/D`` of the shared tensor, a register
fragment of the other side's shape, and ``cute::copy``. Nothing else touches
shared memory on the side that is measured (loads for ldmatrix and reads,
stores for stmatrix, writes and cp.async).

Usage, from the repository root::

    python3 tests/vectors/cute/gen_cute_hw.py OUT_DIR          # writes the kernels
    python3 tests/vectors/cute/gen_cute_hw.py --check OUT_DIR  # and g++ -fsyntax-only them here

``OUT_DIR`` receives ``copies_K.cu`` (one translation unit per chunk, each a
program that launches its cases, one CTA each, in the order given on its
command line) and ``manifest.json`` (the cases). ``measure_cute_hw.sh`` builds
and runs them on the GPU; ``collect_cute_hw.py`` writes ``hw_sm90_copies.json``.
The program is my own: it only calls CuTe's public API. The ``--check`` run
needs the include directories of ``gen_cute_cpp_vectors.py``.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_cute_atoms import atom_cpp, tiled_mma_expr  # noqa: E402
from gen_cute_cpp_vectors import find_includes, layout_expr  # noqa: E402

CHUNKS = 8
VALUE_CPP = {"half_t": ("half_t", 16), "float": ("float", 32)}

# Tiled MMAs whose A/B/C tiles the ldmatrix and stmatrix copies follow.
MMA_F16 = ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", "<32,(8,2,2):(1,16,8),16>")
MMA_F16_PLAIN = ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", None)
MMA_TF32 = ('mma_atom("SM80_16x8x8_F32TF32TF32F32_TN")', "(2,2,1)", None)

# Shared tensors: (layout, swizzles to put over it). Sw<0,M,S> is no swizzle.
K_MAJOR_16 = "(64,64):(64,1)"
M_MAJOR_16 = "(64,64):(1,64)"
PADDED_16 = "(64,64):(72,1)"
ROW_128_16 = "(64,128):(128,1)"
K_MAJOR_32 = "(64,32):(32,1)"
PADDED_32 = "(64,32):(36,1)"
SWIZZLES_16 = [(0, 3, 3), (1, 3, 3), (2, 3, 3), (3, 3, 3), (2, 4, 3), (3, 3, 4)]
SWIZZLES_32 = [(0, 2, 3), (1, 2, 3), (2, 2, 3), (3, 2, 3)]


def copy_atom(op, vt):
    return f'copy_atom("{op}", "{vt}")'


def plain_copy(op, vt, thr, val):
    atom = copy_atom(op, vt)
    return (f"tiled_copy({atom}, cute {thr}, cute {val})",
            f"make_tiled_copy({atom_cpp(atom)}, {layout_expr(thr)}, {layout_expr(val)})")


def mma_copy(operand, op, vt, mma):
    atom = copy_atom(op, vt)
    mma_lay, mma_cpp = tiled_mma_expr(*mma)
    return (f"tiled_copy_{operand}({atom}, {mma_lay})",
            f"make_tiled_copy_{operand.upper()}({atom_cpp(atom)}, {mma_cpp})")


def copies():
    """(copy lay, copy C++, value type, role, shared tensors); role is
    ``load`` (shared -> registers), ``store`` (registers -> shared) or
    ``cp_async`` (global -> shared)."""
    h, f = "half_t", "float"
    out = []

    def add(copy, vt, role, tensors):
        out.append((copy[0], copy[1], vt, role, tensors))

    sw16 = [(K_MAJOR_16, s) for s in SWIZZLES_16] + [(PADDED_16, None)]
    sw16_m = [(M_MAJOR_16, s) for s in SWIZZLES_16]
    sw16_row = [(ROW_128_16, s) for s in SWIZZLES_16]
    sw32 = [(K_MAJOR_32, s) for s in SWIZZLES_32] + [(PADDED_32, None)]
    # ldmatrix: A and B of the f16 MMAs, x4/x2/x1; transposed from M-major tiles.
    for op in ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x1_LDSM_N"):
        add(mma_copy("a", op, h, MMA_F16), h, "load", sw16)
    add(mma_copy("b", "SM75_U32x4_LDSM_N", h, MMA_F16), h, "load", sw16)
    add(mma_copy("a", "SM75_U16x8_LDSM_T", h, MMA_F16), h, "load", sw16_m)
    add(mma_copy("b", "SM75_U16x4_LDSM_T", h, MMA_F16_PLAIN), h, "load", sw16_m)
    add(mma_copy("a", "SM75_U32x4_LDSM_N", f, MMA_TF32), f, "load", sw32)
    # stmatrix: the C tile.
    add(mma_copy("c", "SM90_U32x4_STSM_N", h, MMA_F16), h, "store", sw16_row)
    add(mma_copy("c", "SM90_U32x2_STSM_N", h, MMA_F16_PLAIN), h, "store", sw16_row)
    # cp.async, 16 and 8 bytes per thread; along K and along M.
    add(plain_copy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", h, "(16,8):(8,1)", "(1,8)"), h, "cp_async", sw16)
    add(plain_copy("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", h, "(32,4):(4,1)", "(1,4)"), h, "cp_async", sw16)
    add(plain_copy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", h, "(8,16):(1,8)", "(8,1)"), h, "cp_async", sw16_m)
    add(plain_copy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", f, "(16,8):(8,1)", "(1,4)"), f, "cp_async", sw32)
    # cp.async with threads across rows (conflicted unless swizzled) and 4-byte cp.async.
    add(plain_copy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", h, "(16,8):(1,16)", "(1,8)"), h, "cp_async", sw16)
    add(plain_copy("SM80_CP_ASYNC_CACHEALWAYS<uint32_t>", h, "(8,16):(16,1)", "(1,2)"), h, "cp_async", sw16)
    add(plain_copy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", f, "(32,4):(1,32)", "(1,4)"), f, "cp_async", sw32)
    # Plain reads and writes: vectors of 16, 8, 4 and 2 bytes, threads along
    # the contiguous dim or across it.
    add(plain_copy("UniversalCopy<uint128_t>", h, "(8,16):(16,1)", "(1,8)"), h, "load", sw16_row)
    add(plain_copy("UniversalCopy<uint128_t>", h, "(16,8):(1,16)", "(1,8)"), h, "load", sw16)
    add(plain_copy("UniversalCopy<uint64_t>", h, "(16,8):(8,1)", "(1,4)"), h, "load", sw16)
    add(plain_copy("UniversalCopy<uint32_t>", h, "(8,16):(16,1)", "(1,2)"), h, "load", sw16)
    add(plain_copy("UniversalCopy<uint16_t>", h, "(4,32):(32,1)", "(1,1)"), h, "load", sw16)
    add(plain_copy("UniversalCopy<uint128_t>", h, "(8,16):(16,1)", "(1,8)"), h, "store", sw16_row)
    add(plain_copy("UniversalCopy<uint128_t>", h, "(16,8):(1,16)", "(1,8)"), h, "store", sw16)
    add(plain_copy("UniversalCopy<uint32_t>", h, "(8,16):(16,1)", "(1,2)"), h, "store", sw16)
    add(plain_copy("UniversalCopy<uint128_t>", f, "(16,8):(8,1)", "(1,4)"), f, "load", sw32)
    add(plain_copy("UniversalCopy<uint64_t>", f, "(16,8):(8,1)", "(1,2)"), f, "store", sw32)
    add(plain_copy("UniversalCopy<uint32_t>", f, "(32,4):(1,32)", "(1,1)"), f, "load", sw32)
    return out


def smem_lay(layout, sw):
    return f"cute Sw<{sw[0]},{sw[1]},{sw[2]}> o {layout}" if sw else f"cute {layout}"


def smem_cpp(layout, sw):
    base = layout_expr(layout)
    return f"composition(Swizzle<{sw[0]},{sw[1]},{sw[2]}>{{}}, {base})" if sw else base


def cases():
    out = []
    for copy_lay, copy_cpp, vt, role, tensors in copies():
        for layout, sw in tensors:
            out.append({
                "name": f"case_{len(out):03d}",
                "copy": copy_lay,
                "copy_cpp": copy_cpp,
                "value_type": vt,
                "role": role,
                "smem": smem_lay(layout, sw),
                "smem_cpp": smem_cpp(layout, sw),
                "base": layout,
            })
    return out


PRELUDE = r"""// Generated by tests/vectors/cute/gen_cute_hw.py: CuTe tiled copies of whole
// shared tensors, one kernel per case, one CTA per launch.
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
using namespace cute;

enum Role { Load, Store, CpAsync };

// One tiled copy of the whole shared tensor `smem` (its unswizzled `base`
// lays out the global tensor that cp.async reads), as a mainloop does it.
template <Role R, class T, class Copy, class Smem, class Base>
__device__ void run_copy(Copy tiled, Smem smem_layout, Base base, T const* in, T* out) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  Tensor s = make_tensor(make_smem_ptr(reinterpret_cast<T*>(smem_raw)), smem_layout);
  auto thr = tiled.get_slice(threadIdx.x);
  if constexpr (R == Load) {
    Tensor src = thr.partition_S(s);
    Tensor frag = make_tensor<T>(shape(thr.partition_D(s)));
    copy(tiled, src, frag);
    for (int i = 0; i < size(frag); ++i) out[threadIdx.x * size(frag) + i] = frag(i);
  } else if constexpr (R == Store) {
    Tensor dst = thr.partition_D(s);
    Tensor frag = make_tensor<T>(shape(thr.partition_S(s)));
    for (int i = 0; i < size(frag); ++i) frag(i) = in[threadIdx.x * size(frag) + i];
    copy(tiled, frag, dst);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s(0);  // one load: the stores stay live
  } else {
    Tensor g = make_tensor(make_gmem_ptr(in), base);
    copy(tiled, thr.partition_S(g), thr.partition_D(s));
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s(0);  // one load: the stores stay live
  }
}

struct Launch {
  const char* name;
  void (*kernel)(void const*, void*);
  int threads;
  int smem_bytes;
};
"""

MAIN = r"""
int main(int argc, char** argv) {
  void *in, *out;
  cudaMalloc(&in, 1 << 22);
  cudaMalloc(&out, 1 << 22);
  cudaMemset(in, 0, 1 << 22);
  for (int a = 1; a < argc; ++a) {
    for (Launch const& l : LAUNCHES) {
      if (std::strcmp(l.name, argv[a]) != 0) continue;
      cudaFuncSetAttribute((void const*)l.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, l.smem_bytes);
      void* args[] = {&in, &out};
      cudaError_t e = cudaLaunchKernel((void const*)l.kernel, dim3(1), dim3(l.threads), args, l.smem_bytes, 0);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      std::printf("%s %d %d %s\n", l.name, l.threads, l.smem_bytes, e == cudaSuccess ? "ok" : cudaGetErrorName(e));
      if (e != cudaSuccess) return 1;
    }
  }
  return 0;
}
"""


def translation_unit(chunk):
    lines = [PRELUDE]
    table = []
    for c in chunk:
        t = VALUE_CPP[c["value_type"]][0]
        role = {"load": "Load", "store": "Store", "cp_async": "CpAsync"}[c["role"]]
        n = c["name"]
        lines.append(
            f"__global__ void {n}(void const* in, void* out) {{\n"
            f"  run_copy<{role}, {t}>({c['copy_cpp']}, {c['smem_cpp']}, {layout_expr(c['base'])},\n"
            f"                        static_cast<{t} const*>(in), static_cast<{t}*>(out));\n}}\n"
            f"using {n}_copy = decltype({c['copy_cpp']});\n"
        )
        table.append(
            f'  {{"{n}", {n}, int({n}_copy::TiledNumThr::value), '
            f"int(cosize({layout_expr(c['base'])}) * sizeof({t}))}},"
        )
    lines.append("static Launch const LAUNCHES[] = {\n" + "\n".join(table) + "\n};\n")
    lines.append(MAIN)
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        sys.exit(__doc__)
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    all_cases = cases()
    chunks = [all_cases[k::CHUNKS] for k in range(CHUNKS)]
    for k, chunk in enumerate(chunks):
        for c in chunk:
            c["unit"] = f"copies_{k}"
        with open(os.path.join(out_dir, f"copies_{k}.cu"), "w") as fh:
            fh.write(translation_unit(chunk))
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"cases": all_cases}, fh, indent=1)
    print(f"{len(all_cases)} cases in {CHUNKS} translation units under {out_dir}")
    if check:
        flags = find_includes()
        # What nvcc declares for device code, so g++ can read the kernels.
        stub = os.path.join(out_dir, "host_stub.h")
        with open(stub, "w") as fh:
            fh.write("struct HostThreadIdx { unsigned x, y, z; };\n"
                     "static HostThreadIdx threadIdx;\n"
                     "inline void __syncthreads() {}\n")
        for k in range(CHUNKS):
            src = os.path.join(out_dir, f"copies_{k}.cu")
            cmd = ["g++", "-std=c++17", "-x", "c++", "-fsyntax-only", "-w", "-fmax-errors=20",
                   "-include", "cuda_runtime.h", "-include", stub] + flags + [src]
            r = subprocess.run(cmd, capture_output=True, text=True)
            print(f"copies_{k}.cu: {'ok' if r.returncode == 0 else 'FAILED'}")
            if r.returncode:
                print(r.stderr[:6000])
                sys.exit(1)


if __name__ == "__main__":
    main()
