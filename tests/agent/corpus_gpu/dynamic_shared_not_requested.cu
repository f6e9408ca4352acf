// problem: leaky-relu
// case: 127x129 a=0.05
// expect: fault: out-of-bounds write of dynamic shared memory (extern __shared__) at byte 0: the launch gave each block 0 bytes
// The kernel stages through `extern __shared__` memory but the launch never asks for any (the
// third <<< >>> argument is missing).
#include <cuda_runtime.h>

__global__ void leaky_relu(const float* in, float alpha, float* out, size_t count) {
    extern __shared__ float staging[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    staging[threadIdx.x] = i < count ? in[i] : 0.0f;
    __syncthreads();
    if (i < count) out[i] = staging[threadIdx.x] > 0.0f ? staging[threadIdx.x] : alpha * staging[threadIdx.x];
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    const size_t count = n * m;
    leaky_relu<<<(unsigned)((count + 255) / 256), 256>>>(input, alpha, output, count);
}
