// problem: sum-reduction
// case: n=65537
// expect: wrong: output[0] =
// A shared-memory tree reduction without __syncthreads() between its steps: a thread reads
// s[tid + half] before the thread that owns it has added its own half. On a GPU this fails now
// and then; on the emulator, where a block's threads run one after another between barriers, it
// fails every time.
#include <hip/hip_runtime.h>

constexpr int kThreads = 256;

__global__ void block_sums(const float* input, float* output, size_t n) {
    __shared__ float s[kThreads];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)kThreads + tid; i < n; i += (size_t)gridDim.x * kThreads) acc += input[i];
    s[tid] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half >>= 1) {
        if (tid < half) s[tid] += s[tid + half];
        // missing: __syncthreads();
    }
    if (tid == 0) atomicAdd(output, s[0]);
}

extern "C" void solution(const float* input, float* output, size_t n) {
    (void)hipMemsetAsync(output, 0, sizeof(float), 0);
    hipLaunchKernelGGL(block_sums, dim3(32), dim3(kThreads), 0, 0, input, output, n);
}
