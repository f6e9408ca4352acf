// expect: CHECKED
// problem: vector-add
// A generic elementwise kernel taking a functor by value, as library code writes it.
#include <hip/hip_runtime.h>

struct Plus {
    __device__ float operator()(float x, float y) const { return x + y; }
};

template <typename Op, int kItems>
__global__ void __launch_bounds__(256) elementwise(const float* a, const float* b, float* c, size_t n, Op op) {
    const size_t base = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * kItems;
    #pragma unroll
    for (int k = 0; k < kItems; ++k)
        if (base + k < n) c[base + k] = op(a[base + k], b[base + k]);
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    constexpr int kItems = 4;
    const size_t threads = (n + kItems - 1) / kItems;
    hipLaunchKernelGGL(HIP_KERNEL_NAME(elementwise<Plus, kItems>), dim3((unsigned)((threads + 255) / 256)), dim3(256),
                       0, 0, a, b, c, n, Plus{});
}
