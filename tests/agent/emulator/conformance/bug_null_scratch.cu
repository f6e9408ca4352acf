// expect: RUNTIME_ERROR: (a null pointer)
// problem: sum-reduction
// cases: n=7
// A scratch pointer that was meant to come from cudaMalloc is still null when the kernel writes it.
#include <cuda_runtime.h>

__global__ void partials(const float* in, float* scratch, size_t n) {
    if (threadIdx.x < n) scratch[threadIdx.x] = in[threadIdx.x];
}

__global__ void finish(const float* scratch, float* out, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; ++i) s += scratch[i];
    *out = s;
}

extern "C" void solution(const float* input, float* output, size_t n) {
    float* scratch = nullptr;
    partials<<<1, 64>>>(input, scratch, n);
    finish<<<1, 1>>>(scratch, output, n);
}
