#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: B's batch offset is forgotten (a stride of 0, as when B is taken for a weight
// broadcast over the batch), so every matrix of A is multiplied by B[0].
extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t batch, size_t M,
                         size_t N, size_t K) {
    for (size_t z = 0; z < batch; ++z)
        for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < N; ++j) {
                float acc = 0.0f;
                for (size_t k = 0; k < K; ++k) acc += float(A[(z * M + i) * K + k]) * float(B[k * N + j]);
                C[(z * M + i) * N + j] = hj_bfloat16(acc);
            }
}
