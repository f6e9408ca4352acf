// expect: COMPILE_ERROR: bug_inline_asm.hip:8:5: error: inline assembly is not modelled by the emulated device
// problem: vector-add
// GCN inline assembly: the emulated device has no AMD instruction set.
#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    asm volatile("s_waitcnt vmcnt(0)" ::: "memory");
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
