// expect: CHECKED
// problem: gemm-fp16-nn
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_4x4x4fp16.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): sixteen 4x4x4 products on one wavefront with
// __builtin_amdgcn_mfma_f32_4x4x4f16. Kept as written: the dim3(4, 16) wavefront, the index
// arithmetic of a[i], b[i] (lane x of batch y holds row x of A and column x of B, four k each) and
// of D (d[i] is row i). Adapted: the arch guard dropped; the sixteen batch entries are the 4x4
// tiles of a 16x16 tile of C ("batchStride * threadIdx.y" became the tile's offset), a loop over
// K in steps of 4 (the lab note's K is 4), zeros past the edges, half output, solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using float16_t = _Float16;

__global__ void sgemm_4x4xK_batch(const float16_t* A, const float16_t* B, __half* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int t = threadIdx.y;
  const int row0 = blockIdx.y * 16 + 4 * (t / 4), col0 = blockIdx.x * 16 + 4 * (t % 4);
  const int tileA = row0 * LDA, tileB = col0, tileD = row0 * LDD + col0;
  using float16x4 = __attribute__((__vector_size__(4 * sizeof(float16_t)))) float16_t;
  using floatx4 = __attribute__((__vector_size__(4 * sizeof(float)))) float;
  floatx4 d = {0};  // zero out 4 vanilla VGPRs

  for (int k = 0; k < K; k += 4) {
    float16x4 a;
    float16x4 b;
    for (int i = 0; i < 4; ++i) {
      const int a_idx =  threadIdx.x * LDA   // consecutive threads cover consecutive rows
                       + i                   // consecutive registers take consecutive columns
                       + tileA + k;          // the tile, 4 columns per step
      a[i] = row0 + (int)threadIdx.x < M && k + i < K ? A[a_idx] : (float16_t)0;

      const int b_idx =  threadIdx.x         // consecutive threads cover consecutive columns
                       + i * LDB             // consecutive registers take consecutive rows
                       + tileB + k * LDB;
      b[i] = col0 + (int)threadIdx.x < N && k + i < K ? B[b_idx] : (float16_t)0;
    }
    d = __builtin_amdgcn_mfma_f32_4x4x4f16(a, b, d, 0, 0, 0);
  }

  for (int i = 0; i < 4; ++i) {
    const int d_idx =   threadIdx.x   // consecutive threads cover 4 consecutive columns
                      + i * LDD       // consecutive registers take consecutive rows
                      + tileD;        // groups of 4 lanes cover each matrix in batch
    if (row0 + i < M && col0 + (int)threadIdx.x < N) D[d_idx] = __float2half(d[i]);
  }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(sgemm_4x4xK_batch, grid, dim3(4, 16), 0, 0, reinterpret_cast<const float16_t*>(A),
                       reinterpret_cast<const float16_t*>(B), C, (int)M, (int)N, (int)K);
}
