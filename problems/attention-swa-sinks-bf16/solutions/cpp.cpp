#include <hipjudge/lowp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

// Per batch and key/value head, K and V converted to float once; then for every query head of the
// group and every query i: scores over its window's keys i - W < j <= i, softmax with the maximum
// of the scores and the head's sink subtracted, the sink's exponential added to the denominator
// only, and the weighted sum of V rows, all in float32.
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, const float* sinks,
                         hj_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D, int W) {
    const size_t group = H / Hkv;
    const float scale = 1.0f / std::sqrt((float)D);
    std::vector<float> k(S * D), v(S * D), q(D), p(S), o(D);
    for (size_t b = 0; b < B; ++b)
        for (size_t hk = 0; hk < Hkv; ++hk) {
            for (size_t j = 0; j < S; ++j)
                for (size_t d = 0; d < D; ++d) {
                    k[j * D + d] = float(K[((b * S + j) * Hkv + hk) * D + d]);
                    v[j * D + d] = float(V[((b * S + j) * Hkv + hk) * D + d]);
                }
            for (size_t h = hk * group; h < (hk + 1) * group; ++h)
                for (size_t i = 0; i < S; ++i) {
                    const size_t row = ((b * S + i) * H + h) * D;
                    const size_t first = i + 1 > (size_t)W ? i + 1 - (size_t)W : 0;  // i - W < j
                    for (size_t d = 0; d < D; ++d) q[d] = float(Q[row + d]);
                    float m = sinks[h];
                    for (size_t j = first; j <= i; ++j) {
                        float s = 0.0f;
                        for (size_t d = 0; d < D; ++d) s += q[d] * k[j * D + d];
                        p[j] = s * scale;
                        m = std::max(m, p[j]);
                    }
                    float l = std::exp(sinks[h] - m);
                    for (size_t d = 0; d < D; ++d) o[d] = 0.0f;
                    for (size_t j = first; j <= i; ++j) {
                        const float e = std::exp(p[j] - m);
                        l += e;
                        for (size_t d = 0; d < D; ++d) o[d] += e * v[j * D + d];
                    }
                    for (size_t d = 0; d < D; ++d) O[row + d] = hj_bfloat16(o[d] / l);
                }
        }
}
