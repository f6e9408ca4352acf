#include <cuda_runtime.h>

#include <cstdint>

__global__ void gemm(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    // TODO
}

extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    // A, B and C are device pointers. Launch on the default stream.
}
