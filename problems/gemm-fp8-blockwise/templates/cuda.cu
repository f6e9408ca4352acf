#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t

// NVIDIA has no FNUZ fp8: each A and B element is the byte of an E4M3 FNUZ value (sign, 4 exponent
// bits with bias 8, 3 mantissa bits; 0x80 is NaN). A is M x K column-major (A[k * M + m]), B is
// N x K column-major (B[k * N + n]); A_scale[(k / 128) * M + m],
// B_scale[(k / 128) * ((N + 127) / 128) + n / 128].
__global__ void gemm(const __nv_fp8_storage_t* A, const __nv_fp8_storage_t* B, const float* A_scale,
                     const float* B_scale, __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO
}

extern "C" void solution(const __nv_fp8_storage_t* A, const __nv_fp8_storage_t* B, const float* A_scale,
                         const float* B_scale, __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
