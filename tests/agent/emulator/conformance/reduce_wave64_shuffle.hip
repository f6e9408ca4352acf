// expect: CHECKED
// problem: sum-reduction
// Wavefront shuffles over all 64 lanes (__shfl_down with warpSize), one shared slot per
// wavefront, the first wavefront adds those, one atomicAdd per block into a zeroed output.
#include <hip/hip_runtime.h>

__device__ float wave_sum(float v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    return v;
}

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float partial[1024 / 64];
    float v = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v += in[i];
    v = wave_sum(v);
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    if (lane == 0) partial[wave] = v;
    __syncthreads();
    if (wave == 0) {
        v = lane < (int)(blockDim.x / warpSize) ? partial[lane] : 0.0f;
        v = wave_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    hipMemset(output, 0, sizeof(float));
    size_t blocks = (n + 511) / 512;
    if (blocks > 64) blocks = 64;
    hipLaunchKernelGGL(reduce, dim3((unsigned)blocks), dim3(512), 0, 0, input, output, n);
}
