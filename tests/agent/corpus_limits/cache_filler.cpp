// Compile cache growth: an 8 MiB initialised static array and a comment that differs in every
// submission (@NONCE@), so that every compile is a new cache entry of about 8 MiB.
#include <cstddef>

static char filler[8u << 20] = {1};

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i] + filler[i % 2] * 0.0f;
}
