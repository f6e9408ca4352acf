#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <stdint.h>

// The logits are a T x 256 x H GEMM (x times W^T, both contiguous along H):
// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8 and
// an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into float32
// accumulators. Then route each token: sigmoid, + bias, group scores, top 4 groups, top 8 experts.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void gate(const __hip_bfloat16* x, const __hip_bfloat16* W, const float* bias, float* weights,
                     int32_t* ids, size_t T, size_t H) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* W, const float* bias, float* weights,
                         int32_t* ids, size_t T, size_t H) {
    // Every pointer is a device pointer. Launch on the default stream.
}
