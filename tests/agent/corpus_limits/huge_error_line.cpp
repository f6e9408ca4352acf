// An unbounded channel into the agent and the platform: write one 60 MiB "error" result line
// where the harness once read them (the box; the parent now reads nothing there) and the same to
// stderr, then abort. The verdict is RUNTIME_ERROR either way; what the test checks is that no
// event (and so neither the database nor SSE) carries more than the caps.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const size_t size = 60u << 20;
    char* text = static_cast<char*>(std::malloc(size + 1));
    std::memset(text, 'x', size);
    text[size] = '\0';
    if (FILE* f = std::fopen("/box/results.jsonl", "a")) {
        std::fprintf(f, "{\"event\":\"error\",\"index\":0,\"error\":\"%s\"}\n", text);
        std::fclose(f);
    }
    std::fputs(text, stderr);
    std::abort();
}
