#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>

// Q, K, V, O, dO, dQ, dK, dV [((b * S + i) * H + h) * D + d]; LSE [(b * H + h) * S + i] (float, natural log)
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, const hj_bfloat16* O,
                         const hj_bfloat16* dO, const float* LSE, hj_bfloat16* dQ, hj_bfloat16* dK, hj_bfloat16* dV,
                         size_t B, size_t S, size_t H, size_t D) {
    // TODO: for each b, h and query i: D_i = dO_i . O_i; for each key j <= i:
    // P = exp(Q_i . K_j / sqrt(D) - LSE_i), dP = dO_i . V_j, dS = P (dP - D_i);
    // dV_j += P dO_i, dK_j += dS Q_i / sqrt(D), dQ_i += dS K_j / sqrt(D)
}
