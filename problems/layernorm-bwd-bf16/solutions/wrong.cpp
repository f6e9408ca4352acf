#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

// Wrong on purpose: the RMSNorm formula. dx leaves out c2, the gradient through the mean, so each
// row of dx is off by rstd c2, the mean of w dy (about 0.6 / sqrt(cols) here, and the whole of w dy
// at cols = 1: far outside 0.01 on the small cases).
// (Everything else as solutions/cpp.cpp.)
extern "C" void solution(const hj_bfloat16* dy, const hj_bfloat16* x, const hj_bfloat16* weight, const float* mean,
                         const float* rstd, hj_bfloat16* dx, float* dweight, float* dbias, size_t rows, size_t cols) {
    std::vector<float> w(cols), dw(cols, 0.0f), db(cols, 0.0f);
    for (size_t j = 0; j < cols; ++j) w[j] = float(weight[j]);
    for (size_t r = 0; r < rows; ++r) {
        const size_t first = r * cols;
        const float mu = mean[r], s = rstd[r];
        float sum_wdy_xhat = 0.0f;
        for (size_t j = 0; j < cols; ++j) {
            const float wdy = w[j] * float(dy[first + j]);
            sum_wdy_xhat += wdy * ((float(x[first + j]) - mu) * s);
        }
        const float c1 = sum_wdy_xhat / float(cols);
        for (size_t j = 0; j < cols; ++j) {
            const float g = float(dy[first + j]), xhat = (float(x[first + j]) - mu) * s;
            dx[first + j] = hj_bfloat16(s * (w[j] * g - xhat * c1));
            dw[j] += g * xhat;
            db[j] += g;
        }
    }
    for (size_t j = 0; j < cols; ++j) {
        dweight[j] = dw[j];
        dbias[j] = db[j];
    }
}
