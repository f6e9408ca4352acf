#include <hipjudge/lowp.h>  // hj_bfloat16, hj_fp8_e4m3fnuz: storage, convert to and from float

#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* q, const hj_fp8_e4m3fnuz* k_cache, const hj_fp8_e4m3fnuz* v_cache,
                         const int32_t* block_table, const int32_t* seq_lens, hj_bfloat16* out, size_t B, size_t Hq,
                         size_t Hkv, size_t P, float scale, float k_scale, float v_scale) {
    // TODO: for every sequence b and query head h (KV head h / (Hq / Hkv)): the scores
    // scale * q[b][h] . k_j over its tokens j < seq_lens[b] (token j: page block_table[b][j / 16],
    // row j % 16; k_j = k_scale * its fp8 keys), their softmax, and out[b][h] = the weighted sum of
    // the values v_j (v_scale * its fp8 values)
}
