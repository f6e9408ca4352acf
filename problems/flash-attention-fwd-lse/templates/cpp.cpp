#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>

// Q, O [((b * S + i) * H + h) * D + d], K and V [((b * S + j) * Hkv + h / (H / Hkv)) * D + d],
// LSE [(b * H + h) * S + i] (float, natural log)
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, hj_bfloat16* O, float* LSE,
                         size_t B, size_t S, size_t H, size_t Hkv, size_t D) {
    // TODO: for each b, h, i: softmax over all j of Q.K / sqrt(D), weighted sum of V rows, log of the
    // softmax's denominator sum_j exp(Q.K / sqrt(D))
}
