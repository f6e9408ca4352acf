// expect: CHECKED
// problem: matmul-fp32
// cases: 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_32x32x2fp32.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200). Kept as written: the dim3(32, 2) wavefront, the
// index arithmetic of A and B (a_idx = LDA * threadIdx.x + threadIdx.y, b_idx = threadIdx.x + LDB *
// threadIdx.y, two columns/rows per instruction) and of D (d_idx). Adapted: the gfx90a/gfx908 guard
// dropped (gfx942 has the instruction), one 32x32 tile of C per block over any M, N, K (tile
// offsets, zeros past the edges, K in steps of 2), the host code replaced by solution().
#include <hip/hip_runtime.h>

__global__ void sgemm_32x32xK(const float* A, const float* B, float* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  using float16 = __attribute__((__vector_size__(16 * sizeof(float)))) float;
  float16 d = {0};  // zero out 16 vanilla VGPRs

  int a_idx = LDA * threadIdx.x + threadIdx.y;
  int b_idx = threadIdx.x + LDB * threadIdx.y;
  for (int k = 0; k < K; k += 2) {
    const bool in_k = k + (int)threadIdx.y < K;
    const float a = in_k && row0 + (int)threadIdx.x < M ? A[row0 * LDA + a_idx] : 0.0f;
    const float b = in_k && col0 + (int)threadIdx.x < N ? B[col0 + b_idx] : 0.0f;

    d = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, d, 0, 0, 0);
    a_idx += 2;      // move two columns to the right
    b_idx += 2 * LDB; // move two rows down
  }

  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      const int d_idx =  threadIdx.x            // consecutive threads cover 32 consecutive columns
                       + i * LDD                // consecutive registers take consecutive rows of 32 floats
                       + threadIdx.y * 4 * LDD  // last 32 lanes skip 4 rows
                       + j * 2 * 4 * LDD;       // blocks of 4 registers cover 8 rows
      const int row = row0 + i + 4 * (int)threadIdx.y + 8 * j, col = col0 + (int)threadIdx.x;
      if (row < M && col < N) D[row0 * LDD + col0 + d_idx] = d[i + 4 * j];
    }
  }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32));
    sgemm_32x32xK<<<grid, dim3(32, 2)>>>(A, B, C, (int)M, (int)N, (int)K);
}
