// expect: CHECKED
// problem: histogram
// __syncthreads_count as a block-wide vote: each block counts, for every bin, how many of its 256
// elements fall in it (bins up to the block's element count use the vote, larger ones atomics).
#include <cuda_runtime.h>

__global__ void count(const int* data, int* hist, size_t n, int bins) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const int mine = i < n ? data[i] : -1;
    if (bins <= 8) {
        for (int b = 0; b < bins; ++b) {
            const int c = __syncthreads_count(mine == b);
            if (threadIdx.x == 0 && c) atomicAdd(&hist[b], c);
        }
    } else if (mine >= 0) {
        atomicAdd(&hist[mine], 1);
    }
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    cudaMemset(hist, 0, bins * sizeof(int));
    count<<<(unsigned)((n + 255) / 256), 256>>>(data, hist, n, bins);
}
