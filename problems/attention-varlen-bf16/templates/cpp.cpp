#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>
#include <cstdint>

// Sequence b: queries Q rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1, keys and values K, V rows
// cu_seqlens_k[b] .. cu_seqlens_k[b + 1] - 1. Q[(t * H + h) * D + d], K and V [(t * Hkv + h / (H / Hkv)) * D + d].
extern "C" void solution(const hj_bfloat16* Q, const hj_bfloat16* K, const hj_bfloat16* V, const int32_t* cu_seqlens_q,
                         const int32_t* cu_seqlens_k, hj_bfloat16* O, size_t B, size_t Tq, size_t Tk, size_t H,
                         size_t Hkv, size_t D) {
    // TODO: for each sequence, head h and query i < q_len: softmax over keys j <= i + k_len - q_len of
    // Q.K / sqrt(D), weighted sum of V rows
}
