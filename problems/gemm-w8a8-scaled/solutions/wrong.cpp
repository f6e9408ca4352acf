#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

// Wrong on purpose: A and B are dequantized to bfloat16 first (a * scale rounded to 8 significant
// bits), then multiplied with a float32 accumulator, as a bfloat16 GEMM would. Each operand's
// rounding (2^-9 relative) adds up over K and is many ulps of the result wherever the sum cancels.
extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    std::vector<float> a(M * K), b(N * K);
    for (size_t i = 0; i < M * K; ++i) a[i] = float(hj_bfloat16(float(A[i]) * a_scale[i / K]));
    for (size_t j = 0; j < N * K; ++j) b[j] = float(hj_bfloat16(float(B[j]) * b_scale[j / K]));
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[j * K + k];
            C[i * N + j] = hj_bfloat16(acc);
        }
}
