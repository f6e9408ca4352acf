// Fork bomb: every process forks 12 times (4095 forks if nothing stops it), then waits forever.
// A shared counter records how many forks succeeded; the first caller reports it as c[0], so the
// verdict (WRONG_ANSWER "c[0] = <forks>") measures what the sandbox let through: it must be 0.
#include <cstddef>
#include <atomic>
#include <new>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    auto* forks = static_cast<std::atomic<int>*>(
        mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    if (forks == MAP_FAILED) { c[0] = -1.0f; return; }
    new (forks) std::atomic<int>(0);
    const pid_t original = getpid();
    for (int i = 0; i < 12; ++i) {
        pid_t pid = fork();
        if (pid == 0) forks->fetch_add(1);
    }
    if (getpid() != original) {
        for (;;) pause();  // every copy stays alive: only the sandbox can end them
    }
    struct timespec settle = {1, 0};
    nanosleep(&settle, nullptr);  // let the copies finish forking
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[0] = static_cast<float>(forks->load());
}
