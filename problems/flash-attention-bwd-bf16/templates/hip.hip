#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. Q, K, V, O, dO, dQ, dK, dV [((b * S + i) * H + h) * D + d];
// LSE [(b * H + h) * S + i] (float, natural log).
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void attention_bwd(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                              const __hip_bfloat16* O, const __hip_bfloat16* dO, const float* LSE, __hip_bfloat16* dQ,
                              __hip_bfloat16* dK, __hip_bfloat16* dV, size_t B, size_t S, size_t H, size_t D) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                         const __hip_bfloat16* O, const __hip_bfloat16* dO, const float* LSE, __hip_bfloat16* dQ,
                         __hip_bfloat16* dK, __hip_bfloat16* dV, size_t B, size_t S, size_t H, size_t D) {
    // Every pointer is a device pointer. Launch on the default stream.
}
