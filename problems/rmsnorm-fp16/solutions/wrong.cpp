#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Wrong on purpose: the sum of squares is accumulated in half, which stops growing once the sum
// is large enough that adding one more square falls below half an ulp.
extern "C" void solution(const hj_half* x, const hj_half* weight, hj_half* out, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const hj_half* row = x + r * cols;
        hj_half ss = 0.0f;
        for (size_t c = 0; c < cols; ++c) ss = hj_half(float(ss) + float(row[c]) * float(row[c]));
        const float scale = 1.0f / std::sqrt(float(ss) / (float)cols + 1e-6f);
        for (size_t c = 0; c < cols; ++c) out[r * cols + c] = hj_half(float(row[c]) * scale * float(weight[c]));
    }
}
