// expect: RUNTIME_ERROR: which was freed
// problem: sum-reduction
// cases: n=7
// The scratch buffer is freed between the two launches that use it.
#include <hip/hip_runtime.h>

__global__ void copy(const float* in, float* scratch, size_t n) {
    if (threadIdx.x < n) scratch[threadIdx.x] = in[threadIdx.x];
}

__global__ void finish(const float* scratch, float* out, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; ++i) s += scratch[i];
    *out = s;
}

extern "C" void solution(const float* input, float* output, size_t n) {
    float* scratch = nullptr;
    hipMalloc(&scratch, 64 * sizeof(float));
    copy<<<1, 64>>>(input, scratch, n);
    hipFree(scratch);
    finish<<<1, 1>>>(scratch, output, n);
}
