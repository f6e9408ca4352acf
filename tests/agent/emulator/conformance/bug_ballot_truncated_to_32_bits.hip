// expect: WRONG_ANSWER: hist[
// problem: histogram
// cases: n=1000 bins=7
// A wave32 habit on HIP: the 64-bit __ballot stored in a 32-bit `unsigned` and counted with
// __popc. Lanes 32-63 of every wavefront vanish, as they do on MI300X.
#include <hip/hip_runtime.h>

__global__ void count(const int* data, int* hist, size_t n, int bins) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const int mine = i < n ? data[i] : -1;
    for (int b = 0; b < bins; ++b) {
        const unsigned votes = __ballot(mine == b);
        if (threadIdx.x % warpSize == 0 && votes) atomicAdd(&hist[b], __popc(votes));
    }
}

extern "C" void solution(const int* data, int* hist, size_t n, int bins) {
    hipMemset(hist, 0, bins * sizeof(int));
    count<<<(unsigned)((n + 255) / 256), 256>>>(data, hist, n, bins);
}
