#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c, 0, 0, 0) multiplies a 32x16
// and a 16x32 fp8 E4M3 FNUZ tile (eight values per lane in a 64-bit register) into float32
// accumulators. A is M x K column-major (A[k * M + m]), B is N x K column-major (B[k * N + n]);
// A_scale[(k / 128) * M + m], B_scale[(k / 128) * ((N + 127) / 128) + n / 128].
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void gemm(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, const float* A_scale,
                     const float* B_scale, __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, const float* A_scale,
                         const float* B_scale, __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
