#include <hip/hip_runtime.h>
#include <stdint.h>

__global__ void sample(const float* probs, const int32_t* top_k, const float* top_p, const float* uniforms,
                       int32_t* token, size_t V) {
    // TODO: row blockIdx.x: order its tokens by probability (largest first, ties to the lower id),
    // keep the first top_k, then the shortest prefix whose sum reaches top_p times their sum, and
    // write the first token whose running sum exceeds uniforms times that prefix's sum.
}

extern "C" void solution(const float* probs, const int32_t* top_k, const float* top_p, const float* uniforms,
                         int32_t* token, size_t B, size_t V) {
    // All pointers are device pointers. Launch on the default stream.
    hipLaunchKernelGGL(sample, dim3((unsigned)B), dim3(256), 0, 0, probs, top_k, top_p, uniforms, token, V);
}
