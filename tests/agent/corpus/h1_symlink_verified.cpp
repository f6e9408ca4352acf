// Symlinks planted in the box (the touch): during the benchmark, replace the case folder's `verified` mark, which the
// old parent touched after checking a case, by a symlink to a host path that does not exist yet.
// Contained: the parent touches nothing in the box; the host file never appears.
#include <cstddef>
#include <initializer_list>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    for (const char* dir : {"/box/bench0", "/box/bench1"}) {
        mkdir(dir, 0755);
        char mark[64];
        snprintf(mark, sizeof mark, "%s/verified", dir);
        unlink(mark);
        symlink("@HOST_DIR@/hj-canary2", mark);
    }
}
