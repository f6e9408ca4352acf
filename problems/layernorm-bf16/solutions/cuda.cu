#include <cuda_runtime.h>
#include <cuda_bf16.h>

// One block of 256 threads per row, two passes for the statistics: the mean (float32 partial sums
// reduced with __shfl_xor_sync in each 32-lane warp, then across the eight warps in shared memory),
// then the variance of x - mean the same way; the third pass writes the row. Rows are re-read from
// L2.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ float block_sum(float v, float* scratch) {
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
    __syncthreads();  // scratch may still be read by the previous call
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    float total = 0.0f;
    for (int i = 0; i < kWarps; ++i) total += scratch[i];
    return total;
}

__global__ void layernorm(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                          __nv_bfloat16* out, size_t cols) {
    __shared__ float scratch[kWarps];
    const __nv_bfloat16* row = x + blockIdx.x * cols;
    float sum = 0.0f;
    for (size_t c = threadIdx.x; c < cols; c += kThreads) sum += __bfloat162float(row[c]);
    const float mean = block_sum(sum, scratch) / (float)cols;
    float ss = 0.0f;
    for (size_t c = threadIdx.x; c < cols; c += kThreads) {
        const float d = __bfloat162float(row[c]) - mean;
        ss += d * d;
    }
    const float rstd = rsqrtf(block_sum(ss, scratch) / (float)cols + 1e-5f);
    __nv_bfloat16* o = out + blockIdx.x * cols;
    for (size_t c = threadIdx.x; c < cols; c += kThreads)
        o[c] = __float2bfloat16((__bfloat162float(row[c]) - mean) * rstd * __bfloat162float(gamma[c]) +
                                __bfloat162float(beta[c]));
}

extern "C" void solution(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                         __nv_bfloat16* out, size_t rows, size_t cols) {
    layernorm<<<(unsigned)rows, kThreads>>>(x, gamma, beta, out, cols);
}
