#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

// Row by row: a float32 accumulator row, updated with A[i][k] * B[k][:] (contiguous), rounded to
// bfloat16 once.
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t M, size_t N, size_t K) {
    std::vector<float> b(K * N), acc(N);
    for (size_t i = 0; i < K * N; ++i) b[i] = float(B[i]);
    for (size_t i = 0; i < M; ++i) {
        for (size_t j = 0; j < N; ++j) acc[j] = 0.0f;
        for (size_t k = 0; k < K; ++k) {
            const float a = float(A[i * K + k]);
            const float* row = &b[k * N];
            for (size_t j = 0; j < N; ++j) acc[j] += a * row[j];
        }
        for (size_t j = 0; j < N; ++j) C[i * N + j] = hj_bfloat16(acc[j]);
    }
}
