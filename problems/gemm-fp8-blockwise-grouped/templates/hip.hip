#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#include <cstdint>

// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(long a, long b, floatx16 c, 0, 0, 0) multiplies a 32x16
// and a 16x32 fp8 E4M3 FNUZ tile (eight values per lane in a 64-bit register) into float32
// accumulators. X is R x K (X[r * K + k]), W is E x N x K (W[(e * N + n) * K + k]);
// X_scale[(k / 128) * R + r], W_scale[(e * ((N + 127) / 128) + n / 128) * ((K + 127) / 128) + k / 128];
// row r uses expert e = expert_ids[r].
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void grouped(const __hip_fp8_e4m3_fnuz* X, const float* X_scale, const __hip_fp8_e4m3_fnuz* W,
                        const float* W_scale, const int32_t* expert_ids, __hip_bfloat16* Y, size_t R, size_t N,
                        size_t K, size_t E) {
    // TODO
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* X, const float* X_scale, const __hip_fp8_e4m3_fnuz* W,
                         const float* W_scale, const int32_t* expert_ids, __hip_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    // Every pointer is a device pointer. Launch on the default stream.
}
