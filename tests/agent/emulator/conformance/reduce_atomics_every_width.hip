// expect: CHECKED
// problem: sum-reduction
// Atomics of every width: a 32-bit block ticket (atomicInc), a 64-bit element count
// (unsigned long long atomicAdd), a double accumulator (atomicAdd on double), a float atomicExch
// and an atomicCAS loop; the last block to finish writes the result.
#include <hip/hip_runtime.h>

__device__ double g_sum;
__device__ unsigned long long g_count;
__device__ unsigned int g_ticket;
__device__ int g_lock;

__global__ void reset() {
    g_sum = 0.0;
    g_count = 0;
    g_ticket = 0;
    g_lock = 0;
}

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ double block_sum;
    __shared__ bool last;
    if (threadIdx.x == 0) block_sum = 0.0;
    __syncthreads();
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&block_sum, (double)in[i]);
        atomicAdd(&g_count, 1ull);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        while (atomicCAS(&g_lock, 0, 1) != 0) {}  // a spin lock, held briefly by one thread per block
        g_sum += block_sum;
        atomicExch(&g_lock, 0);
        __threadfence();
        last = atomicInc(&g_ticket, 0xFFFFFFFFu) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        const float total = (float)g_sum;
        atomicExch(out, g_count == n ? total : -1.0f);
    }
}

extern "C" void solution(const float* input, float* output, size_t n) {
    reset<<<1, 1>>>();
    reduce<<<(unsigned)((n + 255) / 256), 256>>>(input, output, n);
}
