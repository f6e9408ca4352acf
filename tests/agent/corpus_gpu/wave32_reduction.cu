// problem: sum-reduction
// case: n=65537
// expect: pass
// wave32_reduction.hip for CUDA: with 32-lane warps the same reduction is right.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kWarp = 32;

__device__ float warp_sum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return __shfl_sync(0xffffffffu, v, 0);
}

__global__ void block_sums(const float* input, float* partial, size_t n) {
    __shared__ float warps[kThreads / kWarp];
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)kThreads + threadIdx.x; i < n; i += (size_t)gridDim.x * kThreads)
        acc += input[i];
    acc = warp_sum(acc);
    if (threadIdx.x % kWarp == 0) warps[threadIdx.x / kWarp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < kThreads / kWarp; ++w) total += warps[w];
        atomicAdd(partial, total);
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    (void)cudaMemsetAsync(output, 0, sizeof(float), 0);
    block_sums<<<64, kThreads>>>(input, output, n);
}
