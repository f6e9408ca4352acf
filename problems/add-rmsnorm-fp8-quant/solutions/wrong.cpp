#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Wrong on purpose: the scale divides by 448, the largest OCP fp8 (E4M3FN) value, where MI300X's
// FNUZ format stops at 240: every value above 240 saturates, and the scale is 240/448 of the right one.
extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* residual, const hj_bfloat16* weight,
                         hj_bfloat16* residual_out, hj_fp8_e4m3fnuz* q, float* scale, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const size_t first = r * cols;
        float squares = 0.0f, amax = 0.0f;
        for (size_t j = 0; j < cols; ++j) {
            const hj_bfloat16 h(float(x[first + j]) + float(residual[first + j]));
            residual_out[first + j] = h;
            const float v = float(h);
            squares += v * v;
            amax = std::fmax(amax, std::fabs(v * float(weight[j])));
        }
        const float rstd = 1.0f / std::sqrt(squares / float(cols) + 1e-5f);
        const float s = amax * rstd / 448.0f;
        scale[r] = s;
        for (size_t j = 0; j < cols; ++j) {
            const float y = float(residual_out[first + j]) * float(weight[j]) * rstd;
            q[first + j] = hj_fp8_e4m3fnuz(y / s);
        }
    }
}
