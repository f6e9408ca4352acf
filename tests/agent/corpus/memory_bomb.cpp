// Memory bomb: allocate and touch 64 MiB blocks, up to 8 GiB. Under the sandbox's address-space
// limit `new` throws std::bad_alloc, which cannot cross the C boundary: the process aborts.
#include <cstddef>
#include <cstring>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const size_t block = 64u << 20;
    for (int i = 0; i < 128; ++i) {
        char* p = new char[block];
        std::memset(p, i + 1, block);
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
