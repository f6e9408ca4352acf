#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t

#include <cstdint>

// NVIDIA has no FNUZ fp8: each X and W element is the byte of an E4M3 FNUZ value (sign, 4 exponent
// bits with bias 8, 3 mantissa bits; 0x80 is NaN). X is R x K (X[r * K + k]), W is E x N x K
// (W[(e * N + n) * K + k]); X_scale[(k / 128) * R + r],
// W_scale[(e * ((N + 127) / 128) + n / 128) * ((K + 127) / 128) + k / 128]; e = expert_ids[r].
__global__ void grouped(const __nv_fp8_storage_t* X, const float* X_scale, const __nv_fp8_storage_t* W,
                        const float* W_scale, const int32_t* expert_ids, __nv_bfloat16* Y, size_t R, size_t N,
                        size_t K, size_t E) {
    // TODO
}

extern "C" void solution(const __nv_fp8_storage_t* X, const float* X_scale, const __nv_fp8_storage_t* W,
                         const float* W_scale, const int32_t* expert_ids, __nv_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    // Every pointer is a device pointer. Launch on the default stream.
}
