#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* w1, const hj_bfloat16* w2, const int32_t* topk_ids,
                         const float* topk_weights, hj_bfloat16* act, hj_bfloat16* out, size_t T, size_t H, size_t I,
                         size_t E, size_t topk) {
    // TODO: for token t and its j-th expert e = topk_ids[t * topk + j]:
    //   g[n] = sum_k float(w1[(e * 2 * I + n) * H + k]) * float(x[t * H + k]), u[n] the same with row I + n;
    //   act[(t * topk + j) * I + n] = hj_bfloat16(g / (1 + exp(-g)) * u);
    //   out[t * H + d] = hj_bfloat16(sum_j topk_weights[t * topk + j] * sum_i float(w2[(e * H + d) * I + i]) * act[...i])
}
