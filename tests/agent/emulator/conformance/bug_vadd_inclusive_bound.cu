// expect: RUNTIME_ERROR: out-of-bounds read of device buffer 'a'
// problem: vector-add
// cases: n=1000
// `i <= n`: the thread at index n reads one element past the end of every input.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i <= n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 256) / 256), 256>>>(a, b, c, n);
}
