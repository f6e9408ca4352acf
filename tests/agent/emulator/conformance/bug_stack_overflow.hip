// expect: RUNTIME_ERROR: stack overflow
// problem: vector-add
// cases: n=1000
// A 256 KiB local array per thread: far beyond what a GPU thread's private memory holds here.
#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    float scratch[65536];
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (int k = 0; k < 65536; ++k) scratch[k] = (float)k;
    if (i < n) c[i] = a[i] + b[i] + scratch[i % 7] - scratch[i % 7];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
