// expect: RUNTIME_ERROR: __trap()
// problem: vector-add
// cases: n=65537
// A kernel that traps on sizes its author did not plan for.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    if (n > 65536) __trap();
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
