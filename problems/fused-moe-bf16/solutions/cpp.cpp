#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// Token by token, expert by expert: the gate and up dot products in float32 (exact on these inputs),
// SiLU(g) * u rounded to bfloat16 (the activation, written to act), the down projection and the
// routing weight in float32, and the token's sum over its experts rounded to bfloat16 once.
extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* w1, const hj_bfloat16* w2, const int32_t* topk_ids,
                         const float* topk_weights, hj_bfloat16* act, hj_bfloat16* out, size_t T, size_t H, size_t I,
                         size_t E, size_t topk) {
    (void)E;
    std::vector<float> xf(H), h(I), acc(H);
    for (size_t t = 0; t < T; ++t) {
        for (size_t k = 0; k < H; ++k) xf[k] = float(x[t * H + k]);
        for (size_t d = 0; d < H; ++d) acc[d] = 0.0f;
        for (size_t j = 0; j < topk; ++j) {
            const size_t e = (size_t)topk_ids[t * topk + j];
            const float weight = topk_weights[t * topk + j];
            const hj_bfloat16* gate = w1 + e * 2 * I * H;
            const hj_bfloat16* up = gate + I * H;
            for (size_t n = 0; n < I; ++n) {
                float g = 0.0f, u = 0.0f;
                for (size_t k = 0; k < H; ++k) {
                    g += float(gate[n * H + k]) * xf[k];
                    u += float(up[n * H + k]) * xf[k];
                }
                const hj_bfloat16 a(g / (1.0f + std::exp(-g)) * u);
                act[(t * topk + j) * I + n] = a;
                h[n] = float(a);
            }
            const hj_bfloat16* down = w2 + e * H * I;
            for (size_t d = 0; d < H; ++d) {
                float y = 0.0f;
                for (size_t i = 0; i < I; ++i) y += float(down[d * I + i]) * h[i];
                acc[d] += weight * y;
            }
        }
        for (size_t d = 0; d < H; ++d) out[t * H + d] = hj_bfloat16(acc[d]);
    }
}
