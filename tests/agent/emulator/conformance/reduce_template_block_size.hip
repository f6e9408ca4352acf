// expect: CHECKED
// problem: sum-reduction
// A kernel templated on its block size, unrolled by `if constexpr`-free template recursion style
// (`if (BLOCK >= 512)`), launched through HIP_KERNEL_NAME; partial sums in a device array, then
// a second launch of the same template with one block.
#include <hip/hip_runtime.h>

template <int BLOCK>
__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float s[BLOCK];
    const int tid = threadIdx.x;
    float v = 0.0f;
    for (size_t i = blockIdx.x * (size_t)BLOCK + tid; i < n; i += (size_t)gridDim.x * BLOCK) v += in[i];
    s[tid] = v;
    __syncthreads();
    if (BLOCK >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
    for (int k = 32; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ float g_partials[128];

extern "C" void solution(const float* input, float* output, size_t n) {
    float* partials = nullptr;
    hipGetSymbolAddress((void**)&partials, HIP_SYMBOL(g_partials));
    hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce<512>), dim3(128), dim3(512), 0, 0, input, partials, n);
    hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce<128>), dim3(1), dim3(128), 0, 0, partials, output, (size_t)128);
}
