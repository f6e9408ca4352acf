// expect: CHECKED
// problem: vector-add
// A grid-stride loop sized by the occupancy-style heuristic (blocks = SMs x 4, here a constant).
#include <cuda_runtime.h>

__global__ void add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) c[i] = __ldg(a + i) + __ldg(b + i);
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    add<<<(sms > 0 ? sms : 80) * 4, 256>>>(a, b, c, n);
}
