#include <hip/hip_runtime.h>

#include <cstdint>

// __builtin_amdgcn_mfma_i32_32x32x16_i8(long a, long b, intx16 c, 0, 0, 0): eight int8 values of A
// and of B per lane, a 32x32 int32 accumulator tile across the wavefront.
typedef int intx16 __attribute__((ext_vector_type(16)));

__global__ void gemm(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    // TODO
}

extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    // A, B and C are device pointers. Launch on the default stream.
}
