#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. Sequence b: Q rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1, K and V rows
// cu_seqlens_k[b] .. cu_seqlens_k[b + 1] - 1; Q[(t * H + h) * D + d], K and V [(t * Hkv + h / (H / Hkv)) * D + d].
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void attention(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                          const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __hip_bfloat16* O, size_t B,
                          size_t H, size_t Hkv, size_t D) {
    // TODO: query i of a sequence sees keys j <= i + k_len - q_len
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                         const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __hip_bfloat16* O, size_t B,
                         size_t Tq, size_t Tk, size_t H, size_t Hkv, size_t D) {
    // Every pointer is a device pointer (cu_seqlens_* too). Launch on the default stream.
}
