// Disk and kernel memory through many files: create empty files in /tmp until it fails (at
// most 2 million). An empty file costs no tmpfs space but an inode and a dentry of kernel memory,
// which the sandbox's memory cgroup counts: the sandbox is killed at its cap.
#include <cstddef>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    long made = 0;
    char path[64];
    for (; made < 2000000; ++made) {
        std::snprintf(path, sizeof path, "/tmp/f%ld", made);
        int fd = open(path, O_WRONLY | O_CREAT, 0600);
        if (fd < 0) break;
        close(fd);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[0] = static_cast<float>(made);
}
