#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Row by row, two passes: the maximum, then the sum of e^(x - max) in float32.
extern "C" void solution(const hj_bfloat16* logits, const int* targets, float* loss, size_t tokens, size_t vocab) {
    for (size_t t = 0; t < tokens; ++t) {
        const hj_bfloat16* row = logits + t * vocab;
        float m = -INFINITY;
        for (size_t j = 0; j < vocab; ++j) m = std::fmax(m, float(row[j]));
        float sum = 0.0f;
        for (size_t j = 0; j < vocab; ++j) sum += std::exp(float(row[j]) - m);
        loss[t] = std::log(sum) + m - float(row[targets[t]]);
    }
}
