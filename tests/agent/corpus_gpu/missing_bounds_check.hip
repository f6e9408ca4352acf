// problem: vector-add
// case: n=1000
// expect: fault: out-of-bounds read of device buffer 'a' (4000 bytes) at byte 4000 (1 element past the end), in kernel vector_add, block (3,0,0) thread (232,0,0)
// The grid is rounded up to whole blocks but the kernel has no `if (i < n)`: the last block reads
// past the end. A GPU usually reads some neighbouring memory and passes; the emulator stops at the
// first element past the end.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const int threads = 256;
    hipLaunchKernelGGL(vector_add, dim3((n + threads - 1) / threads), dim3(threads), 0, 0, a, b, c, n);
}
