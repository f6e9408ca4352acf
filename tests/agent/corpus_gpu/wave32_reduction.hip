// problem: sum-reduction
// case: n=65537
// expect: wrong: output[0] =
// A block sum written for 32-lane warps: each warp reduces with __shfl_down and broadcasts its
// total from lane 0, then lane 0 of every 32 threads stores it. On MI300X a wavefront has 64
// lanes: threads 32..63 read the broadcast of lane 0, so the first half is counted twice and the
// second half never. wave32_reduction.cu is the same code for CUDA, where it is right.
#include <hip/hip_runtime.h>

constexpr int kThreads = 256;
constexpr int kWarp = 32;

__device__ float warp_sum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    return __shfl(v, 0);
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
    (void)hipMemsetAsync(output, 0, sizeof(float), 0);
    hipLaunchKernelGGL(block_sums, dim3(64), dim3(kThreads), 0, 0, input, output, n);
}
