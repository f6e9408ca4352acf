// problem: histogram
// case: n=1000 bins=7
// expect: compile-error: __shared__ local takes more than the 64 KiB of shared memory a block has
// A 128 KiB private histogram per block: more shared memory than a block has. nvcc and hipcc
// refuse it too.
#include <cuda_runtime.h>

constexpr int kBins = 32768;

__global__ void histogram(const int* data, int* hist, size_t n, int bins) {
    __shared__ int local[kBins];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    cudaMemset(hist, 0, bins * sizeof(int));
    histogram<<<64, 256>>>(data, hist, n, bins);
}
