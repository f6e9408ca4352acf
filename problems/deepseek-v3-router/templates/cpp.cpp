#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* x, const hj_bfloat16* W, const float* bias, float* weights, int32_t* ids,
                         size_t T, size_t H) {
    // TODO, for every token t: logits[e] = sum over k of float(x[t * H + k]) * float(W[e * H + k]) (256 experts);
    // score = 1 / (1 + exp(-logit)), choice = score + bias; 8 groups of 32 experts scored by the sum of their
    // two largest choices; the 4 best groups; the 8 largest choices in them (ties: the lower index);
    // ids[t * 8 + j] those experts in increasing order, weights[t * 8 + j] = score / (sum of the 8 scores) * 2.5
}
