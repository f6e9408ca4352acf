// expect: CHECKED
// problem: leaky-relu
// A 2D grid of 16x16 blocks, one element per thread, dim3 arithmetic in the launch.
#include <hip/hip_runtime.h>

__global__ void leaky(const float* in, float alpha, float* out, size_t n, size_t m) {
    const size_t row = blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < m) {
        const float v = in[row * m + col];
        out[row * m + col] = v > 0.0f ? v : alpha * v;
    }
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const dim3 block(16, 16);
    const dim3 grid((unsigned)((m + block.x - 1) / block.x), (unsigned)((n + block.y - 1) / block.y));
    leaky<<<grid, block>>>(input, alpha, output, n, m);
}
