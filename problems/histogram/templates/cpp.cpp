#include <cstddef>

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    // TODO: clear hist[0..bins), then hist[data[i]] += 1 for every i
}
