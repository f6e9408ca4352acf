#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

// Row by row: S = sum of w dy x rstd, then dx = rstd (w dy - x rstd S / cols), rounded once to
// bfloat16; each row adds dy x rstd to dweight's float32 column sums.
extern "C" void solution(const hj_bfloat16* dy, const hj_bfloat16* x, const hj_bfloat16* weight, const float* rstd,
                         hj_bfloat16* dx, float* dweight, size_t rows, size_t cols) {
    std::vector<float> w(cols), sums(cols, 0.0f);
    for (size_t j = 0; j < cols; ++j) w[j] = float(weight[j]);
    for (size_t r = 0; r < rows; ++r) {
        const size_t first = r * cols;
        const float s = rstd[r];
        float dot = 0.0f;
        for (size_t j = 0; j < cols; ++j) dot += w[j] * float(dy[first + j]) * (float(x[first + j]) * s);
        const float mean = dot / float(cols);
        for (size_t j = 0; j < cols; ++j) {
            const float g = float(dy[first + j]), xhat = float(x[first + j]) * s;
            dx[first + j] = hj_bfloat16(s * (w[j] * g - xhat * mean));
            sums[j] += g * xhat;
        }
    }
    for (size_t j = 0; j < cols; ++j) dweight[j] = sums[j];
}
