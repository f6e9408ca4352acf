// Kill what it can: its parent, pid 1, and kill(-1) (every process it may signal), with SIGKILL.
// Inside the sandbox's pid namespace none of this reaches the agent; the job itself still ends
// with a verdict and the agent goes on judging.
#include <cstddef>
#include <signal.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    kill(getppid(), SIGKILL);
    kill(1, SIGKILL);
    kill(-1, SIGKILL);
}
