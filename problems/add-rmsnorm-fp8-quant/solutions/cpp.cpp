#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>

// Row by row: the new residual h = bf16(x + residual), stored; the sum of squares of h and the
// largest |h w| in one pass; then rstd, the per-token scale max|h w| rstd / 240, and each
// y = h w rstd divided by the scale and rounded to fp8 (hj_fp8_e4m3fnuz rounds to nearest even and
// saturates at 240, as HIP's type does).
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
        const float s = amax * rstd / 240.0f;
        scale[r] = s;
        for (size_t j = 0; j < cols; ++j) {
            const float y = float(residual_out[first + j]) * float(weight[j]) * rstd;
            q[first + j] = hj_fp8_e4m3fnuz(y / s);
        }
    }
}
