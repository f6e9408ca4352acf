// No memory limit on hip/cuda compiles: an initializer of ten million elements spelled by
// nested macros costs the compiler gigabytes. The compile's RAM cap stops it.
#include <hip/hip_runtime.h>
#include <cstddef>

#define X1 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f
#define X2 X1, X1, X1, X1, X1, X1, X1, X1, X1, X1
#define X3 X2, X2, X2, X2, X2, X2, X2, X2, X2, X2
#define X4 X3, X3, X3, X3, X3, X3, X3, X3, X3, X3
#define X5 X4, X4, X4, X4, X4, X4, X4, X4, X4, X4
#define X6 X5, X5, X5, X5, X5, X5, X5, X5, X5, X5
#define X7 X6, X6, X6, X6, X6, X6, X6, X6, X6, X6

static const float table[] = {X7};

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    (void)table;
}
