#include <cstddef>

// i-k-j loop order: the innermost loop streams a row of B and a row of C (vectorisable).
extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i) {
        float* c = C + i * N;
        for (size_t j = 0; j < N; ++j) c[j] = 0.0f;
        for (size_t k = 0; k < K; ++k) {
            const float a = A[i * K + k];
            const float* b = B + k * N;
            for (size_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
}
