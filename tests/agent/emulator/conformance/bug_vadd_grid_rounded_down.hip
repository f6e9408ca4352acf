// expect: WRONG_ANSWER: c[992] =
// problem: vector-add
// cases: n=1000
// The grid is n / 256 blocks, rounded down: the last 1000 % 256 elements are never written.
#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    hipLaunchKernelGGL(add, dim3((unsigned)(n / 248)), dim3(248), 0, 0, a, b, c, n);
}
