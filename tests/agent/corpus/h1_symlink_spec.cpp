// Symlinks planted in the box (the write): plant symlinks in the box where the old harness wrote its files in a later
// phase (spec.json, results.jsonl, the benchmark's input files, the eviction helper), aimed at
// files outside the box: a canary in the agent's workdir by a relative path (resolved against the
// box's host path) and by its absolute path, and a stand-in for the platform's database.
// Contained: the parent never opens a path in a box after user code ran there, and every phase
// has a fresh box. The test checks the targets are untouched and no file appeared.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

static void plant(const std::string& name, const char* target) {
    unlink(name.c_str());
    symlink(target, name.c_str());
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    mkdir("/box/bench0", 0755);
    mkdir("/box/bench0/A", 0755);
    mkdir("/box/test0", 0755);
    mkdir("/box/test0/A", 0755);
    for (const char* name : {"spec.json", "results.jsonl", "solution.so", "evict.so", "libhjemu.so"})
        plant(std::string("/box/") + name, "../../../hj-canary");
    plant("/box/bench0/A/in_a.npy", "@CANARY@");
    plant("/box/test0/A/out_c.npy", "../../../../../hj-canary");
    plant("/box/bench0/A/in_b.npy", "../../../../../var/db.sqlite3");
    plant("/box/bench0/B", "@HOST_DIR@");
}
