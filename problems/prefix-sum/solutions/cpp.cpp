#include <cstddef>

extern "C" void solution(const int* input, int* output, size_t n) {
    int running = 0;
    for (size_t i = 0; i < n; ++i) {
        running += input[i];
        output[i] = running;
    }
}
