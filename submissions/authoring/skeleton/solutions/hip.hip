#include <hip/hip_runtime.h>

__global__ void scale_add(const float* x, const float* y, float* z, float alpha, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) z[i] = alpha * x[i] + y[i];
}

extern "C" void solution(const float* x, const float* y, float* z, float alpha, size_t n) {
    const int threads = 256;
    size_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535) blocks = 65535;
    hipLaunchKernelGGL(scale_add, dim3((unsigned)blocks), dim3(threads), 0, 0, x, y, z, alpha, n);
}
