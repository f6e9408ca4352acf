#include <hipjudge/lowp.h>  // hj_fp8_e4m3fnuz and hj_bfloat16: storage that converts to and from float

#include <cstddef>

// A is M x K column-major (A[k * M + m]), B is N x K column-major (B[k * N + n]);
// A_scale[(k / 128) * M + m], B_scale[(k / 128) * ((N + 127) / 128) + n / 128].
extern "C" void solution(const hj_fp8_e4m3fnuz* A, const hj_fp8_e4m3fnuz* B, const float* A_scale,
                         const float* B_scale, hj_bfloat16* C, size_t M, size_t N, size_t K) {
    // TODO: C[m * N + n] = hj_bfloat16(sum over k of float(A[..]) * A_scale[..] * float(B[..]) * B_scale[..])
}
