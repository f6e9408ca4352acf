// expect: WRONG_ANSWER: output[
// problem: softmax
// cases: 17x1000
// The sum reduction overwrites the shared array while thread 0's row maximum is still to be read
// by the others (the __syncthreads() after reading red[0] is missing).
#include <cuda_runtime.h>

__global__ void softmax(const float* in, float* out, size_t cols) {
    __shared__ float red[256];
    const float* x = in + blockIdx.x * cols;
    const int tid = threadIdx.x;
    float m = -INFINITY;
    for (size_t c = tid; c < cols; c += 256) m = fmaxf(m, x[c]);
    red[tid] = m;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (tid < k) red[tid] = fmaxf(red[tid], red[tid + k]);
        __syncthreads();
    }
    const float row_max = red[0];
    float s = 0.0f;
    for (size_t c = tid; c < cols; c += 256) s += expf(x[c] - row_max);
    red[tid] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (tid < k) red[tid] += red[tid + k];
        __syncthreads();
    }
    for (size_t c = tid; c < cols; c += 256) out[blockIdx.x * cols + c] = expf(x[c] - row_max) / red[0];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    softmax<<<(unsigned)rows, 256>>>(input, output, cols);
}
