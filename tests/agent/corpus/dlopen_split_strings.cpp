// Dodging the forbidden-pattern rules: a library the rules forbid, loaded at run time under a name split in two string
// literals (no rule's regular expression sees "rocblas"), its function looked up by a split name.
// Caught: the compiled library imports dlopen and dlsym, which no solution may call
// (agent/judging/imports.py): COMPILE_ERROR before anything runs.
#include <cstddef>
#include <dlfcn.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    if (void* library = dlopen("libroc" "blas.so", RTLD_NOW)) {
        if (void* saxpy = dlsym(library, "roc" "blas_saxpy")) (void)saxpy;
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
