#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

// Q, K, V, O, dO, dQ, dK, dV [((b * S + i) * H + h) * D + d]; LSE [(b * H + h) * S + i] (float, natural log)
__global__ void attention_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                              const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE, __nv_bfloat16* dQ,
                              __nv_bfloat16* dK, __nv_bfloat16* dV, size_t B, size_t S, size_t H, size_t D) {
    // TODO: e.g. nvcuda::wmma fragments (m16n16k16, __nv_bfloat16 -> float)
}

extern "C" void solution(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE, __nv_bfloat16* dQ,
                         __nv_bfloat16* dK, __nv_bfloat16* dV, size_t B, size_t S, size_t H, size_t D) {
    // Every pointer is a device pointer. Launch on the default stream.
}
