#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>

// Sequence by sequence: the target's argmax (the first maximum) at each position, in order, until
// one differs from the draft token there; positions after that are not looked at.
static int32_t argmax(const hj_bfloat16* row, size_t V) {
    size_t best = 0;
    float top = float(row[0]);
    for (size_t j = 1; j < V; ++j) {
        const float x = float(row[j]);
        if (x > top) {
            top = x;
            best = j;
        }
    }
    return (int32_t)best;
}

extern "C" void solution(const hj_bfloat16* target_logits, const int32_t* draft_tokens, int32_t* accepted,
                         int32_t* output_tokens, size_t B, size_t K, size_t V) {
    for (size_t b = 0; b < B; ++b) {
        int32_t* out = output_tokens + b * (K + 1);
        size_t i = 0;
        for (;; ++i) {
            const int32_t t = argmax(target_logits + (b * (K + 1) + i) * V, V);
            out[i] = t;
            if (i == K || t != draft_tokens[b * K + i]) break;
        }
        accepted[b] = (int32_t)i;
        for (size_t j = i + 1; j <= K; ++j) out[j] = -1;
    }
}
