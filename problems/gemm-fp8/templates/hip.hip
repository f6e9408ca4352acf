#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c, 0, 0, 0): eight fp8 values
// of A and of B per lane, a 32x32 float32 accumulator tile across the wavefront.
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void gemm(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, float* C, size_t M, size_t N,
                     size_t K) {
    // TODO
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, float* C, size_t M, size_t N,
                         size_t K) {
    // A, B and C are device pointers. Launch on the default stream.
}
