// expect: CHECKED
// problem: vector-add
// A grid-stride loop over a fixed grid of 120 blocks (a multiple of MI300X's CUs).
#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    hipLaunchKernelGGL(add, dim3(120), dim3(256), 0, 0, a, b, c, n);
}
