#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* target_logits, const int32_t* draft_tokens, int32_t* accepted,
                         int32_t* output_tokens, size_t B, size_t K, size_t V) {
    // TODO: for every sequence b, the argmax (first maximum) of target_logits[b][i] for i = 0, 1, ...
    // until it differs from draft_tokens[b][i] or i = K: accepted[b] = that i; output_tokens[b][0..i]
    // = the argmaxes, output_tokens[b][i+1..K] = -1
}
