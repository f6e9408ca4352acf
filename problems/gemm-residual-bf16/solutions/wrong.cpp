#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: C is written with the residual and then used as the accumulator, as a GEMM with
// beta = 1 updates its output in place; but C is bfloat16, so every one of the K products is added
// in float and rounded back to bfloat16, each step off by up to half an ulp of the running sum.
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, const hj_bfloat16* residual, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M * N; ++i) C[i] = residual[i];
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j)
            for (size_t k = 0; k < K; ++k)
                C[i * N + j] = hj_bfloat16(float(C[i * N + j]) + float(A[i * K + k]) * float(B[j * K + k]));
}
