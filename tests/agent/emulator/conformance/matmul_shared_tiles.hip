// expect: CHECKED
// problem: matmul-fp32
// The textbook 16x16 shared-memory tiled GEMM, zero-padded edge tiles.
#include <hip/hip_runtime.h>

constexpr int T = 16;

__global__ void gemm(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    __shared__ float As[T][T], Bs[T][T];
    const size_t row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += T) {
        As[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    gemm<<<dim3((unsigned)((N + T - 1) / T), (unsigned)((M + T - 1) / T)), dim3(T, T)>>>(A, B, C, M, N, K);
}
