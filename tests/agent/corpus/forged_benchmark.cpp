// A forged score (a complete forgery): the old child ran in the process of user code and reported every
// time itself, so a kernel could write the outputs of the verified runs, append "done" lines with
// plausible made-up times for every case and leave with exit code 0: ACCEPTED at the top of the
// leaderboard. This one does all of that in the benchmark (recognised by its 2^22 size, which no
// test case has). Now the parent times every call itself and reads nothing from the box: a
// process that leaves in the middle of a call is a runtime error, whatever it wrote.
#include <cstddef>
#include <initializer_list>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (n != (size_t(1) << 22)) return;
    mkdir("/box/bench0", 0755);
    if (FILE* out = std::fopen("/box/bench0/out_c_run0.npy", "wb")) {
        std::fwrite(c, sizeof(float), n, out);
        std::fclose(out);
    }
    if (FILE* results = std::fopen("/box/results.jsonl", "a")) {
        for (int k = 0; k < 2; ++k)
            std::fprintf(results, "{\"event\": \"done\", \"index\": %d, \"times_ms\": [0.03, 0.03, 0.03], "
                         "\"walls_ms\": [0.031, 0.031, 0.031], \"fresh_ms\": [0.03, 0.03], "
                         "\"fresh_walls_ms\": [0.031, 0.031], \"inputs_modified\": [], \"flush_bytes\": 0, "
                         "\"verified\": [{\"run\": 0, \"mutations\": {}}]}\n", k);
        std::fprintf(results, "{\"event\": \"finished\"}\n");
        std::fclose(results);
    }
    _exit(0);
}
