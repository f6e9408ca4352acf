// Hard-link files from outside the box into it (the agent's own code, the Python interpreter, the
// compiler) and write through the links, and link the box's files to each other, hoping the parent
// later writes through one of them. Contained: a link across the sandbox's mounts fails (EXDEV),
// the bound trees are read-only, and the parent writes nothing into a box after user code ran.
// Any link that worked outside the box makes the output wrong; the test checks the agent's files.
#include <cstddef>
#include <initializer_list>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

static const char* const SOURCES[] = {
    "/opt/hipjudge/agent/harness/child.py", "/opt/hipjudge/agent/judging/phase.py", "@AGENT_DIR@/harness/child.py",
    "/usr/bin/g++", "/proc/self/exe",
};

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    bool linked = false;
    int k = 0;
    for (const char* source : SOURCES) {
        char name[64];
        snprintf(name, sizeof name, "/box/link%d", k++);
        if (link(source, name) == 0) {
            linked = true;
            int fd = open(name, O_WRONLY | O_APPEND);
            if (fd >= 0) {
                write(fd, "# pwned\n", 8);
                close(fd);
            }
        }
    }
    int fd = open("/box/own", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
    for (const char* name : {"/box/spec.json", "/box/results.jsonl", "/box/solution.so"}) link("/box/own", name);
    for (size_t i = 0; i < n; ++i) c[i] = linked ? 12345.0f : a[i] + b[i];
}
