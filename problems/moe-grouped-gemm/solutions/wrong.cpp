#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>

// Wrong on purpose: rows are taken 32 at a time and each tile uses the expert of its first row, as a
// kernel written for groups padded to its tile size does (some libraries ask for 128-row alignment);
// here the groups are not aligned, so rows near a group's start use the previous expert's weight.
extern "C" void solution(const hj_bfloat16* X, const hj_bfloat16* W, const int32_t* expert_ids, hj_bfloat16* Y,
                         size_t R, size_t N, size_t K, size_t E) {
    for (size_t r = 0; r < R; ++r) {
        const hj_bfloat16* w = W + (size_t)expert_ids[r / 32 * 32] * N * K;
        for (size_t n = 0; n < N; ++n) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc += float(X[r * K + k]) * float(w[n * K + k]);
            Y[r * N + n] = hj_bfloat16(acc);
        }
    }
}
