// expect: CHECKED
// problem: gemm-batched-bf16
// cases: 1x1x1x1, 3x7x5x3, 4x33x40x17, 2x127x129x65
// Provenance: github.com/amd/amd-lab-notes, matrix-cores/src/mfma_fp32_32x32x1fp32.cpp (AMD's "AMD
// matrix cores" lab note, run by AMD on MI200): a batch of two 32x32 products on one wavefront with
// __builtin_amdgcn_mfma_f32_32x32x1f32. Kept as written: the dim3(32, 2) wavefront (threadIdx.y =
// the batch), the index arithmetic of A, B (one column/row of each matrix per instruction) and D
// (d[0:15] the first matrix, d[16:31] the second). Adapted: the arch guard dropped, bf16 inputs
// widened to float, one 32x32 tile of two consecutive batch entries per block over any M, N, K
// (zeros past the edges and past the last batch entry), the host code replaced by solution().
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

__global__ void sgemm_32x32xK_batch(const __hip_bfloat16* A, const __hip_bfloat16* B, __hip_bfloat16* D,
                                    int batch, int M, int N, int K) {
  const int LDA = K, LDB = N, LDD = N;
  const int batchStrideA = M * LDA, batchStrideB = K * LDB, batchStrideD = M * LDD;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32, b0 = blockIdx.z * 2;
  const bool in_batch = b0 + (int)threadIdx.y < batch;
  using float32 = __attribute__((__vector_size__(32 * sizeof(float)))) float;
  float32 d = {0};  // zero out 32 vanilla VGPRs

  int a_idx = LDA * threadIdx.x + batchStrideA * threadIdx.y;
  int b_idx = threadIdx.x + batchStrideB * threadIdx.y;
  for (int i = 0; i < K; ++i) {
    const float a = in_batch && row0 + (int)threadIdx.x < M ? __bfloat162float(A[b0 * batchStrideA + row0 * LDA + a_idx]) : 0.0f;
    const float b = in_batch && col0 + (int)threadIdx.x < N ? __bfloat162float(B[b0 * batchStrideB + col0 + b_idx]) : 0.0f;

    d = __builtin_amdgcn_mfma_f32_32x32x1f32(a, b, d, 0, 0, 0);
    a_idx += 1;   // move one column to the right
    b_idx += LDB; // move one row down
  }

  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) {
        const int d_idx =  threadIdx.x            // consecutive threads cover 32 consecutive columns
                         + i * LDD                // consecutive registers take consecutive rows of 32 floats
                         + threadIdx.y * 4 * LDD  // last 32 lanes skip 4 rows
                         + j * 2 * 4 * LDD        // blocks of 4 registers cover 8 rows
                         + b * batchStrideD;      // groups of 16 registers cover each matrix in batch
        const int row = row0 + i + 4 * (int)threadIdx.y + 8 * j, col = col0 + (int)threadIdx.x;
        if (b0 + b < batch && row < M && col < N)
          D[b0 * batchStrideD + row0 * LDD + col0 + d_idx] = __float2bfloat16(d[i + 4 * j + 16 * b]);
      }
    }
  }
}

extern "C" void solution(const __hip_bfloat16* A, const __hip_bfloat16* B, __hip_bfloat16* C, size_t batch, size_t M,
                         size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32), (unsigned)((batch + 1) / 2));
    hipLaunchKernelGGL(sgemm_32x32xK_batch, grid, dim3(32, 2), 0, 0, A, B, C, (int)batch, (int)M, (int)N, (int)K);
}
