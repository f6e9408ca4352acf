#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t

#include <cstdint>

// NVIDIA has no FNUZ fp8: each kv_cache element is the byte of an E4M3 FNUZ value (sign, 4 exponent
// bits with bias 8, 3 mantissa bits; 0x80 is NaN). Token j of sequence b:
// kv_cache[(block_table[b * P + j / 64] * 64 + j % 64) * 576 + d], a value c8; the cached value is
// kv_scale * c8.
__global__ void mla(const __nv_bfloat16* q, const __nv_fp8_storage_t* kv_cache, const int32_t* block_table,
                    const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                    float kv_scale) {
    // TODO
}

extern "C" void solution(const __nv_bfloat16* q, const __nv_fp8_storage_t* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                         float kv_scale) {
    // Every pointer is a device pointer. Launch on the default stream.
}
