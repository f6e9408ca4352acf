// Shrink the memory the judge shares with the kernel's process (ftruncate on every memfd it holds,
// after trying to remove the seals), hoping the parent's own mapping faults (SIGBUS) and the agent
// dies. Contained: the parent seals its memfds against shrinking and growing, and the seals
// cannot be removed; the job goes on and passes.
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (int fd = 3; fd < 64; ++fd) {
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len <= 0) continue;
        target[len] = '\0';
        if (std::strncmp(target, "/memfd:", 7) != 0) continue;
        fcntl(fd, F_ADD_SEALS, 0);
        ftruncate(fd, 0);
        ftruncate(fd, LONG_MAX / 2);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
