// A judge that returns while its sandbox runs on (the orphan): a result line nested deeper than Python's recursion limit made the old
// parent raise past its kill(), and the sandbox then ran on beside the next job. Here the line is
// written and the call never returns. Now no JSON from the child is parsed at all: the call hits
// the wall clock, the watchdog kills the sandbox, and no process of the job survives.
#include <cstddef>
#include <cstdio>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    if (FILE* f = std::fopen("/box/results.jsonl", "a")) {
        for (int i = 0; i < 200000; ++i) std::fputc('[', f);
        for (int i = 0; i < 200000; ++i) std::fputc(']', f);
        std::fputc('\n', f);
        std::fclose(f);
    }
    for (;;) pause();
}
