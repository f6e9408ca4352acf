// A message nobody asked for, between calls: 1 ms after its first benchmark call returns, a thread
// sends a made-up "ready" on the control channel (every socket of the process, as the channel's
// number is not needed for this). Whatever the parent does at that moment (pausing the child before
// a timed call, or waiting for an end of call), the message is refused: nothing the child sends
// outside a call is read as part of one. Expected: RUNTIME_ERROR, the protocol broken.
#include <chrono>
#include <cstddef>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool sent = false;
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (sent || n != (size_t(1) << 22)) return;
    sent = true;
    std::thread([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        for (int fd = 3; fd < 64; ++fd) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) send(fd, "R", 1, MSG_DONTWAIT);
        }
    }).detach();
}
