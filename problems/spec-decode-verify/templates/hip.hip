#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <stdint.h>

__global__ void verify(const __hip_bfloat16* target_logits, const int32_t* draft_tokens, int32_t* accepted,
                       int32_t* output_tokens, size_t B, size_t K, size_t V) {
    // TODO: for every sequence b, the argmax (first maximum) of target_logits[b][i] for i = 0, 1, ...
    // until it differs from draft_tokens[b][i] or i = K: accepted[b] = that i; output_tokens[b][0..i]
    // = the argmaxes, output_tokens[b][i+1..K] = -1
}

extern "C" void solution(const __hip_bfloat16* target_logits, const int32_t* draft_tokens, int32_t* accepted,
                         int32_t* output_tokens, size_t B, size_t K, size_t V) {
    // All pointers are device pointers. Launch on the default stream.
}
