#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: K is walked in steps of 16, the width of a matrix-core tile, and the last K % 16
// products are never added (the bug of a tiled kernel written for K a multiple of its tile).
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (size_t k0 = 0; k0 + 16 <= K; k0 += 16)
                for (size_t k = k0; k < k0 + 16; ++k) acc += float(A[i * K + k]) * float(B[j * K + k]);
            C[i * N + j] = hj_bfloat16(acc);
        }
}
