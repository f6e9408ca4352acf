#include <cuda_runtime.h>
#include <cuda_bf16.h>

// One block of 256 threads per token, two passes: the maximum, then the sum of e^(x - max), each
// reduced with __shfl_xor_sync inside the 32-lane warps and through shared memory across them.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void cross_entropy(const __nv_bfloat16* logits, const int* targets, float* loss, size_t vocab) {
    __shared__ float scratch[kWarps];
    __shared__ float row_max;
    const __nv_bfloat16* row = logits + blockIdx.x * vocab;
    float m = -INFINITY;
    for (size_t j = threadIdx.x; j < vocab; j += kThreads) m = fmaxf(m, __bfloat162float(row[j]));
    for (int mask = 16; mask > 0; mask >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, mask));
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        float all = scratch[0];
        for (int w = 1; w < kWarps; ++w) all = fmaxf(all, scratch[w]);
        row_max = all;
    }
    __syncthreads();
    m = row_max;
    float s = 0.0f;
    for (size_t j = threadIdx.x; j < vocab; j += kThreads) s += __expf(__bfloat162float(row[j]) - m);
    for (int mask = 16; mask > 0; mask >>= 1) s += __shfl_xor_sync(0xffffffffu, s, mask);
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = s;  // every read of scratch above is done
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < kWarps; ++w) total += scratch[w];
        loss[blockIdx.x] = m + logf(total) - __bfloat162float(row[targets[blockIdx.x]]);
    }
}

extern "C" void solution(const __nv_bfloat16* logits, const int* targets, float* loss, size_t tokens, size_t vocab) {
    cross_entropy<<<(unsigned)tokens, kThreads>>>(logits, targets, loss, vocab);
}
