#include <cstddef>

// Forgets the multiplication: negative inputs become alpha instead of alpha * x.
extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t count = n * m;
    for (size_t i = 0; i < count; ++i) output[i] = input[i] > 0.0f ? input[i] : alpha;
}
