// expect: CHECKED
// problem: leaky-relu
// The target guards of Composable Kernel and vLLM's ROCm kernels: CK's own `__gfx94__` from the
// compiler's `__gfx942__`, vLLM's `__HIP__MI300__`, the device pass's `__HIP_DEVICE_COMPILE__`
// and the wavefront size; an unknown target traps, or fails to compile, as their kernels do.
#include <hip/hip_runtime.h>

#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define __gfx94__
#endif
#if defined(__HIPCC__) && (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
#define __HIP__MI300__
#endif

#if defined(__HIP_DEVICE_COMPILE__) && !defined(__GFX9__)
#error "this kernel is written for CDNA (gfx9) GPUs"
#endif
#if defined(__HIP_DEVICE_COMPILE__)
static_assert(__AMDGCN_WAVEFRONT_SIZE == 64, "one wavefront is 64 lanes on CDNA");
#endif

__global__ void leaky(const float* in, float* out, size_t total, float alpha) {
#if defined(__gfx94__) && defined(__HIP__MI300__)
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += stride) {
        const float v = in[i];
        out[i] = v > 0.0f ? v : alpha * v;
    }
#else
    __trap();  // CK: "the kernel is not supported on this target"
#endif
}

extern "C" void solution(const float* in, float alpha, float* out, size_t n, size_t m) {
    const size_t total = n * m;
    const unsigned blocks = (unsigned)((total + 255) / 256 < 1024 ? (total + 255) / 256 : 1024);
    hipLaunchKernelGGL(leaky, dim3(blocks), dim3(256), 0, 0, in, out, total, alpha);
}
