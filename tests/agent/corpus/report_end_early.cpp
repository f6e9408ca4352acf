// Report the end of a call before its work is done, in pure C: on the benchmark's 2^22 case the
// last quarter of the output is left to a thread that runs after solution() returns. The old child
// measured the call itself and never looked again. Caught: the outputs are poisoned before every
// call and sampled the moment its end is reported. The thread waits 200 ms first: on a busy machine
// the parent may look only milliseconds after the end, and work finished by then leaves no poison
// to see (README "Anti-cheat": then the timing bounds alone hold).
#include <chrono>
#include <cstddef>
#include <thread>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const size_t now = n == (size_t(1) << 22) ? n - n / 4 : n;
    for (size_t i = 0; i < now; ++i) c[i] = a[i] + b[i];
    if (now < n)
        std::thread([=] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            for (size_t i = now; i < n; ++i) c[i] = a[i] + b[i];
        }).detach();
}
