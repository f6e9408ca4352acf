// Flood stdout and stderr: up to 256 MiB of text, far beyond any sensible log. The sandbox's
// file-size limit makes the writes fail (EFBIG) once the log is full; the kernel then reports how
// many MiB got through as c[0] and leaves the rest unwritten, so the verdict is WRONG_ANSWER and
// the judge's summary carries the output, of which it keeps only the last output_kb.
#include <cstddef>
#include <cstring>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static char block[1 << 20];
    std::memset(block, 'x', sizeof block);
    block[sizeof block - 1] = '\n';
    size_t written = 0;
    for (int i = 0; i < 256; ++i) {
        ssize_t got = write(i % 2 ? 2 : 1, block, sizeof block);
        if (got <= 0) break;
        written += static_cast<size_t>(got);
    }
    c[0] = static_cast<float>(written >> 20);
}
