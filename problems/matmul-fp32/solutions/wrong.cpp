#include <cstddef>

// Reads B as if it were stored column-major (N x K), i.e. computes A * B^T of the wrong layout.
extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc += A[i * K + k] * B[j * K + k];
            C[i * N + j] = acc;
        }
}
