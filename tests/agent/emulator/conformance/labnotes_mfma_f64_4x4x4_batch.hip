// expect: CHECKED
// problem: matmul-fp32
// cases: 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp64_4x4x4fp64.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): four 4x4x4 products on one wavefront with
// __builtin_amdgcn_mfma_f64_4x4x4f64. Kept as written: the dim3(4, 4, 4) wavefront (x the row of A
// / column of B, y the batch entry, z the k of A and B and the row of D) and the index arithmetic
// of A, B and D. Adapted: the gfx90a guard dropped; the four batch entries are the 2x2 4x4 tiles of
// an 8x8 tile of C ("batchStride * threadIdx.y" became the tile's offset), a loop over K in steps
// of 4, floats widened to double and the result narrowed, zeros past the edges, solution().
#include <hip/hip_runtime.h>

__global__ void dgemm_4x4xK_batch(const float* A, const float* B, float* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int t = threadIdx.y;
  const int row0 = blockIdx.y * 8 + 4 * (t / 2), col0 = blockIdx.x * 8 + 4 * (t % 2);
  double d = {0};  // zero out 1 * 2 vanilla VGPRs

  for (int k = 0; k < K; k += 4) {
    int a_idx = LDA * threadIdx.x + threadIdx.z + row0 * LDA + k;
    int b_idx = threadIdx.x + LDB * threadIdx.z + col0 + k * LDB;
    const bool in_k = k + (int)threadIdx.z < K;
    const double a = in_k && row0 + (int)threadIdx.x < M ? (double)A[a_idx] : 0.0;
    const double b = in_k && col0 + (int)threadIdx.x < N ? (double)B[b_idx] : 0.0;

    d = __builtin_amdgcn_mfma_f64_4x4x4f64(a, b, d, 0, 0, 0);
  }

  const int d_idx =   threadIdx.x                 // consecutive threads cover 4 consecutive columns
                    + row0 * LDD + col0           // groups of 4 lanes cover a row of each matrix in batch
                    + threadIdx.z * LDD;          // groups of 16 lanes take consecutive rows
  if (row0 + (int)threadIdx.z < M && col0 + (int)threadIdx.x < N) D[d_idx] = (float)d;
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 7) / 8), (unsigned)((M + 7) / 8));
    hipLaunchKernelGGL(dgemm_4x4xK_batch, grid, dim3(4, 4, 4), 0, 0, A, B, C, (int)M, (int)N, (int)K);
}
