// expect: CHECKED
// problem: gemm-fp16-nn
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_16x16x4fp16.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): four 16x16 products on one wavefront with
// __builtin_amdgcn_mfma_f32_16x16x4f16. Kept as written: the dim3(16, 4) wavefront (threadIdx.y =
// the batch entry), the index arithmetic of a[i], b[i] (four k per lane, 4 columns per step) and
// of D (d[4b .. 4b + 3] hold matrix b, groups of 16 lanes skip 4 rows). Adapted: the arch guard
// dropped; the four batch entries are the 2x2 16x16 tiles of a 32x32 tile of C ("batchStride *
// threadIdx.y" / "b * batchStrideD" became the tiles' offsets), any K in steps of 4, zeros past the
// edges, half output, solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using float16_t = _Float16;

__device__ inline int tile_offset(int t, int ld) { return 16 * (t / 2) * ld + 16 * (t % 2); }

__global__ void sgemm_16x16xK_batch(const float16_t* A, const float16_t* B, __half* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row_base = blockIdx.y * 32, col_base = blockIdx.x * 32;
  const int t = threadIdx.y, row0 = row_base + 16 * (t / 2), col0 = col_base + 16 * (t % 2);
  using float16x4 = __attribute__((__vector_size__(4 * sizeof(float16_t)))) float16_t;
  using float16 = __attribute__((__vector_size__(16 * sizeof(float)))) float;
  float16 d = {0};  // zero out 16 vanilla VGPRs

  for (int k = 0; k * 4 < K; ++k) {
    float16x4 a;
    float16x4 b;
    for (int i = 0; i < 4; ++i) {
      const int a_idx =  threadIdx.x * LDA          // consecutive threads cover 16 consecutive rows
                       + i                          // consecutive registers take consecutive columns
                       + row0 * LDA                 // the batch entry's tile
                       + k * 4;                     // 4 columns fetched in each iteration
      a[i] = row0 + (int)threadIdx.x < M && k * 4 + i < K ? A[a_idx] : (float16_t)0;

      const int b_idx =  threadIdx.x                // consecutive threads cover 16 consecutive columns
                       + i * LDB                    // consecutive registers take consecutive rows
                       + col0                       // the batch entry's tile
                       + k * 4 * LDB;               // 4 rows fetched in each iteration
      b[i] = col0 + (int)threadIdx.x < N && k * 4 + i < K ? B[b_idx] : (float16_t)0;
    }

    d = __builtin_amdgcn_mfma_f32_16x16x4f16(a, b, d, 0, 0, 0);
  }

  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < 4; ++i) {
      const int d_idx =   threadIdx.x             // consecutive threads cover 16 consecutive columns
                        + i * LDD                 // consecutive registers take consecutive rows of 16 floats
                        + threadIdx.y * 4 * LDD   // groups of 16 lanes skip 4 rows
                        + tile_offset(b, LDD);    // groups of 4 registers cover each matrix in batch
      const int row = row_base + 16 * (b / 2) + i + 4 * (int)threadIdx.y;
      const int col = col_base + 16 * (b % 2) + (int)threadIdx.x;
      if (row < M && col < N) D[row_base * LDD + col_base + d_idx] = __float2half(d[i + b * 4]);
    }
  }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32));
    hipLaunchKernelGGL(sgemm_16x16xK_batch, grid, dim3(16, 4), 0, 0, reinterpret_cast<const float16_t*>(A),
                       reinterpret_cast<const float16_t*>(B), C, (int)M, (int)N, (int)K);
}
