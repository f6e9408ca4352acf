// expect: COMPILE_ERROR: __builtin_amdgcn_smfmac_f32_16x16x32_f16 is not modelled on the emulated device
// problem: gemm-fp16-nn
// A sparse MFMA (gfx942's smfmac): not modelled, so refused by name at compile time rather than
// computed wrong.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void gemm(const _Float16* A, const _Float16* B, __half* C, int M, int N, int K) {
    half4 a = {};
    half8 b = {};
    floatx4 c = {};
    c = __builtin_amdgcn_smfmac_f32_16x16x32_f16(a, b, c, 0, 0, 0);
    if (threadIdx.x == 0 && M > 0 && N > 0) C[0] = __float2half(c[0]);
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    hipLaunchKernelGGL(gemm, dim3(1), dim3(64), 0, 0, reinterpret_cast<const _Float16*>(A),
                       reinterpret_cast<const _Float16*>(B), C, (int)M, (int)N, (int)K);
}
