#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstring>

// __builtin_amdgcn_mfma_i32_32x32x16_i8: a 32x32 int32 tile per wavefront, four per 64x64 block.
// Lane l holds eight int8 values of A row l % 32 (k = 8 (l / 32) + e) and of B column l % 32, and
// C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in register r.
typedef int intx16 __attribute__((ext_vector_type(16)));

__global__ void __launch_bounds__(256) gemm(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N,
                                            size_t K) {
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
    const size_t row0 = blockIdx.y * 64 + (wave / 2) * 32, col0 = blockIdx.x * 64 + (wave % 2) * 32;
    const int i = lane % 32, half = lane / 32;
    intx16 acc = {};
    for (size_t k0 = 0; k0 < K; k0 += 16) {
        int8_t a[8], b[8];
        for (int e = 0; e < 8; ++e) {
            const size_t k = k0 + 8 * half + e;
            a[e] = row0 + i < M && k < K ? A[(row0 + i) * K + k] : 0;
            b[e] = k < K && col0 + i < N ? B[k * N + col0 + i] : 0;
        }
        long ra, rb;
        memcpy(&ra, a, 8);
        memcpy(&rb, b, 8);
        acc = __builtin_amdgcn_mfma_i32_32x32x16_i8(ra, rb, acc, 0, 0, 0);
    }
    for (int r = 0; r < 16; ++r) {
        const size_t row = row0 + 8 * (r / 4) + 4 * half + r % 4, col = col0 + i;
        if (row < M && col < N) C[row * N + col] = acc[r];
    }
}

extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 63) / 64), (unsigned)((M + 63) / 64));
    hipLaunchKernelGGL(gemm, grid, dim3(256), 0, 0, A, B, C, M, N, K);
}
