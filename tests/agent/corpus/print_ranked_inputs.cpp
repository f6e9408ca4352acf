// Tries to learn the secret ranked inputs: on a size no public case has, it prints the inputs to
// stdout and stderr under a marker and exits, hoping the verdict quotes what it printed.
// Caught: the ranked pass never shows what the program printed or said; the owner reads that it
// failed (RUNTIME_ERROR; not even the exit code 3, which a kernel could choose by the inputs) and
// nothing of the inputs. The test looks for the marker in every event.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    if (n > 65537 && (n & (n - 1)) != 0) {
        for (int i = 0; i < 8; ++i) {
            std::printf("LEAKED-INPUT %zu %.9g %.9g\n", (size_t)i, a[i], b[i]);
            std::fprintf(stderr, "LEAKED-INPUT %zu %.9g %.9g\n", (size_t)i, a[i], b[i]);
        }
        std::fflush(nullptr);
        _exit(3);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
