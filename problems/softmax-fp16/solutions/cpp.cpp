#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <vector>

// Row by row over a float32 copy: the maximum, the exponentials and their sum, then the quotients
// rounded once to half.
extern "C" void solution(const hj_half* x, hj_half* out, size_t rows, size_t cols) {
    std::vector<float> e(cols);
    for (size_t r = 0; r < rows; ++r) {
        const hj_half* row = x + r * cols;
        float m = -INFINITY;
        for (size_t c = 0; c < cols; ++c) {
            e[c] = float(row[c]);
            m = e[c] > m ? e[c] : m;
        }
        float sum = 0.0f;
        for (size_t c = 0; c < cols; ++c) {
            e[c] = std::exp(e[c] - m);
            sum += e[c];
        }
        const float inv = 1.0f / sum;
        for (size_t c = 0; c < cols; ++c) out[r * cols + c] = hj_half(e[c] * inv);
    }
}
