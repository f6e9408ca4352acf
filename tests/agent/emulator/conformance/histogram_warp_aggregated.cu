// expect: CHECKED
// problem: histogram
// Warp-aggregated atomics: lanes with the same bin elect a leader with __match_any_sync, the
// leader adds the group's count (__popc) with one global atomicAdd.
#include <cuda_runtime.h>

__global__ void count(const int* data, int* hist, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    // Every lane of a warp runs the same number of iterations, so __match_any_sync sees all 32.
    const size_t warp_base = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) & ~(size_t)31;
    for (size_t base = warp_base; base < n; base += stride) {
        const size_t i = base + (threadIdx.x & 31);
        const int bin = i < n ? data[i] : -1;
        const unsigned same = __match_any_sync(0xffffffffu, bin);
        const int leader = __ffs(same) - 1;
        if (bin >= 0 && (int)(threadIdx.x & 31) == leader) atomicAdd(&hist[bin], __popc(same));
    }
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    cudaMemset(hist, 0, bins * sizeof(int));
    count<<<64, 256>>>(data, hist, n);
}
