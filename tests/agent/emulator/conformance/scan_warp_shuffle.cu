// expect: CHECKED
// problem: prefix-sum
// A warp-shuffle scan (__shfl_up_sync), warp totals scanned by the first warp, block totals
// scanned on a second launch with one block looping over them, carries added by a third.
#include <cuda_runtime.h>

constexpr int kBlock = 1024;

__device__ int warp_scan(int v) {
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    return v;
}

__device__ int block_scan(int v, int* warp_sums) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_scan(v);
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) warp_sums[lane] = warp_scan(warp_sums[lane]);
    __syncthreads();
    const int carry = warp > 0 ? warp_sums[warp - 1] : 0;
    __syncthreads();  // warp_sums is reused by the next call
    return v + carry;
}

__global__ void scan_blocks(const int* in, int* out, int* totals, size_t n) {
    __shared__ int warp_sums[32];
    const size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x;
    const int v = block_scan(i < n ? in[i] : 0, warp_sums);
    if (i < n) out[i] = v;
    if (threadIdx.x == kBlock - 1) totals[blockIdx.x] = v;
}

__global__ void scan_totals(int* totals, size_t count) {
    __shared__ int warp_sums[32];
    __shared__ int carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (size_t base = 0; base < count; base += kBlock) {
        const size_t i = base + threadIdx.x;
        const int v = block_scan(i < count ? totals[i] : 0, warp_sums) + carry;
        if (i < count) totals[i] = v;
        __syncthreads();
        if (threadIdx.x == kBlock - 1) carry = v;
        __syncthreads();
    }
}

__global__ void add_carries(int* out, const int* totals, size_t n) {
    const size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x;
    if (blockIdx.x > 0 && i < n) out[i] += totals[blockIdx.x - 1];
}

extern "C" void solution(const int* input, int* output, size_t n) {
    const size_t blocks = (n + kBlock - 1) / kBlock;
    int* totals = nullptr;
    cudaMalloc(&totals, blocks * sizeof(int));
    scan_blocks<<<(unsigned)blocks, kBlock>>>(input, output, totals, n);
    scan_totals<<<1, kBlock>>>(totals, blocks);
    add_carries<<<(unsigned)blocks, kBlock>>>(output, totals, n);
    cudaFree(totals);
}
