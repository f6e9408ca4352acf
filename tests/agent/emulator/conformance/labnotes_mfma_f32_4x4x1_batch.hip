// expect: CHECKED
// problem: matmul-fp32
// cases: 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_4x4x1fp32.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): a batch of sixteen 4x4 products on one wavefront
// with __builtin_amdgcn_mfma_f32_4x4x1f32. Kept as written: the dim3(4, 16) wavefront (threadIdx.y
// = the batch entry), the index arithmetic of A, B (one column/row per instruction) and D (d[i] is
// row i, groups of 4 lanes one matrix each). Adapted: the arch guard dropped; the sixteen batch
// entries are the sixteen 4x4 tiles of a 16x16 tile of C (batch entry t at tile row t / 4, tile
// column t % 4: "batchStride * threadIdx.y" became that tile's offset), any M, N, K with zeros past
// the edges, the host code replaced by solution().
#include <hip/hip_runtime.h>

__global__ void sgemm_4x4xK_batch(const float* A, const float* B, float* D, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int t = threadIdx.y;  // the batch entry: a 4x4 tile of this block's 16x16 tile of C
  const int row0 = blockIdx.y * 16 + 4 * (t / 4), col0 = blockIdx.x * 16 + 4 * (t % 4);
  const int tileA = row0 * LDA, tileB = col0, tileD = row0 * LDD + col0;
  using float4 = __attribute__((__vector_size__(4 * sizeof(float)))) float;
  float4 d = {0};  // zero out 4 vanilla VGPRs

  int a_idx = LDA * threadIdx.x + tileA;
  int b_idx = threadIdx.x + tileB;
  for (int i = 0; i < K; ++i) {
    const float a = row0 + (int)threadIdx.x < M ? A[a_idx] : 0.0f;
    const float b = col0 + (int)threadIdx.x < N ? B[b_idx] : 0.0f;

    d = __builtin_amdgcn_mfma_f32_4x4x1f32(a, b, d, 0, 0, 0);
    a_idx += 1;   // move one column to the right
    b_idx += LDB; // move one row down
  }

  for (int i = 0; i < 4; ++i) {
    const int d_idx =   threadIdx.x   // consecutive threads cover 4 consecutive columns
                      + i * LDD       // consecutive registers take consecutive rows
                      + tileD;        // groups of 4 lanes cover each matrix in batch
    if (row0 + i < M && col0 + (int)threadIdx.x < N) D[d_idx] = d[i];
  }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(sgemm_4x4xK_batch, grid, dim3(4, 16), 0, 0, A, B, C, (int)M, (int)N, (int)K);
}
