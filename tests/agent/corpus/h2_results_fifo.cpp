// A judge that hangs forever (the hang): replace the results file the old parent opened with a FIFO nobody writes,
// so that its open() blocked forever, past every limit. Now nothing reads files from the box: the
// check ends at once with the right verdict.
#include <cstddef>
#include <initializer_list>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (const char* path : {"/box/results.jsonl", "/box/spec.json", "/box/out_c.npy"}) {
        unlink(path);
        mkfifo(path, 0600);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
