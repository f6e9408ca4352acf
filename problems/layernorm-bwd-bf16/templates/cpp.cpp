#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>

extern "C" void solution(const hj_bfloat16* dy, const hj_bfloat16* x, const hj_bfloat16* weight, const float* mean,
                         const float* rstd, hj_bfloat16* dx, float* dweight, float* dbias, size_t rows, size_t cols) {
    // TODO, in float32: for each row r, xhat = (x - mean[r]) * rstd[r]; c1 = sum over j of
    // weight[j] * dy * xhat / cols; c2 = sum over j of weight[j] * dy / cols;
    // dx = hj_bfloat16(rstd[r] * (weight[j] * dy - xhat * c1 - c2));
    // dweight[j] = sum over every row of dy * xhat; dbias[j] = sum over every row of dy
}
