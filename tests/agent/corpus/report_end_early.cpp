// Report the end of a call before its work is done, in pure C: on the benchmark's 2^22 case the
// last quarter of the output is left to a thread that runs after solution() returns. The old child
// measured the call itself and never looked again. Caught: the outputs are poisoned before every
// call and sampled the moment its end is reported.
#include <cstddef>
#include <thread>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const size_t now = n == (size_t(1) << 22) ? n - n / 4 : n;
    for (size_t i = 0; i < now; ++i) c[i] = a[i] + b[i];
    if (now < n)
        std::thread([=] { for (size_t i = now; i < n; ++i) c[i] = a[i] + b[i]; }).detach();
}
