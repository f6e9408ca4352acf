#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

// Q, O [((b * S + i) * H + h) * D + d], K and V [((b * S + j) * Hkv + h / (H / Hkv)) * D + d],
// LSE [(b * H + h) * S + i] (float, natural log)
__global__ void attention(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                          float* LSE, size_t B, size_t S, size_t H, size_t Hkv, size_t D) {
    // TODO: e.g. nvcuda::wmma fragments (m16n16k16, __nv_bfloat16 -> float) and an online softmax
}

extern "C" void solution(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                         float* LSE, size_t B, size_t S, size_t H, size_t Hkv, size_t D) {
    // Every pointer is a device pointer. Launch on the default stream.
}
