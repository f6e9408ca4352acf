// Finding 1's second way, in pure C: the kernel relays its control channel (see relay_precompute)
// and, each time it forwards an end of call, queues one more for the next call, before that call's
// GO. The old judge took it as the next call's end and, finding no kernel stamp after the start,
// timed the call by its own receipt: a matmul "took" 20-35 us. Now a message waiting when the
// parent pauses the child before a timed call, or an end stamped before its call started, is
// refused, never timed. Only the benchmark's large case is attacked, so the public tests pass.
// Expected: refused (the protocol broken, or the call's output still poisoned when a forged end
// arrived during an untimed warm-up): never ACCEPTED.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {
std::atomic<const float*> A{nullptr}, B{nullptr};
std::atomic<float*> C{nullptr};
std::atomic<size_t> N{0};
int upstream = -1, inner = -1;

int control_fd() {  // python -P -S -m agent.harness.child DEVICE CONTROL_FD ...
    char args[4096] = {0};
    FILE* f = std::fopen("/proc/self/cmdline", "rb");
    size_t got = f ? std::fread(args, 1, sizeof args - 1, f) : 0;
    if (f) std::fclose(f);
    for (size_t at = 0; at < got; at += std::strlen(args + at) + 1)
        if (std::strcmp(args + at, "agent.harness.child") == 0) {
            at += std::strlen(args + at) + 1;
            at += std::strlen(args + at) + 1;  // the device
            return std::atoi(args + at);
        }
    return -1;
}

void relay() {
    char message[8192];
    pollfd fds[2] = {{upstream, POLLIN, 0}, {inner, POLLIN, 0}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) continue;
        if (fds[0].revents) {
            ssize_t got = recv(upstream, message, sizeof message, 0);
            if (got <= 0) _exit(0);
            if (message[0] == 'C') N = 0;  // a new case: its buffers are elsewhere
            send(inner, message, got, 0);
        }
        if (fds[1].revents) {
            ssize_t got = recv(inner, message, sizeof message, 0);
            if (got <= 0) _exit(0);
            send(upstream, message, got, 0);
            if (message[0] == 'D' && got >= 14 && N.load() == (size_t(1) << 22)) {  // the next call's end, now
                std::uint32_t seq;
                std::memcpy(&seq, message + 1, 4);
                seq += 1;
                std::memcpy(message + 1, &seq, 4);
                send(upstream, message, 14, 0);
            }
        }
    }
}

void take_over_the_channel() {
    int control = control_fd();
    int pair[2];
    if (control < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) return;
    upstream = dup(control);
    dup2(pair[0], control);
    inner = pair[1];
    std::thread(relay).detach();
}
}  // namespace

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool taken = false;
    if (!taken) {
        take_over_the_channel();
        taken = true;
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    A = a;
    B = b;
    C = c;
    N = n;
}
