// Sockets the network namespace does not cover: AF_VSOCK reaches the VM's own port space and, on a
// cloud VM, the hypervisor (CID 2); netlink, packet and crypto sockets are kernel surface; inet
// sockets have only a loopback of their own. The sandbox's filter allows AF_UNIX alone. c[0] counts
// the sockets made. Expected: WRONG_ANSWER with c[0] = 0.
#include <cstddef>
#include <initializer_list>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    const int families[] = {AF_VSOCK, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_ALG};
    int made = 0;
    for (int family : families)
        for (int type : {SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET}) {
            int fd = socket(family, type, 0);
            if (fd >= 0) {
                ++made;
                close(fd);
            }
        }
    int pair[2];
    if (socketpair(AF_INET, SOCK_STREAM, 0, pair) == 0) ++made;
    c[0] = static_cast<float>(made);
}
