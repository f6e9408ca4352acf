#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <cstdint>

// Sequence b: Q rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1, K and V rows cu_seqlens_k[b] ..
// cu_seqlens_k[b + 1] - 1; Q[(t * H + h) * D + d], K and V [(t * Hkv + h / (H / Hkv)) * D + d].
__global__ void attention(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                          const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __nv_bfloat16* O, size_t B,
                          size_t H, size_t Hkv, size_t D) {
    // TODO: e.g. nvcuda::wmma fragments (m16n16k16, __nv_bfloat16 -> float) and an online softmax;
    // query i of a sequence sees keys j <= i + k_len - q_len
}

extern "C" void solution(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __nv_bfloat16* O, size_t B,
                         size_t Tq, size_t Tk, size_t H, size_t Hkv, size_t D) {
    // Every pointer is a device pointer (cu_seqlens_* too). Launch on the default stream.
}
