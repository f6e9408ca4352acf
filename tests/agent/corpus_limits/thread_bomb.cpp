// Threads: start threads with the smallest stacks until one fails (at most 20000). Threads
// are allowed by design, but RLIMIT_NPROC does not bind root: the sandbox's pids cgroup must. The
// threads park forever; c[0] reports how many started.
#include <cstddef>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

static void* park(void*) {
    for (;;) pause();
    return nullptr;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
    int started = 0;
    for (; started < 20000; ++started) {
        pthread_t t;
        if (pthread_create(&t, &attr, park, nullptr) != 0) break;
        pthread_detach(t);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    c[0] = static_cast<float>(started);
}
