#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <cstdint>

// w1[e] is 2I x H (gate rows, then up rows), w2[e] is H x I: both contiguous along the dimension the
// GEMM sums over. act can hold the activations between two kernels.
__global__ void fused_moe(const __nv_bfloat16* x, const __nv_bfloat16* w1, const __nv_bfloat16* w2,
                          const int32_t* topk_ids, const float* topk_weights, __nv_bfloat16* act,
                          __nv_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    // TODO: e.g. nvcuda::wmma fragments (m16n16k16, __nv_bfloat16 -> float)
}

extern "C" void solution(const __nv_bfloat16* x, const __nv_bfloat16* w1, const __nv_bfloat16* w2,
                         const int32_t* topk_ids, const float* topk_weights, __nv_bfloat16* act,
                         __nv_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    // Every pointer is a device pointer. Launch on the default stream.
}
