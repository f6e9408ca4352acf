// Plant, during the tests, files that a later phase or a later job might load or trust: a Python
// module shadowing the harness (python -m puts the working directory first on sys.path), Python's
// startup hooks, a replacement solution and eviction helper, the emulator's runtime, .npy inputs.
// In the benchmark (2^22, a size no test has) any file planted by a test (65537, a size no
// benchmark has) still in sight makes the output wrong. Contained: each phase gets a fresh box, the harness runs with `python -P`, and the
// libraries a child loads come as sealed memfds.
#include <cstddef>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

static const char* const PLANTED[] = {
    "/box/agent/__init__.py", "/box/agent/harness/__init__.py", "/box/agent/harness/child.py",
    "/box/sitecustomize.py", "/box/usercustomize.py",
    "/box/solution.so", "/box/evict.so", "/box/libhjemu.so", "/box/bench0/A/in_a.npy", "/tmp/planted",
};

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    bool seen = false;
    if (n == (size_t(1) << 22)) {
        for (const char* path : PLANTED) seen |= access(path, F_OK) == 0;
    } else if (n == 65537) {
        mkdir("/box/agent", 0755);
        mkdir("/box/agent/harness", 0755);
        mkdir("/box/bench0", 0755);
        mkdir("/box/bench0/A", 0755);
        for (const char* path : PLANTED)
            if (FILE* f = std::fopen(path, "w")) {
                std::fputs("import os\nos._exit(7)\n", f);
                std::fclose(f);
            }
    }
    for (size_t i = 0; i < n; ++i) c[i] = seen ? 12345.0f : a[i] + b[i];
}
