// expect: WRONG_ANSWER: C[
// problem: gemm-fp8
// cases: 64x64x64
// The fp8 MFMA GEMM with its A and B operand registers swapped: the instruction multiplies the
// wrong tiles (it computes the transpose of the product), as it would on MI300X.
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

#include <cstring>

// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8: each wavefront computes a 32x32 tile of C, four
// wavefronts per 64x64 block. Lane l holds eight fp8 values of A row l % 32 (k = 8 (l / 32) + e) and
// of B column l % 32 in a 64-bit register, and C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in register r.
typedef float floatx16 __attribute__((ext_vector_type(16)));

__device__ inline unsigned char byte(const __hip_fp8_e4m3_fnuz* p, size_t r, size_t c, size_t rows, size_t cols) {
    return r < rows && c < cols ? p[r * cols + c].__x : (unsigned char)0;
}

__global__ void __launch_bounds__(256) gemm(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, float* C,
                                            size_t M, size_t N, size_t K) {
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
    const size_t row0 = blockIdx.y * 64 + (wave / 2) * 32, col0 = blockIdx.x * 64 + (wave % 2) * 32;
    const int i = lane % 32, half = lane / 32;
    floatx16 acc = {};
    for (size_t k0 = 0; k0 < K; k0 += 16) {
        unsigned char a[8], b[8];
        for (int e = 0; e < 8; ++e) {
            const size_t k = k0 + 8 * half + e;
            a[e] = byte(A, row0 + i, k, M, K);
            b[e] = byte(B, k, col0 + i, K, N);
        }
        long ra, rb;
        memcpy(&ra, a, 8);
        memcpy(&rb, b, 8);
        acc = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(rb, ra, acc, 0, 0, 0);
    }
    for (int r = 0; r < 16; ++r) {
        const size_t row = row0 + 8 * (r / 4) + 4 * half + r % 4, col = col0 + i;
        if (row < M && col < N) C[row * N + col] = acc[r];
    }
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, float* C, size_t M, size_t N,
                         size_t K) {
    const dim3 grid((unsigned)((N + 63) / 64), (unsigned)((M + 63) / 64));
    hipLaunchKernelGGL(gemm, grid, dim3(256), 0, 0, A, B, C, M, N, K);
}
