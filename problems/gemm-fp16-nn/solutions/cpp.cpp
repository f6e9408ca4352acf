#include <hipjudge/lowp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

// B converted to float once; then blocks of 64 rows of A against panels of 256 columns of B, each
// row's float32 accumulators updated with A[i][k] * B[k][j..] (contiguous, vectorised by g++),
// rounded to half once.
extern "C" void solution(const hj_half* A, const hj_half* B, hj_half* C, size_t M, size_t N, size_t K) {
    std::vector<float> b(K * N), a(K), acc(256);
    for (size_t i = 0; i < K * N; ++i) b[i] = float(B[i]);
    for (size_t j0 = 0; j0 < N; j0 += 256) {
        const size_t width = std::min<size_t>(256, N - j0);
        for (size_t i = 0; i < M; ++i) {
            for (size_t k = 0; k < K; ++k) a[k] = float(A[i * K + k]);
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (size_t k = 0; k < K; ++k) {
                const float x = a[k];
                const float* row = &b[k * N + j0];
                for (size_t j = 0; j < width; ++j) acc[j] += x * row[j];
            }
            for (size_t j = 0; j < width; ++j) C[i * N + j0 + j] = hj_half(acc[j]);
        }
    }
}
