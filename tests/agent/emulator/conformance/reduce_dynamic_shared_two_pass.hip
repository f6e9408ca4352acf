// expect: CHECKED
// problem: sum-reduction
// Dynamic shared memory (`extern __shared__`, HIP_DYNAMIC_SHARED's plain form) sized at launch,
// a scratch buffer from hipMalloc for the block partials, two launches, hipFree at the end.
#include <hip/hip_runtime.h>

__global__ void block_sums(const float* in, float* partials, size_t n) {
    extern __shared__ float s[];
    const unsigned tid = threadIdx.x;
    float v = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + tid; i < n; i += (size_t)gridDim.x * blockDim.x) v += in[i];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s[0];
}

extern "C" void solution(const float* input, float* output, size_t n) {
    const unsigned blocks = 40, threads = 128;
    float* partials = nullptr;
    hipMalloc(&partials, blocks * sizeof(float));
    block_sums<<<blocks, threads, threads * sizeof(float)>>>(input, partials, n);
    block_sums<<<1, 64, 64 * sizeof(float), 0>>>(partials, output, blocks);
    hipDeviceSynchronize();
    hipFree(partials);
}
