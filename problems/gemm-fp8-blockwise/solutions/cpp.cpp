#include <hipjudge/lowp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

// Dequantize first, in float32: a[k][m] = A[k][m] * A_scale[k / 128][m] and b[k][n] = B[k][n] *
// B_scale[k / 128][n / 128] (fp8 decoded through a 256-entry table); then C[m][:] = sum over k of
// a[k][m] * b[k][:], contiguous rows of b, float32 accumulators, rounded to bfloat16 once.
extern "C" void solution(const hj_fp8_e4m3fnuz* A, const hj_fp8_e4m3fnuz* B, const float* A_scale,
                         const float* B_scale, hj_bfloat16* C, size_t M, size_t N, size_t K) {
    const size_t nb = (N + 127) / 128;
    float decode[256];
    for (int v = 0; v < 256; ++v) decode[v] = float(hj_fp8_e4m3fnuz::from_bits((uint8_t)v));
    std::vector<float> at(M * K), b(K * N), acc(N);
    for (size_t k = 0; k < K; ++k) {
        for (size_t m = 0; m < M; ++m) at[m * K + k] = decode[A[k * M + m].bits] * A_scale[(k / 128) * M + m];
        for (size_t n = 0; n < N; ++n) b[k * N + n] = decode[B[k * N + n].bits] * B_scale[(k / 128) * nb + n / 128];
    }
    for (size_t m = 0; m < M; ++m) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (size_t k = 0; k < K; ++k) {
            const float x = at[m * K + k];
            const float* row = &b[k * N];
            for (size_t n = 0; n < N; ++n) acc[n] += x * row[n];
        }
        for (size_t n = 0; n < N; ++n) C[m * N + n] = hj_bfloat16(acc[n]);
    }
}
