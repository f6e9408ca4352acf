// An unbounded result channel: the old parent read the results file whole and put the child's "error" strings into
// the verdict verbatim, so a 60 MiB line reached the event stream, the database and every page
// showing the submission. This one writes such a line where the results file was, and also tells
// the output log 60 MiB. Now nothing is read from the box, and the output kept is the capped tail.
#include <cstddef>
#include <cstdio>
#include <string>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool written = false;
    if (!written) {
        written = true;
        std::string huge(60u << 20, 'x');
        if (FILE* f = std::fopen("/box/results.jsonl", "a")) {
            std::fprintf(f, "{\"event\":\"error\",\"index\":0,\"error\":\"%s\"}\n", huge.c_str());
            std::fclose(f);
        }
        std::fwrite(huge.data(), 1, huge.size() / 4, stderr);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
