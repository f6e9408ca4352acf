// expect: RUNTIME_ERROR: every lane named in the mask must make the same call together
// problem: sum-reduction
// cases: n=7
// A full-warp mask on a shuffle that only the first 16 lanes reach.
#include <cuda_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    float v = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    if (threadIdx.x < 16) {
        for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0) *out = v;
    }
}

extern "C" void solution(const float* input, float* output, size_t n) { reduce<<<1, 32>>>(input, output, n); }
