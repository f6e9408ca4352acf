// expect: CHECKED
// problem: softmax
// One block per row: a shared-memory max reduction, then a sum reduction reusing the same array
// (barriers between), then the normalized outputs.
#include <hip/hip_runtime.h>

constexpr int kThreads = 256;

__global__ void softmax(const float* in, float* out, size_t cols) {
    __shared__ float red[kThreads];
    const float* x = in + blockIdx.x * cols;
    float* y = out + blockIdx.x * cols;
    const int tid = threadIdx.x;
    float m = -INFINITY;
    for (size_t c = tid; c < cols; c += kThreads) m = fmaxf(m, x[c]);
    red[tid] = m;
    __syncthreads();
    for (int k = kThreads / 2; k > 0; k >>= 1) {
        if (tid < k) red[tid] = fmaxf(red[tid], red[tid + k]);
        __syncthreads();
    }
    const float row_max = red[0];
    __syncthreads();
    float s = 0.0f;
    for (size_t c = tid; c < cols; c += kThreads) s += expf(x[c] - row_max);
    red[tid] = s;
    __syncthreads();
    for (int k = kThreads / 2; k > 0; k >>= 1) {
        if (tid < k) red[tid] += red[tid + k];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (size_t c = tid; c < cols; c += kThreads) y[c] = expf(x[c] - row_max) * inv;
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    hipLaunchKernelGGL(softmax, dim3((unsigned)rows), dim3(kThreads), 0, 0, input, output, cols);
}
