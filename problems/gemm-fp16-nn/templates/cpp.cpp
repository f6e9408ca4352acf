#include <hipjudge/lowp.h>  // hj_half: half storage, converts to and from float

#include <cstddef>

extern "C" void solution(const hj_half* A, const hj_half* B, hj_half* C, size_t M, size_t N, size_t K) {
    // TODO: C[i * N + j] = hj_half(sum over k of float(A[i * K + k]) * float(B[k * N + j]))
}
