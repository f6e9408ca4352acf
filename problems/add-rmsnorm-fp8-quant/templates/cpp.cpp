#include <hipjudge/lowp.h>  // hj_bfloat16, hj_fp8_e4m3fnuz: storage with float conversions

#include <cmath>
#include <cstddef>

extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* residual, const hj_bfloat16* weight,
                         hj_bfloat16* residual_out, hj_fp8_e4m3fnuz* q, float* scale, size_t rows, size_t cols) {
    // TODO, for each row r:
    //   h = hj_bfloat16(float(x) + float(residual)), stored in residual_out;
    //   rstd = 1 / sqrt(mean of float(h)^2 + 1e-5f); y = float(h) * float(weight[j]) * rstd;
    //   scale[r] = max |y| / 240; q = hj_fp8_e4m3fnuz(y / scale[r])
}
