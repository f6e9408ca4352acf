// expect: CHECKED
// problem: matmul-fp32
// cases: 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp64_16x16x4fp64.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): __builtin_amdgcn_mfma_f64_16x16x4f64. Kept as
// written: the dim3(16, 4) wavefront, the index arithmetic of A and B (four columns/rows per
// instruction) and of D (register i holds rows 4 i + threadIdx.y: f64's rows go round the lane
// groups, unlike f32's). Adapted: the gfx90a guard dropped (gfx942 has the instruction), float
// inputs widened to double and the result narrowed to float, one 16x16 tile of C per block over
// any M, N, K (zeros past the edges), solution().
#include <hip/hip_runtime.h>

__global__ void dgemm_16x16xK(const float* A, const float* B, float* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  using double4 = __attribute__((__vector_size__(4 * sizeof(double)))) double;
  double4 d = {0};  // zero out 4 * 2 vanilla VGPRs

  int a_idx = LDA * threadIdx.x + threadIdx.y;
  int b_idx = threadIdx.x + LDB * threadIdx.y;
  for (int k = 0; k < K; k += 4) {
    const bool in_k = k + (int)threadIdx.y < K;
    const double a = in_k && row0 + (int)threadIdx.x < M ? (double)A[row0 * LDA + a_idx] : 0.0;
    const double b = in_k && col0 + (int)threadIdx.x < N ? (double)B[col0 + b_idx] : 0.0;

    d = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, d, 0, 0, 0);
    a_idx += 4;       // move four columns to the right
    b_idx += 4 * LDB; // move four rows down
  }

  for (int i = 0; i < 4; ++i) {
    const int d_idx =  threadIdx.x           // consecutive threads cover 16 consecutive columns
                      + 4 * LDD * i          // consecutive registers skip 4 rows
                      + LDD * threadIdx.y;   // groups of 16 lanes cover consecutive rows
    const int row = row0 + 4 * i + (int)threadIdx.y, col = col0 + (int)threadIdx.x;
    if (row < M && col < N) D[row0 * LDD + col0 + d_idx] = (float)d[i];
  }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(dgemm_16x16xK, grid, dim3(16, 4), 0, 0, A, B, C, (int)M, (int)N, (int)K);
}
