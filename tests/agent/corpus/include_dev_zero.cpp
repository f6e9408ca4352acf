// A compiler bomb: include an endless file. The compile time limit stops it.
#include "/dev/zero"
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
