// Talk on the judge's control channel: find the socket among the process's descriptors and send it
// a 100 KiB message, then a made-up end-of-call message, before doing any work. Contained: the
// parent reads each message into a fixed buffer and refuses one that does not fit or does not
// follow the protocol; nothing the child sends is parsed as text or JSON.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    std::string big(100 << 10, 'D');
    char done[1 + 13] = {'D'};
    uint32_t seq = 0xFFFFFFFFu;
    std::memcpy(done + 1, &seq, 4);
    for (int fd = 3; fd < 64; ++fd) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
        send(fd, big.data(), big.size(), MSG_DONTWAIT);
        send(fd, done, sizeof done, MSG_DONTWAIT);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
