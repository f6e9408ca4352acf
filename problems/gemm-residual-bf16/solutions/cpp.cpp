#include <hipjudge/lowp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

// B (N x K) transposed to a K x N float copy once; then each row of A against panels of 256
// columns: float32 accumulators started at the residual and updated with A[i][k] * Bt[k][j..]
// (contiguous, vectorised by g++), rounded to bfloat16 once.
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, const hj_bfloat16* residual, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    std::vector<float> bt(K * N), a(K), acc(256);
    for (size_t j = 0; j < N; ++j)
        for (size_t k = 0; k < K; ++k) bt[k * N + j] = float(B[j * K + k]);
    for (size_t j0 = 0; j0 < N; j0 += 256) {
        const size_t width = std::min<size_t>(256, N - j0);
        for (size_t i = 0; i < M; ++i) {
            for (size_t k = 0; k < K; ++k) a[k] = float(A[i * K + k]);
            for (size_t j = 0; j < width; ++j) acc[j] = float(residual[i * N + j0 + j]);
            for (size_t k = 0; k < K; ++k) {
                const float x = a[k];
                const float* row = &bt[k * N + j0];
                for (size_t j = 0; j < width; ++j) acc[j] += x * row[j];
            }
            for (size_t j = 0; j < width; ++j) C[i * N + j0 + j] = hj_bfloat16(acc[j]);
        }
    }
}
