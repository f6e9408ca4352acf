// expect: CHECKED
// problem: leaky-relu
// HIP's float4 arithmetic operators and constructors (not in CUDA), on rows whose length is a
// multiple of four; other shapes take the scalar kernel.
#include <hip/hip_runtime.h>

__global__ void leaky4(const float4* in, float alpha, float4* out, size_t count) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float4 v = in[i];
    const float4 neg = v * alpha;
    out[i] = float4(v.x > 0 ? v.x : neg.x, v.y > 0 ? v.y : neg.y, v.z > 0 ? v.z : neg.z, v.w > 0 ? v.w : neg.w);
}

__global__ void leaky1(const float* in, float alpha, float* out, size_t count) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < count) out[i] = in[i] > 0 ? in[i] : alpha * in[i];
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t total = n * m;
    if (total % 4 == 0 && (reinterpret_cast<uintptr_t>(input) | reinterpret_cast<uintptr_t>(output)) % 16 == 0)
        leaky4<<<(unsigned)((total / 4 + 255) / 256), 256>>>((const float4*)input, alpha, (float4*)output, total / 4);
    else
        leaky1<<<(unsigned)((total + 255) / 256), 256>>>(input, alpha, output, total);
}
