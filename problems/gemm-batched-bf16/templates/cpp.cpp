#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>

extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, hj_bfloat16* C, size_t batch, size_t M,
                         size_t N, size_t K) {
    // TODO: C[(b * M + i) * N + j] = hj_bfloat16(sum over k of float(A[(b * M + i) * K + k]) * float(B[(b * K + k) * N + j]))
}
