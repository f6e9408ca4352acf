#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Wrong on purpose: eps added outside the square root, x / (sqrt(mean(x^2)) + eps), as some
// LayerNorm code writes it. Harmless when the mean square is large; on rows whose mean square is
// near or below eps (activations of a quiet token) the scale is off by a large factor.
extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* weight, hj_bfloat16* out, size_t rows,
                         size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const hj_bfloat16* row = x + r * cols;
        float ss = 0.0f;
        for (size_t c = 0; c < cols; ++c) ss += float(row[c]) * float(row[c]);
        const float scale = 1.0f / (std::sqrt(ss / (float)cols) + 1e-5f);
        for (size_t c = 0; c < cols; ++c) out[r * cols + c] = hj_bfloat16(float(row[c]) * scale * float(weight[c]));
    }
}
