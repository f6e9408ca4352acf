#include <cstddef>

// Off by one: the last element is never written.
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i + 1 < n; ++i) c[i] = a[i] + b[i];
}
