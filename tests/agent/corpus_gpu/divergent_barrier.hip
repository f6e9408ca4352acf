// problem: softmax
// case: 3x7
// expect: fault: barrier divergence: 7 threads (thread (0,0,0) first) wait at __syncthreads() on line 19 but 249 threads (thread (7,0,0) first) have already exited
// Threads with nothing to do return early, but the others then wait at __syncthreads(): every
// thread of a block must reach each barrier. A GPU may hang, or pass by luck.
#include <hip/hip_runtime.h>
#include <cmath>

constexpr int kThreads = 256;

__global__ void softmax_rows(const float* input, float* output, size_t rows, size_t cols) {
    __shared__ float s_max;
    __shared__ float s_sum;
    const size_t r = blockIdx.x;
    const size_t j = threadIdx.x;
    if (j >= cols) return;
    const float* x = input + r * cols;
    if (j == 0) s_max = -INFINITY;
    __syncthreads();
    atomicMax(&s_max, x[j]);
    __syncthreads();
    if (j == 0) s_sum = 0.0f;
    __syncthreads();
    atomicAdd(&s_sum, expf(x[j] - s_max));
    __syncthreads();
    output[r * cols + j] = expf(x[j] - s_max) / s_sum;
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    hipLaunchKernelGGL(softmax_rows, dim3((unsigned)rows), dim3(kThreads), 0, 0, input, output, rows, cols);
}
