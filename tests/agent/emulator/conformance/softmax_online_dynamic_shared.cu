// expect: CHECKED
// problem: softmax
// Online softmax (running max and rescaled sum in one pass), warp shuffles to combine the
// (max, sum) pairs, dynamic shared memory for the per-warp pairs, sized at launch.
#include <cuda_runtime.h>

struct MaxSum { float m, s; };

__device__ MaxSum combine(MaxSum a, MaxSum b) {
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) return {m, 0.0f};
    return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

__device__ MaxSum warp_combine(MaxSum v) {
    for (int o = 16; o > 0; o >>= 1) {
        MaxSum other{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
        v = combine(v, other);
    }
    return v;
}

__global__ void softmax(const float* in, float* out, size_t cols) {
    extern __shared__ MaxSum pairs[];
    const float* x = in + blockIdx.x * cols;
    MaxSum v{-INFINITY, 0.0f};
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x) v = combine(v, MaxSum{x[c], 1.0f});
    v = warp_combine(v);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    if (lane == 0) pairs[warp] = v;
    __syncthreads();
    v = lane < warps ? pairs[lane] : MaxSum{-INFINITY, 0.0f};
    v = warp_combine(v);  // every warp computes the block's total
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x) out[blockIdx.x * cols + c] = __expf(x[c] - v.m) / v.s;
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    const int threads = 128;
    softmax<<<(unsigned)rows, threads, (threads / 32) * sizeof(MaxSum)>>>(input, output, cols);
}
