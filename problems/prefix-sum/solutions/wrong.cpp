#include <cstddef>

// Computes the exclusive scan (sum of the elements before i) instead of the inclusive one.
extern "C" void solution(const int* input, int* output, size_t n) {
    int running = 0;
    for (size_t i = 0; i < n; ++i) {
        output[i] = running;
        running += input[i];
    }
}
