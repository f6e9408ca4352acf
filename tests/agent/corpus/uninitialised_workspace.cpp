// Reads memory it never initialised: on sizes that are neither small nor a power of two (no public
// case has one) it adds a workspace it assumes is zero. The workspace comes from malloc and, being
// large, from fresh pages that are zero the first time; the kernel then leaves its last result in
// it, so every later call reads stale values.
// Caught: the ranked pass's determinism check runs the kernel twice on the same inputs: the first
// result is right, the second differs from it (WRONG_ANSWER, "not deterministic").
#include <cstddef>
#include <cstdlib>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static float* workspace = nullptr;
    static size_t size = 0;
    if (n <= 65537 || (n & (n - 1)) == 0) {
        for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
        return;
    }
    if (size != n) {
        std::free(workspace);
        workspace = static_cast<float*>(std::malloc(n * sizeof(float)));
        size = n;
    }
    for (size_t i = 0; i < n; ++i) {
        c[i] = a[i] + b[i] + workspace[i];
        workspace[i] = c[i];
    }
}
