#include <hipjudge/lowp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

// Matrix by matrix: B[b] converted to float once, then each row of A[b]'s float32 accumulators updated
// with A[i][k] * B[k][:] (contiguous, vectorised by g++), rounded to bfloat16 once.
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t batch, size_t M,
                         size_t N, size_t K) {
    std::vector<float> b(K * N), acc(N);
    for (size_t z = 0; z < batch; ++z) {
        const hj_bfloat16* a = A + z * M * K;
        for (size_t i = 0; i < K * N; ++i) b[i] = float(B[z * K * N + i]);
        for (size_t i = 0; i < M; ++i) {
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (size_t k = 0; k < K; ++k) {
                const float x = float(a[i * K + k]);
                const float* row = &b[k * N];
                for (size_t j = 0; j < N; ++j) acc[j] += x * row[j];
            }
            for (size_t j = 0; j < N; ++j) C[z * M * N + i * N + j] = hj_bfloat16(acc[j]);
        }
    }
}
