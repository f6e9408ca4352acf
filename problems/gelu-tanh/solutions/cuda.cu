#include <cuda_runtime.h>

// One element per thread: tanhf as written in the formula, in float32.
__global__ void gelu(const float* x, float* out, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    out[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

extern "C" void solution(const float* x, float* out, size_t rows, size_t cols) {
    const size_t n = rows * cols;
    gelu<<<(unsigned)((n + 255) / 256), 256>>>(x, out, n);
}
