#include <cstddef>

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t count = n * m;
    for (size_t i = 0; i < count; ++i) {
        const float x = input[i];
        output[i] = x > 0.0f ? x : alpha * x;
    }
}
