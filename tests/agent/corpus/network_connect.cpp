// Network: connect to a TCP port the test listens on at 127.0.0.1 on the host (and send a line).
// If the connection succeeds the result is garbage, so ACCEPTED/CHECKED proves there was none.
#include <cstddef>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static bool reached_host() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(@PORT@);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (ok) {
        const char msg[] = "escaped the sandbox\n";
        ok = write(fd, msg, sizeof msg - 1) > 0;
    }
    close(fd);
    return ok;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    bool leaked = reached_host();
    for (size_t i = 0; i < n; ++i) c[i] = leaked ? 12345.0f : a[i] + b[i];
}
