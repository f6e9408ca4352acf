#include <cstddef>
#include <cstdint>

extern "C" void solution(const float* probs, const int32_t* top_k, const float* top_p, const float* uniforms,
                         int32_t* token, size_t B, size_t V) {
    // TODO: for every row b, order the tokens by probability (largest first, ties to the lower id),
    // keep the first top_k[b], keep the shortest prefix whose sum reaches top_p[b] times the kept
    // sum, and return the first token whose running sum exceeds uniforms[b] times that prefix's sum.
}
