#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// Wrong on purpose: the causal mask aligned at the top left (FlashAttention before 2.1): query i of a
// sequence sees keys j <= i, as if its queries were its FIRST q_len tokens, so a decode attends to
// its first token only instead of its whole context. Otherwise as the solution: per sequence and
// key/value head, scores, softmax with the maximum subtracted, weighted sum of V rows, in float32.
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, const int32_t* cu_seqlens_q,
                         const int32_t* cu_seqlens_k, hj_bfloat16* O, size_t B, size_t Tq, size_t Tk, size_t H,
                         size_t Hkv, size_t D) {
    (void)Tq;
    (void)Tk;
    const size_t group = H / Hkv;
    const float scale = 1.0f / std::sqrt((float)D);
    std::vector<float> k, v, q(D), p, o(D);
    for (size_t b = 0; b < B; ++b) {
        const size_t q0 = (size_t)cu_seqlens_q[b], q_len = (size_t)cu_seqlens_q[b + 1] - q0;
        const size_t k0 = (size_t)cu_seqlens_k[b], k_len = (size_t)cu_seqlens_k[b + 1] - k0;
        const size_t shift = 0;  // the bug: k_len - q_len
        k.resize(k_len * D);
        v.resize(k_len * D);
        p.resize(k_len);
        for (size_t hk = 0; hk < Hkv; ++hk) {
            for (size_t j = 0; j < k_len; ++j)
                for (size_t d = 0; d < D; ++d) {
                    k[j * D + d] = float(K[((k0 + j) * Hkv + hk) * D + d]);
                    v[j * D + d] = float(V[((k0 + j) * Hkv + hk) * D + d]);
                }
            for (size_t h = hk * group; h < (hk + 1) * group; ++h)
                for (size_t i = 0; i < q_len; ++i) {
                    const size_t row = ((q0 + i) * H + h) * D, last = i + shift;
                    for (size_t d = 0; d < D; ++d) q[d] = float(Q[row + d]);
                    float m = -INFINITY;
                    for (size_t j = 0; j <= last; ++j) {
                        float s = 0.0f;
                        for (size_t d = 0; d < D; ++d) s += q[d] * k[j * D + d];
                        p[j] = s * scale;
                        m = std::fmax(m, p[j]);
                    }
                    float l = 0.0f;
                    for (size_t d = 0; d < D; ++d) o[d] = 0.0f;
                    for (size_t j = 0; j <= last; ++j) {
                        const float e = std::exp(p[j] - m);
                        l += e;
                        for (size_t d = 0; d < D; ++d) o[d] += e * v[j * D + d];
                    }
                    for (size_t d = 0; d < D; ++d) O[row + d] = hj_bfloat16(o[d] / l);
                }
        }
    }
}
