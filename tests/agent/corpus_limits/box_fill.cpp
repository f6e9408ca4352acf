// The run phase's /box, for the disk: write 16 MiB files to /box until a write fails (at most
// 8 GiB), after looking for a way back to the host through it. /box is a private tmpfs of a fixed
// size that only this sandbox sees (nothing of the job's directory on disk is bound there, so
// nothing written can fill the agent's disk or be found by the parent later). c[0] reports the
// MiB written, or -1 when /box is not an empty tmpfs.
#include <cstddef>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

static bool empty_tmpfs(const char* dir) {
    struct statfs info;
    if (statfs(dir, &info) != 0 || info.f_type != 0x01021994) return false;  // TMPFS_MAGIC
    DIR* d = opendir(dir);
    if (d == nullptr) return false;
    int entries = 0;
    while (dirent* e = readdir(d)) entries += std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
    closedir(d);
    return entries == 0;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static char chunk[1 << 20];
    std::memset(chunk, 'x', sizeof chunk);
    long mib = empty_tmpfs("/box") ? 0 : -1;
    char path[32];
    for (int f = 0; mib >= 0 && f < 512; ++f) {
        std::memcpy(path, "/box/f", 7);
        path[6] = static_cast<char>('a' + f % 26);
        path[7] = static_cast<char>('a' + f / 26);
        path[8] = '\0';
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) break;
        bool full = false;
        for (int i = 0; i < 16 && !full; ++i) {
            full = write(fd, chunk, sizeof chunk) != static_cast<ssize_t>(sizeof chunk);
            mib += !full;
        }
        close(fd);
        if (full) break;
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[0] = static_cast<float>(mib);
}
