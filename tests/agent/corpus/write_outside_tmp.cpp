// Write outside /tmp: create files on host paths (the test's tmp dir, the agent package, the
// Python tree, /usr, the agent's compile cache and the agents' shared builds). Any success poisons
// the result; the test also checks that none of the files exists afterwards.
#include <cstddef>
#include <fcntl.h>
#include <unistd.h>

static const char* const TARGETS[] = {
    "@PATH@",
    "@AGENT_DIR@/pwned.py",
    "/opt/hipjudge/agent/pwned.py",
    "@PYTHON_PREFIX@/pwned-by-hipjudge-corpus",
    "@CACHE_DIR@/pwned.so",
    "@BUILD_DIR@/pwned.so",  // the agents' shared builds (the emulator's runtime): a plant there would reach every agent
    "/usr/pwned-by-hipjudge-corpus",
};

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    bool wrote = false;
    for (const char* path : TARGETS) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            wrote |= write(fd, "pwned\n", 6) == 6;
            close(fd);
        }
    }
    for (size_t i = 0; i < n; ++i) c[i] = wrote ? 12345.0f : a[i] + b[i];
}
