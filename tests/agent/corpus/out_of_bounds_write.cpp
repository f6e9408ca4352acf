// Issue 10 item 4: the commonest GPU bug, on the host: a loop that runs one element too far and
// writes past the end of the output (c[n]). The old judge accepted it. Now guard zones of canary
// bytes surround every buffer and are checked after every call: RUNTIME_ERROR naming the buffer
// and how far past its end the kernel wrote.
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i <= n; ++i) c[i] = i < n ? a[i] + b[i] : 0.0f;
}
