#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <vector>

// The weight converted to float once; then per token its V logits in float32 (dot products over H),
// their maximum m, l = sum of exp(x - m), and loss = m + log(l) - x[target].
extern "C" void solution(const hj_bfloat16* hidden, const hj_bfloat16* weight, const int* targets, float* loss,
                         size_t T, size_t V, size_t H) {
    std::vector<float> w(V * H), h(H), x(V);
    for (size_t i = 0; i < V * H; ++i) w[i] = float(weight[i]);
    for (size_t t = 0; t < T; ++t) {
        for (size_t k = 0; k < H; ++k) h[k] = float(hidden[t * H + k]);
        float m = -INFINITY;
        for (size_t v = 0; v < V; ++v) {
            float s = 0.0f;
            for (size_t k = 0; k < H; ++k) s += h[k] * w[v * H + k];
            x[v] = s;
            m = std::fmax(m, s);
        }
        float l = 0.0f;
        for (size_t v = 0; v < V; ++v) l += std::exp(x[v] - m);
        loss[t] = m + std::log(l) - x[(size_t)targets[t]];
    }
}
