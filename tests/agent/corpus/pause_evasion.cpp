// Ways out of the pause that keeps the kernel from running while the parent writes its inputs: a
// process of its own the pause would not know (clone without CLONE_THREAD, vfork, fork), a new
// session and process group (a signal to the old group would miss it), SIGSTOP ignored or blocked.
// The pause signals every process of the sandbox by pid and waits for every thread to stop, SIGSTOP
// cannot be ignored or blocked, and the sandbox's filter refuses new processes. The kernel counts the
// ways that gave it a process outside the pause into c[0]. Expected: WRONG_ANSWER with c[0] = 0.
#include <csignal>
#include <cstddef>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
char stack[64 * 1024];
int idle(void*) { _exit(0); }
}  // namespace

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    int escaped = 0;
    signal(SIGSTOP, SIG_IGN);  // EINVAL: SIGSTOP cannot be caught or ignored
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGSTOP);
    sigprocmask(SIG_BLOCK, &block, nullptr);  // the kernel drops SIGSTOP from the mask
    setsid();
    setpgid(0, 0);
    int pid = clone(idle, stack + sizeof stack, CLONE_VM | CLONE_FS | CLONE_FILES | SIGCHLD, nullptr);
    if (pid > 0) {
        ++escaped;
        waitpid(pid, nullptr, 0);
    }
    pid = vfork();
    if (pid == 0) _exit(0);
    if (pid > 0) {
        ++escaped;
        waitpid(pid, nullptr, 0);
    }
    pid = fork();
    if (pid == 0) _exit(0);
    if (pid > 0) {
        ++escaped;
        waitpid(pid, nullptr, 0);
    }
    c[0] = static_cast<float>(escaped);
}
