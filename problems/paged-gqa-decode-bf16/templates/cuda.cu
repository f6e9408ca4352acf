#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__global__ void decode(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int32_t* block_table,
                       const int32_t* seq_lens, __nv_bfloat16* out, int Hq, int Hkv, int P, float scale) {
    // TODO: for every sequence b and query head h (KV head h / (Hq / Hkv)): the scores
    // scale * q[b][h] . k_j over its tokens j < seq_lens[b] (token j: page block_table[b][j / 16],
    // row j % 16), their softmax, and out[b][h] = the weighted sum of the values v_j
}

extern "C" void solution(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t Hq, size_t Hkv, size_t P, float scale) {
    // All pointers are device pointers. Launch on the default stream.
}
