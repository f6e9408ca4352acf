// expect: CHECKED
// problem: histogram
// A privatized histogram: each block counts into shared memory (dynamic, sized for the bins) with
// shared atomics, then merges into the zeroed global histogram; too many bins for shared memory
// go straight to global atomics.
#include <hip/hip_runtime.h>

__global__ void count_shared(const int* data, int* hist, size_t n, int bins) {
    extern __shared__ int local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

__global__ void count_global(const int* data, int* hist, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&hist[data[i]], 1);
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    hipMemset(hist, 0, bins * sizeof(int));
    const size_t shared = bins * sizeof(int);
    if (shared <= 48 * 1024)
        hipLaunchKernelGGL(count_shared, dim3(32), dim3(256), shared, 0, data, hist, n, bins);
    else
        hipLaunchKernelGGL(count_global, dim3(64), dim3(256), 0, 0, data, hist, n);
}
