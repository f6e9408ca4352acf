// expect: CHECKED
// problem: matmul-fp32
// The one-thread-per-output GEMM with fmaf, __ldg and a 2D grid whose x runs over columns.
#include <cuda_runtime.h>

__global__ void gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, size_t M,
                     size_t N, size_t K) {
    const size_t col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k) acc = fmaf(__ldg(&A[row * K + k]), __ldg(&B[k * N + col]), acc);
    C[row * N + col] = acc;
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 block(32, 8);
    gemm<<<dim3((unsigned)((N + 31) / 32), (unsigned)((M + 7) / 8)), block>>>(A, B, C, M, N, K);
}
