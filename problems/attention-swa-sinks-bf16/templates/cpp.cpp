#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>

// Q[((b * S + i) * H + h) * D + d], K and V [((b * S + j) * Hkv + h / (H / Hkv)) * D + d], sinks[h]
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, const float* sinks,
                         hj_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D, int W) {
    // TODO: for each b, h, i: the keys i - W < j <= i; O = sum_j e^s_ij V_j / (sum_j e^s_ij + e^sinks[h])
    // with s_ij = Q.K / sqrt(D)
}
