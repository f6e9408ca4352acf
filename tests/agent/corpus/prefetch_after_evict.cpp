// Defeat the eviction: a thread keeps reading the inputs in a loop, so that whatever the parent
// flushes before a timed call is back in the cache when the call starts (worth a memory-bound
// kernel's whole time on the host). The parent evicts while the child is paused, every thread of
// it, and resumes it only with the clock running: the thread refills the cache on timed time, in
// competition with the kernel. Expected: ACCEPTED, gaining nothing (bench/attacks.py).
#include <atomic>
#include <cstddef>
#include <mutex>
#include <thread>

namespace {
std::mutex lock;
const float* A = nullptr;
const float* B = nullptr;
size_t N = 0;  // one case's buffers at a time: they stay mapped for the whole phase
std::atomic<float> sink{0};

void keep_warm() {
    for (;;) {
        const float *a, *b;
        size_t n;
        {
            std::lock_guard<std::mutex> hold(lock);
            a = A, b = B, n = N;
        }
        float sum = 0;
        for (size_t i = 0; i < n; i += 16) sum += a[i] + b[i];  // a cache line of each
        sink = sum;
    }
}
}  // namespace

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool started = false;
    {
        std::lock_guard<std::mutex> hold(lock);
        A = a, B = b, N = n;
    }
    if (!started) {
        std::thread(keep_warm).detach();
        started = true;
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
