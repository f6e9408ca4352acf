#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

extern "C" void solution(const hj_fp8_e4m3fnuz* A, const hj_fp8_e4m3fnuz* B, float* C, size_t M, size_t N,
                         size_t K) {
    std::vector<float> b(K * N);
    for (size_t i = 0; i < K * N; ++i) b[i] = float(B[i]);
    for (size_t i = 0; i < M; ++i) {
        float* c = C + i * N;
        for (size_t j = 0; j < N; ++j) c[j] = 0.0f;
        for (size_t k = 0; k < K; ++k) {
            const float a = float(A[i * K + k]);
            for (size_t j = 0; j < N; ++j) c[j] += a * b[k * N + j];
        }
    }
}
