// expect: WRONG_ANSWER: C[
// problem: matmul-fp32
// cases: 7x5x3
// B indexed as if it were stored column-major (B[col * K + k]), the most common GEMM slip.
#include <hip/hip_runtime.h>

__global__ void gemm(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const size_t row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k) acc += A[row * K + k] * B[col * K + k];
    C[row * N + col] = acc;
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    gemm<<<dim3((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16)), dim3(16, 16)>>>(A, B, C, M, N, K);
}
