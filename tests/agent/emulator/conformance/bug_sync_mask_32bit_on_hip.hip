// expect: COMPILE_ERROR: 64-bit
// problem: sum-reduction
// CUDA's 32-bit full mask in a HIP *_sync shuffle: ROCm requires a 64-bit mask at compile time.
#include <hip/hip_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    float v = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    for (int o = 32; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) *out = v;
}

extern "C" void solution(const float* input, float* output, size_t n) {
    reduce<<<1, 64>>>(input, output, n);
}
