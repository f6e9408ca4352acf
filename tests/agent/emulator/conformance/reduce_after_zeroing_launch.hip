// expect: CHECKED
// problem: sum-reduction
// judge: agent
// A zeroing kernel, then a shared-memory tree reduction (256 threads, __syncthreads() in the loop)
// whose block sums meet in an atomicAdd, both launched with hipLaunchKernelGGL. Issue 29: the
// reduction's first touch of its shared array lost the float in a vector register, so n=1 gave 0.
#include <hip/hip_runtime.h>

__global__ void zero(float* out) { *out = 0.0f; }

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float s[256];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, s[0]);
}

extern "C" void solution(const float* input, float* output, size_t n) {
    hipLaunchKernelGGL(zero, dim3(1), dim3(1), 0, 0, output);
    hipLaunchKernelGGL(reduce, dim3((n + 255) / 256), dim3(256), 0, 0, input, output, n);
}
