#include <hipjudge/lowp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

// Expert by expert: its rows gathered (any order works), its weight transposed to a K x N float copy,
// then each row's float32 accumulators updated with X[r][k] * Wt[k][:] (contiguous, vectorised by
// g++), rounded to bfloat16 once.
extern "C" void solution(const hj_bfloat16* X, const hj_bfloat16* W, const int32_t* expert_ids, hj_bfloat16* Y,
                         size_t R, size_t N, size_t K, size_t E) {
    std::vector<float> wt(K * N), x(K), acc(N);
    std::vector<size_t> rows;
    for (size_t e = 0; e < E; ++e) {
        rows.clear();
        for (size_t r = 0; r < R; ++r)
            if ((size_t)expert_ids[r] == e) rows.push_back(r);
        if (rows.empty()) continue;
        const hj_bfloat16* w = W + e * N * K;
        for (size_t n = 0; n < N; ++n)
            for (size_t k = 0; k < K; ++k) wt[k * N + n] = float(w[n * K + k]);
        for (size_t r : rows) {
            for (size_t k = 0; k < K; ++k) x[k] = float(X[r * K + k]);
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (size_t k = 0; k < K; ++k) {
                const float a = x[k];
                const float* row = &wt[k * N];
                for (size_t n = 0; n < N; ++n) acc[n] += a * row[n];
            }
            for (size_t n = 0; n < N; ++n) Y[r * N + n] = hj_bfloat16(acc[n]);
        }
    }
}
