// How many wavefronts one warp's shared-memory access takes when lanes share
// addresses (broadcast) or share banks (conflicts), on an sm90 GPU.
// Each launch is one warp; lane l accesses the byte address XOR of the
// pattern's five lane-bit offsets for the bits set in l, with vectors of 4, 8
// or 16 bytes (ld/st.shared.b32, .v2.b32, .v4.b32), REPS times (ptxas may
// keep fewer: repeated loads of one address merge). Nsight Compute reads the
// wavefronts and instructions of the launch; collect_broadcast.py divides.
// measure_broadcast.sh builds and runs it; broadcast_wavefronts.json is what
// an H100 measured.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

constexpr int REPS = 16;

// Five byte offsets per pattern: lane bit b moves the address by PATTERNS[p][b].
// `W` stands for the access width in bytes.
struct Pattern { const char* name; int scale[5]; int bytes[5]; };
// scale: multiples of the width; bytes: plain byte offsets (added).
constexpr Pattern PATTERNS[] = {
  {"distinct",        {1, 2, 4, 8, 16}, {0, 0, 0, 0, 0}},
  {"all_same",        {0, 0, 0, 0, 0},  {0, 0, 0, 0, 0}},
  {"pairs",           {0, 1, 2, 4, 8},  {0, 0, 0, 0, 0}},
  {"quads",           {0, 0, 1, 2, 4},  {0, 0, 0, 0, 0}},
  {"octets",          {0, 0, 0, 1, 2},  {0, 0, 0, 0, 0}},
  {"halves",          {0, 0, 0, 0, 1},  {0, 0, 0, 0, 0}},
  {"mod2",            {1, 0, 0, 0, 0},  {0, 0, 0, 0, 0}},
  {"mod4",            {1, 2, 0, 0, 0},  {0, 0, 0, 0, 0}},
  {"mod8",            {1, 2, 4, 0, 0},  {0, 0, 0, 0, 0}},
  {"mod16",           {1, 2, 4, 8, 0},  {0, 0, 0, 0, 0}},
  {"low_high_bcast",  {0, 1, 2, 0, 4},  {0, 0, 0, 0, 0}},
  {"rows2",           {0, 0, 0, 0, 0},  {128, 0, 0, 0, 0}},
  {"rows4",           {0, 0, 0, 0, 0},  {128, 256, 0, 0, 0}},
  {"rows8",           {0, 0, 0, 0, 0},  {128, 256, 512, 0, 0}},
  {"quarter_rows",    {0, 0, 0, 0, 0},  {0, 0, 0, 128, 256}},
  {"pair_rows16",     {0, 0, 0, 0, 0},  {0, 128, 256, 512, 1024}},
  {"rows32",          {0, 0, 0, 0, 0},  {128, 256, 512, 1024, 2048}},
  {"mod4_rows",       {1, 2, 0, 0, 0},  {0, 0, 128, 0, 0}},
  {"half_rows",       {1, 2, 4, 8, 0},  {0, 0, 0, 0, 128}},
};
constexpr int NPATTERNS = sizeof(PATTERNS) / sizeof(PATTERNS[0]);

template <int W, bool STORE>
__global__ void access(const int* offsets, int* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  int lane = threadIdx.x;
  uint32_t off = 0;
  for (int b = 0; b < 5; ++b)
    if (lane >> b & 1) off ^= offsets[b];
  uint32_t a = (uint32_t)__cvta_generic_to_shared(smem) + off;
  uint32_t acc = 0;
#pragma unroll
  for (int r = 0; r < REPS; ++r) {
    if constexpr (STORE) {
      if constexpr (W == 4) asm volatile("st.shared.b32 [%0], %1;" :: "r"(a), "r"(r));
      if constexpr (W == 8) asm volatile("st.shared.v2.b32 [%0], {%1, %1};" :: "r"(a), "r"(r));
      if constexpr (W == 16) asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};" :: "r"(a), "r"(r));
    } else {
      uint32_t x, y, z, w;
      if constexpr (W == 4) { asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(a)); acc += x; }
      if constexpr (W == 8) { asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a)); acc += x ^ y; }
      if constexpr (W == 16) {
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
        acc += x ^ y ^ z ^ w;
      }
    }
  }
  out[lane] = acc;
}

template <int W, bool STORE>
void run_all(int* d_offsets, int* d_out) {
  for (int p = 0; p < NPATTERNS; ++p) {
    int offsets[5];
    for (int b = 0; b < 5; ++b) offsets[b] = PATTERNS[p].scale[b] * W + PATTERNS[p].bytes[b];
    cudaMemcpy(d_offsets, offsets, sizeof offsets, cudaMemcpyHostToDevice);
    access<W, STORE><<<1, 32, 16384>>>(d_offsets, d_out);
    cudaDeviceSynchronize();
    printf("%s %d %s %d %d %d %d %d %s\n", STORE ? "store" : "load", W * 8, PATTERNS[p].name,
           offsets[0], offsets[1], offsets[2], offsets[3], offsets[4], cudaGetErrorName(cudaGetLastError()));
  }
}

int main() {
  int *d_offsets, *d_out;
  cudaMalloc(&d_offsets, 64);
  cudaMalloc(&d_out, 32 * 4);
  run_all<4, false>(d_offsets, d_out);
  run_all<8, false>(d_offsets, d_out);
  run_all<16, false>(d_offsets, d_out);
  run_all<4, true>(d_offsets, d_out);
  run_all<8, true>(d_offsets, d_out);
  run_all<16, true>(d_offsets, d_out);
  return 0;
}
