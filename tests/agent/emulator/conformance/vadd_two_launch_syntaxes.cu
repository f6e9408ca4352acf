// expect: CHECKED
// problem: vector-add
// The same kernel launched twice, through a template wrapper and a macro, on the two halves; the
// launch configuration as a struct member and an expression with a cast.
#include <cuda_runtime.h>

#define LAUNCH(kernel, blocks, threads, ...) kernel<<<(blocks), (threads)>>>(__VA_ARGS__)

template <typename T>
__global__ void add(const T* a, const T* b, T* c, size_t offset, size_t n) {
    const size_t i = offset + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

struct Config { dim3 grid, block; };

template <typename T>
void first_half(const T* a, const T* b, T* c, size_t half) {
    if (half == 0) return;
    const Config cfg{dim3((unsigned)((half + 63) / 64)), dim3(64)};
    add<T><<<cfg.grid, cfg.block>>>(a, b, c, 0, half);
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const size_t half = n / 2;
    first_half(a, b, c, half);
    LAUNCH(add<float>, (unsigned)((n - half + 127) / 128), 128, a, b, c, half, n);
}
