// Memory through tmpfs: write 16 MiB files to /tmp and /dev/shm until a write fails (at most
// 8 GiB each). Both are tmpfs of a fixed size inside the sandbox, and their pages count against
// the sandbox's memory cap. c[0] reports how many MiB were written in all.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

static long fill(const char* dir) {
    static char chunk[1 << 20];
    std::memset(chunk, 'x', sizeof chunk);
    long mib = 0;
    char path[64];
    for (int f = 0; f < 512; ++f) {
        std::snprintf(path, sizeof path, "%s/f%d", dir, f);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) return mib;
        for (int i = 0; i < 16; ++i) {
            if (write(fd, chunk, sizeof chunk) != static_cast<ssize_t>(sizeof chunk)) { close(fd); return mib; }
            ++mib;
        }
        close(fd);
    }
    return mib;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    long mib = fill("/tmp") + fill("/dev/shm");
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[0] = static_cast<float>(mib);
}
