// expect: CHECKED
// problem: gemm-fp16-nn
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_32x32x8fp16.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200 and the shape MI300X's fp16 GEMMs use). Kept as
// written: the dim3(32, 2) wavefront, the index arithmetic of a[i], b[i] (groups of 32 lanes skip 4
// columns/rows, 8 per step) and of D. Adapted: the arch guard dropped, one 32x32 tile of C per
// block over any M, N, K (tile offsets, zeros past the edges, K in steps of 8), half output,
// solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using float16_t = _Float16;

__global__ void sgemm_32x32xK(const float16_t* A, const float16_t* B, __half* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  using float16x4 = __attribute__((__vector_size__(4 * sizeof(float16_t)))) float16_t;
  using floatx16 = __attribute__((__vector_size__(16 * sizeof(float)))) float;
  floatx16 d = {0};  // zero out 16 vanilla VGPRs

  for (int k = 0; k * 8 < K; ++k) {
    float16x4 a;
    float16x4 b;
    for (int i = 0; i < 4; ++i) {
      const int a_idx =  threadIdx.x * LDA      // consecutive threads cover 32 consecutive rows
                       + i                      // consecutive registers take consecutive columns
                       + threadIdx.y * 4        // groups of 32 lanes skip 4 columns
                       + k * 8;                 // 8 columns fetched in each iteration
      const bool in_k = k * 8 + (int)threadIdx.y * 4 + i < K;
      a[i] = in_k && row0 + (int)threadIdx.x < M ? A[row0 * LDA + a_idx] : (float16_t)0;

      const int b_idx =  threadIdx.x            // consecutive threads cover 32 consecutive columns
                       + i * LDB                // consecutive registers take consecutive rows
                       + threadIdx.y * 4 * LDB  // groups of 32 lanes skip 4 rows
                       + k * 8 * LDB;           // 8 rows fetched in each iteration
      b[i] = in_k && col0 + (int)threadIdx.x < N ? B[col0 + b_idx] : (float16_t)0;
    }

    d = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, d, 0, 0, 0);
  }

  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      const int d_idx =  threadIdx.x            // consecutive threads cover 32 consecutive columns
                       + i * LDD                // consecutive registers take consecutive rows of 32 floats
                       + threadIdx.y * 4 * LDD  // last 32 lanes skip 4 rows
                       + j * 2 * 4 * LDD;       // blocks of 4 registers cover 8 rows
      const int row = row0 + i + 4 * (int)threadIdx.y + 8 * j, col = col0 + (int)threadIdx.x;
      if (row < M && col < N) D[row0 * LDD + col0 + d_idx] = __float2half(d[i + 4 * j]);
    }
  }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32));
    hipLaunchKernelGGL(sgemm_32x32xK, grid, dim3(32, 2), 0, 0, reinterpret_cast<const float16_t*>(A),
                       reinterpret_cast<const float16_t*>(B), C, (int)M, (int)N, (int)K);
}
