// expect: COMPILE_ERROR: <hip/hip_ext.h> is not provided by the emulated device
// problem: vector-add
// judge: agent
// hip_ext.h (hipExtLaunchKernelGGL) is not among the emulated device's headers: the machine's own
// ROCm header (Debian's hipcc puts one in /usr/include/hip) must never stand in for it.
#include <hip/hip_runtime.h>
#include <hip/hip_ext.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    hipExtLaunchKernelGGL(add, dim3((unsigned)((n + 255) / 256)), dim3(256), 0, 0, nullptr, nullptr, 0, a, b, c, n);
}
