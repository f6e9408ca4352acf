#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

// Row by row: x_hat = (x - mean) rstd, c1 = mean of w dy x_hat, c2 = mean of w dy, then
// dx = rstd (w dy - x_hat c1 - c2), rounded once to bfloat16; each row adds dy x_hat to dweight's
// float32 column sums and dy to dbias's.
extern "C" void solution(const hj_bfloat16* dy, const hj_bfloat16* x, const hj_bfloat16* weight, const float* mean,
                         const float* rstd, hj_bfloat16* dx, float* dweight, float* dbias, size_t rows, size_t cols) {
    std::vector<float> w(cols), dw(cols, 0.0f), db(cols, 0.0f);
    for (size_t j = 0; j < cols; ++j) w[j] = float(weight[j]);
    for (size_t r = 0; r < rows; ++r) {
        const size_t first = r * cols;
        const float mu = mean[r], s = rstd[r];
        float sum_wdy_xhat = 0.0f, sum_wdy = 0.0f;
        for (size_t j = 0; j < cols; ++j) {
            const float wdy = w[j] * float(dy[first + j]);
            sum_wdy_xhat += wdy * ((float(x[first + j]) - mu) * s);
            sum_wdy += wdy;
        }
        const float c1 = sum_wdy_xhat / float(cols), c2 = sum_wdy / float(cols);
        for (size_t j = 0; j < cols; ++j) {
            const float g = float(dy[first + j]), xhat = (float(x[first + j]) - mu) * s;
            dx[first + j] = hj_bfloat16(s * (w[j] * g - xhat * c1 - c2));
            dw[j] += g * xhat;
            db[j] += g;
        }
    }
    for (size_t j = 0; j < cols; ++j) {
        dweight[j] = dw[j];
        dbias[j] = db[j];
    }
}
