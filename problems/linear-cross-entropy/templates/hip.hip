#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. hidden[t * H + k], weight[v * H + k].
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void linear_cross_entropy(const __hip_bfloat16* hidden, const __hip_bfloat16* weight, const int* targets,
                                     float* loss, size_t T, size_t V, size_t H) {
    // TODO: per token, logits x[v] = hidden[t] . weight[v] in float32 (not stored), an online
    // log-sum-exp over v, loss[t] = logsumexp - x[targets[t]]
}

extern "C" void solution(const __hip_bfloat16* hidden, const __hip_bfloat16* weight, const int* targets, float* loss,
                         size_t T, size_t V, size_t H) {
    // Every pointer is a device pointer. Launch on the default stream.
}
