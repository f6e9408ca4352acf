#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" void solution(const float* logits, float* weights, int32_t* ids, size_t T, size_t E, size_t topk,
                         int renormalize) {
    // TODO: per row t, softmax over logits[t * E .. + E); ids[t * topk + j] = the j-th largest logit's expert
    // (ties: lower index first); weights = its probability (divided by the chosen ones' sum if renormalize)
}
