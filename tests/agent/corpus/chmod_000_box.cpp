// Make the box hard to clean up and to read: nested directories and files with mode 000, then the
// box itself. The old parent met PermissionError reading its results (when not root); a judge that
// cannot delete a job's folder fills its disk. Contained: the parent reads nothing from the box
// and opens the directories up before deleting them; the test checks the job's folder is gone.
#include <cstddef>
#include <cstdio>
#include <sys/stat.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    mkdir("/box/locked", 0755);
    mkdir("/box/locked/inner", 0755);
    if (FILE* f = std::fopen("/box/locked/inner/file", "w")) std::fclose(f);
    if (FILE* f = std::fopen("/box/results.jsonl", "w")) std::fclose(f);
    chmod("/box/locked/inner/file", 0);
    chmod("/box/locked/inner", 0);
    chmod("/box/locked", 0);
    chmod("/box/results.jsonl", 0);
    chmod("/box", 0);
}
