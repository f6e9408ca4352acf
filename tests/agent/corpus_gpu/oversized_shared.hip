// problem: leaky-relu
// case: 127x129 a=0.05
// expect: launch-error: kernel launch failed: invalid argument (code 1)
// 128 KiB of dynamic shared memory per block: a block has 64 KiB on MI300X, so the launch fails
// with hipErrorInvalidValue.
#include <hip/hip_runtime.h>

__global__ void leaky_relu(const float* in, float alpha, float* out, size_t count) {
    extern __shared__ float staging[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < count) {
        staging[threadIdx.x] = in[i];
        out[i] = staging[threadIdx.x] > 0.0f ? staging[threadIdx.x] : alpha * staging[threadIdx.x];
    }
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t count = n * m;
    hipLaunchKernelGGL(leaky_relu, dim3((unsigned)((count + 255) / 256)), dim3(256), 128 * 1024, 0,
                       input, alpha, output, count);
}
