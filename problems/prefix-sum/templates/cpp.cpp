#include <cstddef>

extern "C" void solution(const int* input, int* output, size_t n) {
    // TODO: output[i] = input[0] + ... + input[i]
}
