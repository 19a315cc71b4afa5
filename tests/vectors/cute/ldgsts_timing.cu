// tests/vectors/cute/ldgsts_timing.json is what this printed on an H100.
// Does cp.async's write into shared memory pay for bank conflicts? One CTA of
// 8 warps; each lane issues ROUNDS x 16 cp.async of WIDTH bytes from a small
// global buffer (L1-resident for .ca) into shared memory at a pattern's
// address, waits, and the CTA's clock64 span is reported. Same for st.shared.
#include <cstdio>
#include <cuda_runtime.h>
#include <cstdint>

template <int WIDTH, bool CA>
__device__ __forceinline__ void cp_async(uint32_t smem, const void* gmem) {
  if constexpr (CA) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" :: "r"(smem), "l"(gmem), "n"(WIDTH));
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" :: "r"(smem), "l"(gmem), "n"(WIDTH));
  }
}

// Byte address of lane `lane`'s `k`-th request in a warp's 16 KiB region.
__device__ __forceinline__ uint32_t pattern(int p, int lane, int k, int width) {
  switch (p) {
    case 0: return (k * 32 + lane) * width;                 // contiguous: conflict-free
    case 1: return (lane * 128 + k * width) % 16384;         // lanes 128 B apart: same banks
    case 2: return (lane * 128 + ((lane & 7) ^ (k & 7)) * 16 + (k / 8) * 4096) % 16384;  // swizzled rows
    default: return 0;
  }
}

template <int WIDTH, bool CA, bool ASYNC>
__global__ void run(const uint4* g, unsigned long long* out, int p, int rounds) {
  extern __shared__ __align__(16) unsigned char smem[];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem) + warp * 16384;
  const unsigned char* src = reinterpret_cast<const unsigned char*>(g) + threadIdx.x * 16;
  __syncthreads();
  unsigned long long t0 = clock64();
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      uint32_t a = base + pattern(p, lane, k, WIDTH);
      if constexpr (ASYNC) {
        cp_async<WIDTH, CA>(a, src);
      } else {
        asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" :: "r"(a), "r"(r));
      }
    }
    if constexpr (ASYNC) asm volatile("cp.async.wait_all;\n" ::);
  }
  __syncthreads();
  unsigned long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = t1 - t0;
}

template <int WIDTH, bool CA, bool ASYNC>
void measure(const char* name, const uint4* g, unsigned long long* out) {
  auto k = run<WIDTH, CA, ASYNC>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 16384);
  for (int p = 0; p < 3; ++p) {
    unsigned long long best = ~0ull;
    for (int rep = 0; rep < 5; ++rep) {
      k<<<1, 256, 8 * 16384>>>(g, out, p, 64);
      unsigned long long c;
      cudaMemcpy(&c, out, 8, cudaMemcpyDeviceToHost);
      if (c < best) best = c;
    }
    printf("%s pattern %d: %llu cycles (%s)\n", name, p, best, cudaGetErrorName(cudaGetLastError()));
  }
}

int main() {
  uint4* g; unsigned long long* out;
  cudaMalloc(&g, 1 << 20); cudaMalloc(&out, 64); cudaMemset(g, 1, 1 << 20);
  measure<16, false, true>("cp.async.cg 16B", g, out);
  measure<16, true, true>("cp.async.ca 16B", g, out);
  measure<8, true, true>("cp.async.ca 8B", g, out);
  measure<4, true, true>("cp.async.ca 4B", g, out);
  measure<16, false, false>("st.shared.v4 16B", g, out);
  return 0;
}
