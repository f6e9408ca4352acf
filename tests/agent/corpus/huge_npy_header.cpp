// Write output files whose .npy header declares a multi-terabyte shape where the old parent loaded
// the kernel's outputs from (np.load raised MemoryError past its kill()). Now outputs are read from
// shared memory the parent sized itself; the files are never opened.
#include <cstddef>
#include <initializer_list>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

static void write_npy(const char* path) {
    const char header[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }";
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    size_t len = std::strlen(header) + 1;
    pre[8] = (unsigned char)(len & 0xff);
    pre[9] = (unsigned char)(len >> 8);
    if (FILE* f = std::fopen(path, "wb")) {
        std::fwrite(pre, 1, 10, f);
        std::fwrite(header, 1, len - 1, f);
        std::fputc('\n', f);
        std::fclose(f);
    }
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (const char* dir : {"/box/test0", "/box/test0/A", "/box/bench0", "/box/bench0/B"}) mkdir(dir, 0755);
    for (const char* path : {"/box/test0/A/out_c.npy", "/box/bench0/B/out_c.npy", "/box/out_c.npy"}) write_npy(path);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
