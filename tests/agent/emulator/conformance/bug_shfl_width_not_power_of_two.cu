// expect: RUNTIME_ERROR: is not a power of two
// problem: sum-reduction
// cases: n=7
// Shuffles in segments of 24 lanes: the width must be a power of two.
#include <cuda_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    float v = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o, 24);
    if (threadIdx.x == 0) *out = v;
}

extern "C" void solution(const float* input, float* output, size_t n) { reduce<<<1, 32>>>(input, output, n); }
