// Sleep past the limit: 30 s in the first call, longer than the test's 3 s check limit.
#include <cstddef>
#include <time.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    struct timespec nap = {30, 0};
    nanosleep(&nap, nullptr);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
