#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include <cstdint>

// Token j of sequence b: kv_cache[(block_table[b * P + j / 64] * 64 + j % 64) * 576 + d].
__global__ void mla(const __nv_bfloat16* q, const __nv_bfloat16* kv_cache, const int32_t* block_table,
                    const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t H, size_t P, float scale) {
    // TODO
}

extern "C" void solution(const __nv_bfloat16* q, const __nv_bfloat16* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t H, size_t P, float scale) {
    // Every pointer is a device pointer. Launch on the default stream.
}
