#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. w1[e] is 2I x H (gate rows, then up rows), w2[e] is H x I: both contiguous
// along the dimension the GEMM sums over. act can hold the activations between two kernels.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void fused_moe(const __hip_bfloat16* x, const __hip_bfloat16* w1, const __hip_bfloat16* w2,
                          const int32_t* topk_ids, const float* topk_weights, __hip_bfloat16* act,
                          __hip_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* w1, const __hip_bfloat16* w2,
                         const int32_t* topk_ids, const float* topk_weights, __hip_bfloat16* act,
                         __hip_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    // Every pointer is a device pointer. Launch on the default stream.
}
