#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#include <cstdint>

// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c, 0, 0, 0) multiplies a 32x16
// and a 16x32 fp8 E4M3 FNUZ tile (eight values per lane in a 64-bit register) into float32
// accumulators; __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) does
// the same for a 32x8 and an 8x32 bfloat16 tile (their bits, in short vectors). Token j of sequence b:
// kv_cache[(block_table[b * P + j / 64] * 64 + j % 64) * 576 + d], an fp8 value c8; the cached value
// is kv_scale * c8.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void mla(const __hip_bfloat16* q, const __hip_fp8_e4m3_fnuz* kv_cache, const int32_t* block_table,
                    const int32_t* seq_lens, __hip_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                    float kv_scale) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* q, const __hip_fp8_e4m3_fnuz* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __hip_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                         float kv_scale) {
    // Every pointer is a device pointer. Launch on the default stream.
}
