// expect: CHECKED
// problem: gemm-fp16-nt
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/ROCm/rocm-blogs, blogs/software-tools-optimization/matrix-cores-cdna/
// README.md (AMD's ROCm blog "Introduction to Matrix Core Programming on AMD CDNA3 and CDNA4",
// section 5.2): mfma_fp32_16x16x16_fp16. Kept as written: the lane code, i.e. the 8-byte load of
// A's row (threadIdx.x % 16) at column 4 (threadIdx.x / 16), B's column (threadIdx.x % 16) four
// rows at a time, and C's store expression. Adapted: the blog multiplies one 16x16 pair; here each
// block (one wavefront) owns a 16x16 tile of C and stages each 16x16 slice of A and of B (B is
// N x K in this problem: staged transposed, as the blog's K x N row-major) in shared memory, zeros
// past the edges, accumulating across K (the blog zero-initializes c_reg once); solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

using fp16_t = _Float16;
using fp16x4_t = __attribute__((vector_size(4 * sizeof(fp16_t)))) fp16_t;
using fp32x4_t = __attribute__((vector_size(4 * sizeof(float)))) float;

__global__ void gemm_nt_16x16(const fp16_t* Ag, const fp16_t* Bg, __half* Cg, int M, int N, int K) {
    __shared__ __align__(16) fp16_t A[16 * 16];
    __shared__ fp16_t B[16 * 16];
    __shared__ float C[16 * 16];
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;

    fp16x4_t a_reg;
    fp16x4_t b_reg;
    fp32x4_t c_reg {};

    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 256; e += 64) {
            const int r = e / 16, c = e % 16;
            A[e] = row0 + r < M && k0 + c < K ? Ag[(size_t)(row0 + r) * K + k0 + c] : (fp16_t)0;
            B[e] = k0 + r < K && col0 + c < N ? Bg[(size_t)(col0 + c) * K + k0 + r] : (fp16_t)0;  // B[k][n]
        }
        __syncthreads();

        a_reg = *reinterpret_cast<const fp16x4_t*>(A + 4 * (threadIdx.x / 16) + 16 * (threadIdx.x % 16));

        for (int i = 0; i < 4; i++) {
            b_reg[i] = *(B + i * 16 + threadIdx.x % 16 + (threadIdx.x / 16) * 64);
        }

        c_reg = __builtin_amdgcn_mfma_f32_16x16x16f16(a_reg, b_reg, c_reg, 0, 0, 0);
        __syncthreads();
    }

    for (int i = 0; i < 4; i++) {
        *(C + i * 16 + threadIdx.x % 16 + (threadIdx.x / 16) * 64) = c_reg[i];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < 256; e += 64) {
        const int r = e / 16, c = e % 16;
        if (row0 + r < M && col0 + c < N) Cg[(size_t)(row0 + r) * N + col0 + c] = __float2half(C[e]);
    }
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    hipLaunchKernelGGL(gemm_nt_16x16, grid, dim3(64), 0, 0, reinterpret_cast<const fp16_t*>(A),
                       reinterpret_cast<const fp16_t*>(B), C, (int)M, (int)N, (int)K);
}
