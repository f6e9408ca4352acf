#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>

// x, y [((b * L + t) * H + h) * P + p]; dt [(b * L + t) * H + h]; A, D [h]; B, C
// [((b * L + t) * G + g) * N + n], head h reads group g = h / (H / G).
extern "C" void solution(const hj_bfloat16* x, const float* dt, const float* A, const hj_bfloat16* B,
                         const hj_bfloat16* C, const float* D, hj_bfloat16* y, size_t batch, size_t seqlen,
                         size_t nheads, size_t headdim, size_t ngroups, size_t dstate) {
    // TODO: for each b, h: a float32 state S[headdim][dstate] = 0; for t = 0 .. seqlen - 1:
    // S = exp(dt A) S + dt x_t B_t^T, y_t = S C_t + D x_t (rounded to bfloat16)
}
