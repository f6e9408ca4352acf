#include <hip/hip_runtime.h>

__global__ void matmul(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    // TODO: e.g. each block computes a tile of C from tiles of A and B staged in shared memory
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    // A, B and C are device pointers. Launch on the default stream.
}
