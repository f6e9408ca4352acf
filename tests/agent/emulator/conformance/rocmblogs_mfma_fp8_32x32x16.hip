// expect: CHECKED
// problem: gemm-fp8
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/ROCm/rocm-blogs, blogs/software-tools-optimization/matrix-cores-cdna/
// README.md (AMD's ROCm blog "Introduction to Matrix Core Programming on AMD CDNA3 and CDNA4",
// section 5.3, a CDNA3 (MI300-series) example): mfma_fp32_32x32x16_fp8_fp8. Kept as written: the
// lane code, i.e. the 8-byte load of A's row (threadIdx.x % 32) at column 8 (threadIdx.x / 32), B's
// column loaded a byte at a time, the (long) casts of the fp8x8 registers and C's store expressions.
// Adapted: the blog multiplies one 32x16 A by one 16x32 B; here each block (one wavefront) owns a
// 32x32 tile of C, stages each 32x16 slice of A and 16x32 slice of B in shared memory in the blog's
// row-major layout (zeros past the edges), runs the blog's lane code on them and accumulates (the
// blog zero-initializes c_reg once); C goes through shared memory to the output; solution().
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

using fp8_t = __hip_fp8_storage_t;
using fp8x8_t = __attribute__((vector_size(8 * sizeof(fp8_t)))) fp8_t;
using fp32x16_t = __attribute__((vector_size(16 * sizeof(float)))) float;

__global__ void gemm_fp8_32x32(const fp8_t* Ag, const fp8_t* Bg, float* Cg, int M, int N, int K) {
    __shared__ __align__(16) fp8_t A[32 * 16];
    __shared__ fp8_t B[16 * 32];
    __shared__ float C[32 * 32];
    const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    fp8x8_t a_reg;
    fp8x8_t b_reg;
    fp32x16_t c_reg {};

    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 32 * 16; e += 64) {
            const int r = e / 16, c = e % 16;
            A[e] = row0 + r < M && k0 + c < K ? Ag[(size_t)(row0 + r) * K + k0 + c] : (fp8_t)0;
            const int kr = e / 32, nc = e % 32;
            B[e] = k0 + kr < K && col0 + nc < N ? Bg[(size_t)(k0 + kr) * N + col0 + nc] : (fp8_t)0;
        }
        __syncthreads();

        a_reg = *reinterpret_cast<const fp8x8_t*>(A + (threadIdx.x / 32) * 8 + (threadIdx.x % 32) * 16);

        for (int i = 0; i < 8; i++) {
            b_reg[i] = *(B + i * 32 + threadIdx.x % 32 + (threadIdx.x / 32) * 8 * 32);
        }

        c_reg = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8((long)a_reg, (long)b_reg, c_reg, 0, 0, 0);
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

extern "C" void solution(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, float* C, size_t M, size_t N,
                         size_t K) {
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 31) / 32));
    hipLaunchKernelGGL(gemm_fp8_32x32, grid, dim3(64), 0, 0, reinterpret_cast<const fp8_t*>(A),
                       reinterpret_cast<const fp8_t*>(B), C, (int)M, (int)N, (int)K);
}
