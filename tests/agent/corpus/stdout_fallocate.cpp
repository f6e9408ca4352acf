// Take the host's disk through stdout: the old judge gave the child a regular file of the host as
// its stdout, where fallocate(FALLOC_FL_KEEP_SIZE) reserved 2 GiB past RLIMIT_FSIZE while the file
// stayed 43 bytes long, and the same descriptor allowed ftruncate and a read back through /proc.
// Now stdout is a pipe the parent drains. c[0] counts what succeeded (fallocate, ftruncate, a
// regular file behind fd 1). Expected: WRONG_ANSWER with c[0] = 0.
#include <cstddef>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    write(1, "hello\n", 6);
    int took = 0;
    took += fallocate(1, FALLOC_FL_KEEP_SIZE, 0, 2L << 30) == 0;
    took += ftruncate(1, 0) == 0;
    struct stat st;
    took += fstat(1, &st) == 0 && S_ISREG(st.st_mode);
    c[0] = static_cast<float>(took);
}
