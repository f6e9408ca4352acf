// expect: WRONG_ANSWER: hist[
// problem: histogram
// cases: n=1000 bins=7
// A privatized histogram that never zeroes its shared counters (shared memory holds garbage).
#include <hip/hip_runtime.h>

__global__ void count(const int* data, int* hist, size_t n, int bins) {
    extern __shared__ int local[];
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    hipMemset(hist, 0, bins * sizeof(int));
    hipLaunchKernelGGL(count, dim3(4), dim3(256), bins * sizeof(int), 0, data, hist, n, bins);
}
