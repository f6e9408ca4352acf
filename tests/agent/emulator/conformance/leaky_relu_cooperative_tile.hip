// expect: CHECKED
// problem: leaky-relu
// Cooperative block loads: the block stages 1024 consecutive elements in shared memory (four per
// thread, strided by the block size), synchronizes, then each thread handles a different four.
#include <hip/hip_runtime.h>

constexpr int kThreads = 256, kPerThread = 4, kTile = kThreads * kPerThread;

__global__ void leaky(const float* in, float alpha, float* out, size_t total) {
    __shared__ float tile[kTile];
    const size_t base = (size_t)blockIdx.x * kTile;
    #pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t i = base + k * kThreads + threadIdx.x;
        tile[k * kThreads + threadIdx.x] = i < total ? in[i] : 0.0f;
    }
    __syncthreads();
    #pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int local = threadIdx.x * kPerThread + k;
        const size_t i = base + local;
        const float v = tile[local];
        if (i < total) out[i] = v > 0.0f ? v : alpha * v;
    }
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t total = n * m;
    leaky<<<(unsigned)((total + kTile - 1) / kTile), kThreads>>>(input, alpha, output, total);
}
