#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: the running sum is kept in bfloat16, so every addition rounds to 8 bits of
// mantissa and the error grows with K far beyond one ulp of the result.
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            hj_bfloat16 acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc = hj_bfloat16(float(acc) + float(A[i * K + k]) * float(B[k * N + j]));
            C[i * N + j] = acc;
        }
}
