#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// Wrong on purpose: the sequence is taken as seq_lens[b] - 1 tokens, leaving out the newest one (an
// off-by-one on the length that includes the token being decoded). Otherwise as the solution.
extern "C" void solution(const hj_bfloat16* q, const hj_bfloat16* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, hj_bfloat16* out, size_t B, size_t H, size_t P, float scale) {
    constexpr size_t PAGE = 64, DK = 576, DV = 512;
    std::vector<float> kv(PAGE * P * DK), qf(DK), s(PAGE * P), o(DV);
    for (size_t b = 0; b < B; ++b) {
        const size_t n = (size_t)seq_lens[b] - 1;
        for (size_t j = 0; j < n; ++j) {
            const hj_bfloat16* row = kv_cache + ((size_t)block_table[b * P + j / PAGE] * PAGE + j % PAGE) * DK;
            for (size_t d = 0; d < DK; ++d) kv[j * DK + d] = float(row[d]);
        }
        for (size_t h = 0; h < H; ++h) {
            for (size_t d = 0; d < DK; ++d) qf[d] = float(q[(b * H + h) * DK + d]);
            float m = -INFINITY;
            for (size_t j = 0; j < n; ++j) {
                float dot = 0.0f;
                for (size_t d = 0; d < DK; ++d) dot += qf[d] * kv[j * DK + d];
                s[j] = dot * scale;
                m = std::fmax(m, s[j]);
            }
            float l = 0.0f;
            for (size_t d = 0; d < DV; ++d) o[d] = 0.0f;
            for (size_t j = 0; j < n; ++j) {
                const float p = std::exp(s[j] - m);
                l += p;
                for (size_t d = 0; d < DV; ++d) o[d] += p * kv[j * DK + d];
            }
            for (size_t d = 0; d < DV; ++d) out[(b * H + h) * DV + d] = hj_bfloat16(o[d] / l);
        }
    }
}
