// Read another job's files: by their host path, relative to the box, and by listing the box's
// parent. Seeing the secret (or the other job's directory name) poisons the result.
#include <cstddef>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

static bool readable(const char* path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    char buf[64];
    bool got = read(fd, buf, sizeof buf) > 0;
    close(fd);
    return got;
}

static bool listed(const char* dir, const char* name) {
    DIR* d = opendir(dir);
    if (!d) return false;
    bool found = false;
    while (dirent* entry = readdir(d)) found |= std::strcmp(entry->d_name, name) == 0;
    closedir(d);
    return found;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    bool leaked = readable("@OTHER_JOB_PATH@") || readable("/box/../@OTHER_JOB@/secret.txt") ||
                  readable("../@OTHER_JOB@/secret.txt") || readable("/box/../../@OTHER_JOB@/secret.txt") ||
                  listed("/box/..", "@OTHER_JOB@") || listed("/box/..", "jobs");
    for (size_t i = 0; i < n; ++i) c[i] = leaked ? 12345.0f : a[i] + b[i];
}
