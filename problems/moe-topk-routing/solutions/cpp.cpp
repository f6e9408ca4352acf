#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// Row by row: the maximum, the softmax denominator (float32, the maximum subtracted), then topk
// passes each picking the largest logit not yet taken (a strict > keeps the lower index on ties).
extern "C" void solution(const float* logits, float* weights, int32_t* ids, size_t T, size_t E, size_t topk,
                         int renormalize) {
    std::vector<char> taken(E);
    for (size_t t = 0; t < T; ++t) {
        const float* x = logits + t * E;
        float m = x[0];
        for (size_t e = 1; e < E; ++e) m = std::fmax(m, x[e]);
        float total = 0.0f;
        for (size_t e = 0; e < E; ++e) total += std::exp(x[e] - m);
        std::fill(taken.begin(), taken.end(), 0);
        float chosen = 0.0f;
        for (size_t j = 0; j < topk; ++j) {
            size_t best = E;
            for (size_t e = 0; e < E; ++e)
                if (!taken[e] && (best == E || x[e] > x[best])) best = e;
            taken[best] = 1;
            ids[t * topk + j] = (int32_t)best;
            weights[t * topk + j] = std::exp(x[best] - m);
            chosen += weights[t * topk + j];
        }
        const float denominator = renormalize ? chosen : total;
        for (size_t j = 0; j < topk; ++j) weights[t * topk + j] /= denominator;
    }
}
