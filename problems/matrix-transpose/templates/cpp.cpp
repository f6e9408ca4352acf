#include <cstddef>

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    // TODO: output[j * rows + i] = input[i * cols + j]
}
