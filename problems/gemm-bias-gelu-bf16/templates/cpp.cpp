#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>

extern "C" void solution(const hj_bfloat16* A, const hj_bfloat16* B, const hj_bfloat16* bias, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    // TODO: x = float(bias[j]) + sum over k of float(A[i * K + k]) * float(B[k * N + j]), in float32;
    // C[i * N + j] = hj_bfloat16(0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))))
}
