// expect: CHECKED
// problem: leaky-relu
// reinterpret_cast to float4 on the aligned bulk, a scalar grid-stride tail, alpha passed by value.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ float leaky(float v, float a) { return v > 0.0f ? v : a * v; }

__global__ void leaky4(const float* in, float* out, size_t total, float alpha) {
    const size_t n4 = total / 4, stride = (size_t)gridDim.x * blockDim.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in4[i];
        v.x = leaky(v.x, alpha); v.y = leaky(v.y, alpha); v.z = leaky(v.z, alpha); v.w = leaky(v.w, alpha);
        out4[i] = v;
    }
    for (size_t i = n4 * 4 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += stride)
        out[i] = leaky(in[i], alpha);
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    leaky4<<<256, 256>>>(input, output, n * m, alpha);
}
