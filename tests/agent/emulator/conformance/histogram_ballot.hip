// expect: CHECKED
// problem: histogram
// Few bins: each wavefront votes per bin with __ballot and adds __popcll of the 64-bit mask with
// one atomic; many bins: plain atomics.
#include <hip/hip_runtime.h>

__global__ void count(const int* data, int* hist, size_t n, int bins) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t rounds = (n + stride - 1) / stride;  // the same for every lane
    for (size_t r = 0; r < rounds; ++r) {
        const size_t i = first + r * stride;
        const int mine = i < n ? data[i] : -1;
        if (bins <= 16) {
            for (int b = 0; b < bins; ++b) {
                const unsigned long long votes = __ballot(mine == b);
                if (__lane_id() == 0 && votes) atomicAdd(&hist[b], __popcll(votes));
            }
        } else if (mine >= 0) {
            atomicAdd(&hist[mine], 1);
        }
    }
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    hipMemset(hist, 0, bins * sizeof(int));
    hipLaunchKernelGGL(count, dim3(16), dim3(256), 0, 0, data, hist, n, bins);
}
