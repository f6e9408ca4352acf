// expect: CHECKED
// problem: vector-add
// cudaLaunchKernel with an argument array (the runtime header's typed overload), as wrappers launch.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    void* args[] = {&a, &b, &c, &n};
    cudaLaunchKernel(add, dim3((unsigned)((n + 127) / 128)), dim3(128), args, 0, 0);
}
