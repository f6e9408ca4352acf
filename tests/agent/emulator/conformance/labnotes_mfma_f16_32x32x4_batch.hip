// expect: CHECKED
// problem: gemm-fp16-nn
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_32x32x4fp16.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): two 32x32 products on one wavefront with
// __builtin_amdgcn_mfma_f32_32x32x4f16. Kept as written: the dim3(32, 2) wavefront (threadIdx.y =
// the batch entry), the index arithmetic of a[i], b[i] (four k per lane, 4 per step) and of D
// (d[0:15] the first matrix, d[16:31] the second). Adapted: the arch guard dropped; the two batch
// entries are two side-by-side 32x32 tiles of C (the same rows of A, B's columns 32 apart:
// "threadIdx.y * batchStride" / "b * batchStrideD" became those tiles' offsets), any K in steps of
// 4, zeros past the edges, half output, solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using float16_t = _Float16;

__global__ void sgemm_32x32xK_batch(const float16_t* A, const float16_t* B, __half* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 32, col_base = blockIdx.x * 64;
  const int col0 = col_base + 32 * (int)threadIdx.y;  // this lane's batch entry
  using float16x4 = __attribute__((__vector_size__(4 * sizeof(float16_t)))) float16_t;
  using floatx32 = __attribute__((__vector_size__(32 * sizeof(float)))) float;
  floatx32 d = {0};  // zero out 32 vanilla VGPRs

  for (int k = 0; k * 4 < K; ++k) {
    float16x4 a;
    float16x4 b;
    for (int i = 0; i < 4; ++i) {
      const int a_idx =  threadIdx.x * LDA          // consecutive threads cover 32 consecutive rows
                       + i                          // consecutive registers take consecutive columns
                       + row0 * LDA                 // both batch entries read the same rows of A
                       + k * 4;                     // 4 columns fetched in each iteration
      a[i] = row0 + (int)threadIdx.x < M && k * 4 + i < K ? A[a_idx] : (float16_t)0;

      const int b_idx =  threadIdx.x                // consecutive threads cover 32 consecutive columns
                       + i * LDB                    // consecutive registers take consecutive rows
                       + col0                       // the batch entry's columns
                       + k * 4 * LDB;               // 4 rows fetched in each iteration
      b[i] = col0 + (int)threadIdx.x < N && k * 4 + i < K ? B[b_idx] : (float16_t)0;
    }

    d = __builtin_amdgcn_mfma_f32_32x32x4f16(a, b, d, 0, 0, 0);
  }

  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) {
        const int d_idx =  threadIdx.x            // consecutive threads cover 32 consecutive columns
                         + i * LDD                // consecutive registers take consecutive rows of 32 floats
                         + threadIdx.y * 4 * LDD  // last 32 lanes skip 4 rows
                         + j * 2 * 4 * LDD        // blocks of 4 registers cover 8 rows
                         + b * 32;                // groups of 16 registers cover each matrix in batch
        const int row = row0 + i + 4 * (int)threadIdx.y + 8 * j, col = col_base + 32 * b + (int)threadIdx.x;
        if (row < M && col < N) D[row0 * LDD + col_base + d_idx] = __float2half(d[i + 4 * j + 16 * b]);
      }
    }
  }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 63) / 64), (unsigned)((M + 31) / 32));
    hipLaunchKernelGGL(sgemm_32x32xK_batch, grid, dim3(32, 2), 0, 0, reinterpret_cast<const float16_t*>(A),
                       reinterpret_cast<const float16_t*>(B), C, (int)M, (int)N, (int)K);
}
