#include <hipjudge/lowp.h>

#include <cstddef>

// Token by token: the position's cos/sin row, then every head's pairs (i, i + head_dim / 2).
extern "C" void solution(const hj_bfloat16* x, const int* positions, const float* cos, const float* sin,
                         hj_bfloat16* out, size_t tokens, size_t heads, size_t head_dim, size_t max_pos) {
    const size_t half = head_dim / 2;
    for (size_t t = 0; t < tokens; ++t) {
        const float* c = cos + (size_t)positions[t] * half;
        const float* s = sin + (size_t)positions[t] * half;
        for (size_t h = 0; h < heads; ++h) {
            const hj_bfloat16* v = x + (t * heads + h) * head_dim;
            hj_bfloat16* o = out + (t * heads + h) * head_dim;
            for (size_t i = 0; i < half; ++i) {
                const float x1 = float(v[i]), x2 = float(v[i + half]);
                o[i] = hj_bfloat16(x1 * c[i] - x2 * s[i]);
                o[i + half] = hj_bfloat16(x2 * c[i] + x1 * s[i]);
            }
        }
    }
}
