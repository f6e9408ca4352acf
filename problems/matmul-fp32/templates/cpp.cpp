#include <cstddef>

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    // TODO: C[i * N + j] = sum over k of A[i * K + k] * B[k * N + j]
}
