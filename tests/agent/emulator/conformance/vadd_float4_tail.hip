// expect: CHECKED
// problem: vector-add
// float4 loads and stores when every pointer is 16-byte aligned, a scalar loop for the tail.
#include <hip/hip_runtime.h>
#include <cstdint>

__global__ void add4(const float4* a, const float4* b, float4* c, size_t n4) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

__global__ void add_tail(const float* a, const float* b, float* c, size_t start, size_t n) {
    const size_t i = start + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const bool aligned = ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16 == 0;
    const size_t n4 = aligned ? n / 4 : 0;
    if (n4) add4<<<(n4 + 255) / 256, 256>>>((const float4*)a, (const float4*)b, (float4*)c, n4);
    for (size_t start = n4 * 4; start < n; start += 256) add_tail<<<1, 256>>>(a, b, c, start, n);
}
