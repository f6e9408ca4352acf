#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>
#include <cstdint>

extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    // TODO: acc = sum over k of int32(A[i * K + k]) * int32(B[j * K + k]) (exact in int32);
    // C[i * N + j] = hj_bfloat16(float(acc) * a_scale[i] * b_scale[j])
}
