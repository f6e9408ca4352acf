// Pass file descriptors to the judge over its control channel (SCM_RIGHTS), 250 at a time, hoping
// to exhaust the agent's descriptor table. Contained: the parent leaves no room for descriptors in
// its receive buffer, so the kernel closes them, and the message is refused. The test checks the
// agent's own descriptor count.
#include <cstddef>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    constexpr int kFds = 250;
    int fds[kFds];
    for (int i = 0; i < kFds; ++i) fds[i] = dup(2);
    char data = 'B';
    iovec iov{&data, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(cm), fds, sizeof fds);
    for (int fd = 3; fd < 64; ++fd) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) sendmsg(fd, &msg, MSG_DONTWAIT);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
