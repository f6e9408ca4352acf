#include <cstddef>

// Unrolled by eight but forgets the tail: the last n % 8 elements are never added.
extern "C" void solution(const float* input, float* output, size_t n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) acc[k] += input[i + k];
    float total = 0.0f;
    for (int k = 0; k < 8; ++k) total += acc[k];
    output[0] = total;
}
