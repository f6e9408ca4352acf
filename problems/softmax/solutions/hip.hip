#include <hip/hip_runtime.h>
#include <cmath>

// One block per row. Pass 1 keeps a running (max, sum of exp(x - max)) per thread ("online
// softmax"), the block merges the pairs in shared memory; pass 2 writes exp(x - max) / sum.
constexpr int kThreads = 256;

struct MaxSum {
    float m;  // running maximum (-inf while empty)
    float s;  // sum of exp(x - m)
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    if (b.m == -INFINITY) return a;
    if (a.m == -INFINITY) return b;
    const float m = fmaxf(a.m, b.m);
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__global__ void __launch_bounds__(kThreads) softmax_rows(const float* __restrict__ input,
                                                         float* __restrict__ output, size_t rows,
                                                         size_t cols) {
    __shared__ float s_m[kThreads];
    __shared__ float s_s[kThreads];
    const int tid = threadIdx.x;
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* x = input + r * cols;
        float* y = output + r * cols;
        MaxSum acc = {-INFINITY, 0.0f};
        for (size_t j = tid; j < cols; j += kThreads) {
            const float v = x[j];
            if (v > acc.m) {
                acc.s = acc.s * expf(acc.m - v) + 1.0f;
                acc.m = v;
            } else {
                acc.s += expf(v - acc.m);
            }
        }
        s_m[tid] = acc.m;
        s_s[tid] = acc.s;
        __syncthreads();
        for (int half = kThreads / 2; half > 0; half >>= 1) {
            if (tid < half) {
                const MaxSum other = {s_m[tid + half], s_s[tid + half]};
                const MaxSum mine = {s_m[tid], s_s[tid]};
                const MaxSum merged = merge(mine, other);
                s_m[tid] = merged.m;
                s_s[tid] = merged.s;
            }
            __syncthreads();
        }
        const float m = s_m[0];
        const float inv = 1.0f / s_s[0];
        __syncthreads();  // everyone has read the totals before the next row reuses the arrays
        for (size_t j = tid; j < cols; j += kThreads) y[j] = expf(x[j] - m) * inv;
    }
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    const unsigned grid = (unsigned)(rows < 65535 ? rows : 65535);
    hipLaunchKernelGGL(softmax_rows, dim3(grid), dim3(kThreads), 0, 0, input, output, rows, cols);
}
