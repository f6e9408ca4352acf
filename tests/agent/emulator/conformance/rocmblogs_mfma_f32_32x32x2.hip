// expect: CHECKED
// problem: matmul-fp32
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/ROCm/rocm-blogs, blogs/software-tools-optimization/matrix-cores-cdna/
// README.md (AMD's ROCm blog "Introduction to Matrix Core Programming on AMD CDNA3 and CDNA4",
// section 5.1): mfma_fp32_32x32x2_fp32. Kept as written: the lane code, i.e. A's element at row
// (threadIdx.x % 32), column (threadIdx.x / 32) of a 32x2 slice, B's at row (threadIdx.x / 32),
// column (threadIdx.x % 32) of a 2x32 slice, and C's four store expressions. Adapted: the blog
// multiplies one 32x2 by one 2x32 matrix; here each block (one wavefront) owns a 32x32 tile of C,
// stages each 32x2 slice of A and 2x32 slice of B in shared memory (zeros past the edges) and
// accumulates across K (the blog zero-initializes c_reg once); solution().
#include <hip/hip_runtime.h>

using fp32x16_t = __attribute__((vector_size(16 * sizeof(float)))) float;

__global__ void gemm_32x32(const float* Ag, const float* Bg, float* Cg, int M, int N, int K) {
    __shared__ float A[32 * 2];
    __shared__ float B[2 * 32];
    __shared__ float C[32 * 32];
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    float a_reg;
    float b_reg;
    fp32x16_t c_reg {};

    for (int k0 = 0; k0 < K; k0 += 2) {
        {
            const int e = threadIdx.x, r = e / 2, c = e % 2;
            A[e] = row0 + r < M && k0 + c < K ? Ag[(size_t)(row0 + r) * K + k0 + c] : 0.0f;
            const int kr = e / 32, nc = e % 32;
            B[e] = k0 + kr < K && col0 + nc < N ? Bg[(size_t)(k0 + kr) * N + col0 + nc] : 0.0f;
        }
        __syncthreads();

        const float* ldg_a_ptr = A + threadIdx.x / 32 + 2 * (threadIdx.x % 32);
        const float* ldg_b_ptr = B + threadIdx.x % 32 + (threadIdx.x / 32) * 32;

        a_reg = *ldg_a_ptr;
        b_reg = *ldg_b_ptr;

        c_reg = __builtin_amdgcn_mfma_f32_32x32x2f32(a_reg, b_reg, c_reg, 0, 0, 0);
        __syncthreads();
    }

    for (int i = 0; i < 4; i++) {
        C[threadIdx.x % 32 + (threadIdx.x / 32) * 4 * 32 + i * 32 * 8]          = c_reg[i * 4];
        C[threadIdx.x % 32 + (threadIdx.x / 32) * 4 * 32 + 32 * 1 + i * 32 * 8] = c_reg[i * 4 + 1];
        C[threadIdx.x % 32 + (threadIdx.x / 32) * 4 * 32 + 32 * 2 + i * 32 * 8] = c_reg[i * 4 + 2];
        C[threadIdx.x % 32 + (threadIdx.x / 32) * 4 * 32 + 32 * 3 + i * 32 * 8] = c_reg[i * 4 + 3];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < 32 * 32; e += 64) {
        const int r = e / 32, c = e % 32;
        if (row0 + r < M && col0 + c < N) Cg[(size_t)(row0 + r) * N + col0 + c] = C[e];
    }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32));
    hipLaunchKernelGGL(gemm_32x32, grid, dim3(64), 0, 0, A, B, C, (int)M, (int)N, (int)K);
}
