// expect: CHECKED
// problem: sum-reduction
// __shfl_down_sync over full 32-lane warps, per-warp partials in shared memory, one atomicAdd per
// block after a cudaMemset of the output.
#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float warp_totals[32];
    float v = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    cudaMemset(output, 0, sizeof(float));
    reduce<<<48, 1024>>>(input, output, n);
}
