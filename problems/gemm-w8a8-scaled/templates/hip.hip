#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>

// __builtin_amdgcn_mfma_i32_32x32x16_i8(long a, long b, intx16 c, 0, 0, 0): eight int8 values of A and
// of B per lane, int32 accumulators (a 32x32 tile per wavefront).
typedef int intx16 __attribute__((ext_vector_type(16)));

__global__ void w8a8_gemm(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                          __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO: int32 acc of A row i . B row j, then C = bf16(float(acc) * a_scale[i] * b_scale[j])
}

extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                         __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
