#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>

// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b, floatx16 c, 0, 0, 0) multiplies a 32x8
// and an 8x32 bfloat16 tile (their bits, in short vectors) held across the wavefront's 64 lanes into
// float32 accumulators. Row r uses W + expert_ids[r] * N * K (N x K, contiguous along k).
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void grouped(const __hip_bfloat16* X, const __hip_bfloat16* W, const int32_t* expert_ids,
                        __hip_bfloat16* Y, size_t R, size_t N, size_t K, size_t E) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* X, const __hip_bfloat16* W, const int32_t* expert_ids,
                         __hip_bfloat16* Y, size_t R, size_t N, size_t K, size_t E) {
    // Every pointer is a device pointer. Launch on the default stream.
}
