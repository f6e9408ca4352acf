#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// One block of 256 threads (four wave64 wavefronts) per row, one pass for the statistics: each
// thread runs Welford's update over its strided elements (count, mean, M2 in float32), the
// wavefront merges its 64 partial results with Chan's formula through __shfl_xor (a butterfly:
// every lane ends with the wave's statistics), the four wavefronts merge through LDS. The second
// pass normalizes, scales and shifts, reading the row again (from L2).
constexpr int kThreads = 256;
constexpr int kWaves = kThreads / 64;

struct Stats {
    float n, mean, m2;
};

__device__ inline Stats merge(Stats a, Stats b) {
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float delta = b.mean - a.mean, wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
}

__global__ void __launch_bounds__(kThreads) layernorm(const __hip_bfloat16* x, const __hip_bfloat16* gamma,
                                                      const __hip_bfloat16* beta, __hip_bfloat16* out,
                                                      size_t cols) {
    __shared__ Stats partial[kWaves];
    const __hip_bfloat16* row = x + blockIdx.x * cols;
    Stats s = {0.0f, 0.0f, 0.0f};
    for (size_t c = threadIdx.x; c < cols; c += kThreads) {
        const float v = __bfloat162float(row[c]);
        s.n += 1.0f;
        const float delta = v - s.mean;
        s.mean += delta / s.n;
        s.m2 += delta * (v - s.mean);
    }
    for (int mask = 32; mask > 0; mask >>= 1) {
        const Stats other = {__shfl_xor(s.n, mask), __shfl_xor(s.mean, mask), __shfl_xor(s.m2, mask)};
        s = merge(s, other);
    }
    if (threadIdx.x % 64 == 0) partial[threadIdx.x / 64] = s;
    __syncthreads();
    Stats total = partial[0];
    for (int i = 1; i < kWaves; ++i) total = merge(total, partial[i]);
    const float mean = total.mean, rstd = rsqrtf(total.m2 / (float)cols + 1e-5f);
    __hip_bfloat16* o = out + blockIdx.x * cols;
    for (size_t c = threadIdx.x; c < cols; c += kThreads)
        o[c] = __float2bfloat16((__bfloat162float(row[c]) - mean) * rstd * __bfloat162float(gamma[c]) +
                                __bfloat162float(beta[c]));
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* gamma, const __hip_bfloat16* beta,
                         __hip_bfloat16* out, size_t rows, size_t cols) {
    hipLaunchKernelGGL(layernorm, dim3((unsigned)rows), dim3(kThreads), 0, 0, x, gamma, beta, out, cols);
}
