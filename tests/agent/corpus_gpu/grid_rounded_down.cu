// problem: vector-add
// case: n=1000
// expect: wrong: c[768] = nan (never written: it still holds the poison value)
// The grid is n / 256 blocks, rounded down: the last 232 elements are never computed.
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    vector_add<<<n / 256, 256>>>(a, b, c, n);
}
