// problem: vector-add
// case: n=65537
// expect: launch-error: kernel launch failed: invalid configuration argument (code 9)
// 2048 threads per block: above the 1024 a GPU allows, so the launch fails and
// cudaGetLastError() says so.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    vector_add<<<(unsigned)((n + 2047) / 2048), 2048>>>(a, b, c, n);
}
