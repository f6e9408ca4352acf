#include <cmath>
#include <cstddef>

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    // TODO: for each row: m = max, s = sum of exp(x - m), output = exp(x - m) / s
}
