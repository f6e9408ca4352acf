#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. Q[((b * S + i) * H + h) * D + d], K and V [((b * S + j) * Hkv + h / (H / Hkv)) * D + d].
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void attention(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                          const float* sinks, __hip_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D,
                          int W) {
    // TODO: query i sees keys i - W < j <= i; sinks[h] joins the softmax's denominator only
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V, const float* sinks,
                         __hip_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D, int W) {
    // Every pointer is a device pointer (sinks too). Launch on the default stream.
}
