#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include <cstdint>

// Shared-memory tiles of int8 (A's rows and B's rows, both contiguous in k), int32 accumulation, the
// two scales applied in float32 to the exact sum, one rounding to bfloat16.
constexpr int T = 16;

__global__ void w8a8_gemm(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                          __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    __shared__ int As[T][T], Bs[T][T];
    const size_t row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    const size_t brow = blockIdx.x * T + threadIdx.y;  // the B row this thread stages
    int acc = 0;
    for (size_t k0 = 0; k0 < K; k0 += T) {
        As[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[row * K + k0 + threadIdx.x] : 0;
        Bs[threadIdx.y][threadIdx.x] = brow < N && k0 + threadIdx.x < K ? B[brow * K + k0 + threadIdx.x] : 0;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[threadIdx.x][k];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = __float2bfloat16((float)acc * a_scale[row] * b_scale[col]);
}

extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                         __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    w8a8_gemm<<<dim3((unsigned)((N + T - 1) / T), (unsigned)((M + T - 1) / T)), dim3(T, T)>>>(A, a_scale, B, b_scale,
                                                                                              C, M, N, K);
}
