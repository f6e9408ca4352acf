#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <vector>

// Row by row: a float32 accumulator row, started at the bias and updated with A[i][k] * B[k][:]
// (contiguous), then GELU(tanh) in float32 and one rounding to bfloat16.
static float gelu_tanh(float x) {
    const float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(y));
}

extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, const hj_bfloat16* bias, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    std::vector<float> b(K * N), acc(N);
    for (size_t i = 0; i < K * N; ++i) b[i] = float(B[i]);
    for (size_t i = 0; i < M; ++i) {
        for (size_t j = 0; j < N; ++j) acc[j] = float(bias[j]);
        for (size_t k = 0; k < K; ++k) {
            const float a = float(A[i * K + k]);
            const float* row = &b[k * N];
            for (size_t j = 0; j < N; ++j) acc[j] += a * row[j];
        }
        for (size_t j = 0; j < N; ++j) C[i * N + j] = hj_bfloat16(gelu_tanh(acc[j]));
    }
}
