#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <vector>

// Wrong on purpose: the bias is added after the activation, GELU(A B) + bias instead of
// GELU(A B + bias), an epilogue written in the wrong order. Where A B is negative the GELU is near
// zero and the result is off by about |bias|.
static float gelu_tanh(float x) {
    const float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(y));
}

extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, const hj_bfloat16* bias, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    std::vector<float> acc(N);
    for (size_t i = 0; i < M; ++i) {
        for (size_t j = 0; j < N; ++j) acc[j] = 0.0f;
        for (size_t k = 0; k < K; ++k) {
            const float a = float(A[i * K + k]);
            for (size_t j = 0; j < N; ++j) acc[j] += a * float(B[k * N + j]);
        }
        for (size_t j = 0; j < N; ++j) C[i * N + j] = hj_bfloat16(gelu_tanh(acc[j]) + float(bias[j]));
    }
}
