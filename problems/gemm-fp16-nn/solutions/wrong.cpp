#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: the running sum is kept in half (as a kernel built on __hfma does), so every
// addition rounds to 11 bits and the error grows with K far beyond one ulp of the result.
extern "C" void solution(const hj_half* A, const hj_half* B, hj_half* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            hj_half acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc = hj_half(float(acc) + float(A[i * K + k]) * float(B[k * N + j]));
            C[i * N + j] = acc;
        }
}
