#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Wrong on purpose: one scale from the whole row's largest magnitude, written to every block of the
// row (per-token scaling where the format asks for 1 x 128 blocks): blocks with smaller values
// lose their precision and every block's scale is wrong.
extern "C" void solution(const hj_bfloat16* x, hj_fp8_e4m3fnuz* q, float* scales, size_t rows, size_t cols) {
    const size_t blocks = cols / 128;
    for (size_t r = 0; r < rows; ++r) {
        float amax = 0.0f;
        for (size_t j = 0; j < cols; ++j) amax = std::fmax(amax, std::fabs(float(x[r * cols + j])));
        const float scale = amax / 240.0f;
        for (size_t b = 0; b < blocks; ++b) scales[r * blocks + b] = scale;
        for (size_t j = 0; j < cols; ++j)
            q[r * cols + j] = hj_fp8_e4m3fnuz(scale > 0.0f ? float(x[r * cols + j]) / scale : 0.0f);
    }
}
