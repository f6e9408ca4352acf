// expect: CHECKED
// problem: softmax
// Statistics and normalization in two kernels: one thread per row computes (max, sum) into a
// scratch buffer, then one thread per element writes the output.
#include <cuda_runtime.h>

__global__ void stats(const float* in, float2* st, size_t rows, size_t cols) {
    const size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* x = in + r * cols;
    float m = x[0];
    for (size_t c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (size_t c = 0; c < cols; ++c) s += expf(x[c] - m);
    st[r] = make_float2(m, s);
}

__global__ void normalize(const float* in, const float2* st, float* out, size_t rows, size_t cols) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    const float2 s = st[i / cols];
    out[i] = expf(in[i] - s.x) / s.y;
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    float2* st = nullptr;
    cudaMalloc(&st, rows * sizeof(float2));
    stats<<<(unsigned)((rows + 127) / 128), 128>>>(input, st, rows, cols);
    normalize<<<(unsigned)((rows * cols + 255) / 256), 256>>>(input, st, output, rows, cols);
    cudaDeviceSynchronize();
    cudaFree(st);
}
