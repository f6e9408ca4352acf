#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

// Row by row: sort the token ids by probability, largest first, ties to the lower id; the running
// sums in float are exact (statement), so the two thresholds are the only roundings.
extern "C" void solution(const float* probs, const int32_t* top_k, const float* top_p, const float* uniforms,
                         int32_t* token, size_t B, size_t V) {
    std::vector<int32_t> order(V);
    std::vector<float> cum(V);
    for (size_t b = 0; b < B; ++b) {
        const float* p = probs + b * V;
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [p](int32_t i, int32_t j) { return p[i] > p[j] || (p[i] == p[j] && i < j); });
        float sum = 0.0f;
        for (size_t m = 0; m < V; ++m) cum[m] = sum += p[order[m]];
        const size_t k = (size_t)top_k[b];
        const float threshold = top_p[b] * cum[k - 1];
        size_t n = 1;
        while (n < k && cum[n - 1] < threshold) ++n;
        const float draw = uniforms[b] * cum[n - 1];
        size_t j = 1;
        while (j < n && cum[j - 1] <= draw) ++j;
        token[b] = order[j - 1];
    }
}
