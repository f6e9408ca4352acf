#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include <cstdint>

__global__ void w8a8_gemm(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                          __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO: int32 acc of A row i . B row j (e.g. __dp4a or int8 tensor cores), then
    // C = __float2bfloat16(float(acc) * a_scale[i] * b_scale[j])
}

extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale,
                         __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
