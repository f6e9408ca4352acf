#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Wrong on purpose: the variance is the mean of x^2, without the mean subtracted (RMSNorm's
// statistic in a LayerNorm). Right only for rows whose mean is 0.
extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* gamma, const hj_bfloat16* beta, hj_bfloat16* out,
                         size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const hj_bfloat16* row = x + r * cols;
        float sum = 0.0f, squares = 0.0f;
        for (size_t c = 0; c < cols; ++c) {
            sum += float(row[c]);
            squares += float(row[c]) * float(row[c]);
        }
        const float mean = sum / (float)cols;
        const float rstd = 1.0f / std::sqrt(squares / (float)cols + 1e-5f);
        for (size_t c = 0; c < cols; ++c)
            out[r * cols + c] = hj_bfloat16((float(row[c]) - mean) * rstd * float(gamma[c]) + float(beta[c]));
    }
}
