#include <cstddef>
#include <cstdint>

extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i) {
        int32_t* c = C + i * N;
        for (size_t j = 0; j < N; ++j) c[j] = 0;
        for (size_t k = 0; k < K; ++k) {
            const int32_t a = A[i * K + k];
            for (size_t j = 0; j < N; ++j) c[j] += a * B[k * N + j];
        }
    }
}
