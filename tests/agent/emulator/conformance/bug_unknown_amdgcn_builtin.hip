// expect: COMPILE_ERROR: `__builtin_amdgcn_zz_not_a_builtin` is not modelled by the emulated device
// problem: vector-add
// judge: agent
// An AMD builtin the emulated device does not provide: a compile error that names it at its line,
// never g++'s "was not declared, did you mean __builtin_...".
#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + (float)__builtin_amdgcn_zz_not_a_builtin(0);
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
