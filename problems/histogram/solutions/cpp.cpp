#include <cstddef>

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    for (int b = 0; b < bins; ++b) hist[b] = 0;
    for (size_t i = 0; i < n; ++i) {
        const int v = data[i];
        if ((unsigned)v < (unsigned)bins) ++hist[v];
    }
}
