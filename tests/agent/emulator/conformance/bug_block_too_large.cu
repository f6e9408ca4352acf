// expect: RUNTIME_ERROR: invalid configuration argument
// problem: vector-add
// cases: n=1000
// 2048 threads per block: more than any GPU allows, the launch fails and nothing runs.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 2047) / 2048), 2048>>>(a, b, c, n);
}
