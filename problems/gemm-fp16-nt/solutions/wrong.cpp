#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: B is read as if it were K x N (an NN kernel reused for an NT layer), so every
// product pairs A[i][k] with the wrong element of the weight.
extern "C" void solution(const hj_half* A, const hj_half* B, hj_half* C, size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc += float(A[i * K + k]) * float(B[k * N + j]);
            C[i * N + j] = hj_half(acc);
        }
}
