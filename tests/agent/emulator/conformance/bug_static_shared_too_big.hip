// expect: COMPILE_ERROR: 64 KiB
// problem: sum-reduction
// 96 KiB of static shared memory in one kernel: more than a block has.
#include <hip/hip_runtime.h>

__global__ void reduce(const float* in, float* out, size_t n) {
    __shared__ float s[24576];
    s[threadIdx.x] = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) *out = s[0];
}

extern "C" void solution(const float* input, float* output, size_t n) {
    reduce<<<1, 64>>>(input, output, n);
}
