#include <cuda_runtime.h>
#include <cstdint>

// Four elements per thread through float4 loads/stores, then a scalar kernel for the tail.
__device__ __forceinline__ float leaky(float x, float alpha) { return x > 0.0f ? x : alpha * x; }

__global__ void leaky_relu_vec4(const float4* __restrict__ in, float alpha, float4* __restrict__ out,
                                size_t count4) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count4; i += stride) {
        float4 v = in[i];
        v.x = leaky(v.x, alpha);
        v.y = leaky(v.y, alpha);
        v.z = leaky(v.z, alpha);
        v.w = leaky(v.w, alpha);
        out[i] = v;
    }
}

__global__ void leaky_relu_scalar(const float* __restrict__ in, float alpha, float* __restrict__ out,
                                  size_t begin, size_t count) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = leaky(in[i], alpha);
}

static unsigned blocks_for(size_t items, int threads) {
    size_t blocks = (items + threads - 1) / threads;
    return (unsigned)(blocks > 65535 ? 65535 : blocks);
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const int threads = 256;
    const size_t count = n * m;
    const bool aligned = ((uintptr_t)input % 16 == 0) && ((uintptr_t)output % 16 == 0);
    const size_t count4 = aligned ? count / 4 : 0;
    if (count4 > 0) {
        const unsigned grid = blocks_for(count4, threads);
        leaky_relu_vec4<<<grid, threads>>>((const float4*)input, alpha, (float4*)output, count4);
    }
    const size_t done = count4 * 4;
    if (done < count) {
        const unsigned grid = blocks_for(count - done, threads);
        leaky_relu_scalar<<<grid, threads>>>(input, alpha, output, done, count);
    }
}
