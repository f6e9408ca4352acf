#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// C = residual + A B^T, B stored N x K. __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(bf16x4 a, bf16x4 b,
// floatx16 c, 0, 0, 0) multiplies a 32x8 and an 8x32 bfloat16 tile (their bits, in short vectors) held
// across the wavefront's 64 lanes into float32 accumulators; here both operands are contiguous along k.
// Add the residual in the epilogue, to the float32 accumulators.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void gemm_residual(const __hip_bfloat16* A, const __hip_bfloat16* B, const __hip_bfloat16* residual,
                              __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO
}

extern "C" void solution(const __hip_bfloat16* A, const __hip_bfloat16* B, const __hip_bfloat16* residual,
                         __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // A, B, residual and C are device pointers. Launch on the default stream.
}
