// expect: COMPILE_ERROR: the swizzle `.x` of an ext_vector_type vector is not modelled by the emulated device
// problem: vector-add
// judge: agent
// Clang's swizzles on an ext_vector_type vector (`v.x`, `v.xy`) compile with hipcc; g++'s vectors have
// none. A compile error that says so and what to write instead, never g++'s "non-class type".
#include <hip/hip_runtime.h>

typedef float float2_ __attribute__((ext_vector_type(2)));

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float2_ pair = {a[i < n ? i : 0], b[i < n ? i : 0]};
    if (i < n) c[i] = pair.x + pair[1];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
