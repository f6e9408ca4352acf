// Write just before the start of the output (an index computed as i - 1 without a check), and
// far past its end by a stride: both land in the guard zones around the buffer.
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[-1] = 1.0f;
}
