// Sabotage the host device's cache eviction: during the tests, put a directory where the old judge
// copied its eviction helper before the benchmark, hoping the benchmark runs with warm caches (or
// that the judge crashes). Contained: the helper lives in the parent, which evicts the buffers
// itself; every benchmark case still reports its buffers evicted.
#include <cstddef>
#include <cstdio>
#include <sys/stat.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    mkdir("/box/evict.so", 0755);
    if (FILE* f = std::fopen("/box/evict.so/planted", "w")) std::fclose(f);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
