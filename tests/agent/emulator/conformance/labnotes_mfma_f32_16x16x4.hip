// expect: CHECKED
// problem: matmul-fp32
// cases: 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_16x16x4fp32.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200). Kept as written: the dim3(16, 4) wavefront, the
// index arithmetic of A and B (four columns/rows per instruction) and of D. Adapted: the arch guard
// dropped (gfx942 has the instruction), one 16x16 tile of C per block over any M, N, K (tile
// offsets, zeros past the edges, K in steps of 4), the host code replaced by solution().
#include <hip/hip_runtime.h>

__global__ void sgemm_16x16xK(const float* A, const float* B, float* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  using float4 = __attribute__((__vector_size__(4 * sizeof(float)))) float;
  float4 d = {0};  // zero out 4 vanilla VGPRs

  int a_idx = LDA * threadIdx.x + threadIdx.y;
  int b_idx = threadIdx.x + LDB * threadIdx.y;
  for (int k = 0; k < K; k += 4) {
    const bool in_k = k + (int)threadIdx.y < K;
    float a = in_k && row0 + (int)threadIdx.x < M ? A[row0 * LDA + a_idx] : 0.0f;
    float b = in_k && col0 + (int)threadIdx.x < N ? B[col0 + b_idx] : 0.0f;

    d = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, d, 0, 0, 0);
    a_idx += 4;       // move four columns to the right
    b_idx += 4 * LDB; // move four rows down
  }

  for (int i = 0; i < 4; ++i) {
    const int d_idx =  threadIdx.x            // consecutive threads cover 16 consecutive columns
                     + i * LDD                // consecutive registers take consecutive rows of 16 floats
                     + threadIdx.y * 4 * LDD; // groups of 16 lanes skip 4 rows
    const int row = row0 + i + 4 * (int)threadIdx.y, col = col0 + (int)threadIdx.x;
    if (row < M && col < N) D[row0 * LDD + col0 + d_idx] = d[i];
  }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(sgemm_16x16xK, grid, dim3(16, 4), 0, 0, A, B, C, (int)M, (int)N, (int)K);
}
