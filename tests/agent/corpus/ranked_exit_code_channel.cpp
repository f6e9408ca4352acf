// Spell the secret ranked inputs through the exit status: on the ranked shape, exit with a code made
// of the first input's bits (or die of a signal chosen by them), hoping the verdict quotes it.
// Expected: RUNTIME_ERROR saying only that the program failed in the ranked case, not how.
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (n != 3000017) return;
    uint32_t bits;
    std::memcpy(&bits, a, 4);
    if (bits & 1) raise((bits >> 1) & 1 ? SIGSEGV : SIGFPE);
    _exit(static_cast<int>((bits >> 2) & 0xFF) | 1);
}
