// Modify an input: cast away const and zero the first element of `a` after computing the result.
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    const_cast<float*>(a)[0] = 0.0f;
}
