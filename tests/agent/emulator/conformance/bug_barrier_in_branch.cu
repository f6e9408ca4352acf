// expect: RUNTIME_ERROR: barrier divergence
// problem: sum-reduction
// cases: n=1000
// An early return before the block's __syncthreads(): threads past the end never reach it.
#include <cuda_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float s[256];
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = in[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (unsigned k = 0; k < blockDim.x && blockIdx.x * (size_t)blockDim.x + k < n; ++k) t += s[k];
        atomicAdd(out, t);
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    cudaMemset(output, 0, sizeof(float));
    reduce<<<(unsigned)((n + 255) / 256), 256>>>(input, output, n);
}
