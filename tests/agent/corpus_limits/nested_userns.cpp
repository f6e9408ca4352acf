// Nested user namespaces: unshare a user, network and UTS namespace (which would hand the
// kernel every capability inside them), then sethostname; also a mount, setns into another
// namespace, io_uring, bpf and the keyring. Each success sets a bit; the result is right only
// when every attempt failed.
#include <cstddef>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    int got = 0;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWUTS) == 0) got |= 1;
    if (sethostname("x", 1) == 0) got |= 2;
    if (mount("none", "/tmp", "tmpfs", 0, nullptr) == 0) got |= 4;
    int ns = open("/proc/1/ns/net", O_RDONLY);
    if (ns >= 0 && setns(ns, 0) == 0) got |= 8;
    char params[120] = {0};
    if (syscall(SYS_io_uring_setup, 4, params) >= 0) got |= 16;
    char attr[128] = {0};
    if (syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof attr) >= 0) got |= 32;
    if (syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 1) >= 0) got |= 64;
    if (unshare(CLONE_NEWNS) == 0) got |= 128;
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (got) c[0] = 1000.0f + got;
}
