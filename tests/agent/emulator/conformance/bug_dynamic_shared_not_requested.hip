// expect: RUNTIME_ERROR: dynamic shared memory
// problem: sum-reduction
// cases: n=7
// extern __shared__ used, but the launch gives no dynamic shared memory (third argument 0).
#include <hip/hip_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    extern __shared__ float s[];
    s[threadIdx.x] = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (unsigned k = 0; k < blockDim.x; ++k) t += s[k];
        *out = t;
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    hipLaunchKernelGGL(reduce, dim3(1), dim3(64), 0, 0, input, output, n);
}
