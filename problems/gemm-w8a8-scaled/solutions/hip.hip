#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>
#include <cstring>

// __builtin_amdgcn_mfma_i32_32x32x16_i8: a 32x32 int32 tile per wavefront, four per 64x64 block.
// Lane l holds eight int8 values of A row l % 32 (k = 8 (l / 32) + e) and of B^T column l % 32, which
// is B's row: contiguous in k, as A's. C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] is in register r.
// The epilogue scales the exact int32 sums in float32 and rounds once to bfloat16.
typedef int intx16 __attribute__((ext_vector_type(16)));

__global__ void __launch_bounds__(256) w8a8_gemm(const int8_t* A, const float* a_scale, const int8_t* B,
                                                 const float* b_scale, __hip_bfloat16* C, size_t M, size_t N,
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
            b[e] = col0 + i < N && k < K ? B[(col0 + i) * K + k] : 0;
        }
        long ra, rb;
        memcpy(&ra, a, 8);
        memcpy(&rb, b, 8);
        acc = __builtin_amdgcn_mfma_i32_32x32x16_i8(ra, rb, acc, 0, 0, 0);
    }
    const size_t col = col0 + i;
    if (col >= N) return;
    const float sb = b_scale[col];
    for (int r = 0; r < 16; ++r) {
        const size_t row = row0 + 8 * (r / 4) + 4 * half + r % 4;
        if (row < M) C[row * N + col] = __float2bfloat16((float)acc[r] * a_scale[row] * sb);
    }
}

extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                         __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + 63) / 64), (unsigned)((M + 63) / 64));
    hipLaunchKernelGGL(w8a8_gemm, grid, dim3(256), 0, 0, A, a_scale, B, b_scale, C, M, N, K);
}
