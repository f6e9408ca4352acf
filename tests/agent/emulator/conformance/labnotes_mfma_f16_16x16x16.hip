// expect: CHECKED
// problem: gemm-fp16-nn
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_16x16x16fp16.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200; the shape MI300X kernels use most). Kept as written:
// the dim3(16, 4) wavefront, the index arithmetic of a[i], b[i] (groups of 16 lanes skip 4
// columns/rows) and of D. Adapted: the arch guard dropped, one 16x16 tile of C per block over any
// M, N, K (tile offsets, zeros past the edges, a loop over K in steps of 16: the lab note's K is
// 16), half output, solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using float16_t = _Float16;

__global__ void sgemm_16x16xK(const float16_t* A, const float16_t* B, __half* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  using float16x4 = __attribute__((__vector_size__(4 * sizeof(float16_t)))) float16_t;
  using floatx4 = __attribute__((__vector_size__(4 * sizeof(float)))) float;
  floatx4 d = {0};  // zero out 4 vanilla VGPRs

  for (int k = 0; k < K; k += 16) {
    float16x4 a;
    float16x4 b;
    for (int i = 0; i < 4; ++i) {
      const int a_idx =  threadIdx.x * LDA      // consecutive threads cover 16 consecutive rows
                       + i                      // consecutive registers take consecutive columns
                       + threadIdx.y * 4;       // groups of 16 lanes skip 4 columns
      const bool in_k = k + (int)threadIdx.y * 4 + i < K;
      a[i] = in_k && row0 + (int)threadIdx.x < M ? A[row0 * LDA + k + a_idx] : (float16_t)0;

      const int b_idx =  threadIdx.x            // consecutive threads cover 16 consecutive columns
                       + i * LDB                // consecutive registers take consecutive rows
                       + threadIdx.y * LDB * 4; // groups of 16 lanes skip 4 rows
      b[i] = in_k && col0 + (int)threadIdx.x < N ? B[k * LDB + col0 + b_idx] : (float16_t)0;
    }

    d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, d, 0, 0, 0);
  }

  for (int i = 0; i < 4; ++i) {
    const int d_idx =  threadIdx.x            // consecutive threads cover 16 consecutive columns
                     + i * LDD                // consecutive registers take consecutive rows of 16 floats
                     + threadIdx.y * 4 * LDD; // groups of 16 lanes skip 4 rows
    const int row = row0 + i + 4 * (int)threadIdx.y, col = col0 + (int)threadIdx.x;
    if (row < M && col < N) D[row0 * LDD + col0 + d_idx] = __float2half(d[i]);
  }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(sgemm_16x16xK, grid, dim3(16, 4), 0, 0, reinterpret_cast<const float16_t*>(A),
                       reinterpret_cast<const float16_t*>(B), C, (int)M, (int)N, (int)K);
}
