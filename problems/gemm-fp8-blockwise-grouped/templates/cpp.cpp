#include <hipjudge/lowp.h>  // hj_fp8_e4m3fnuz and hj_bfloat16: storage that converts to and from float

#include <cstddef>
#include <cstdint>

// X is R x K (X[r * K + k]), W is E x N x K (W[(e * N + n) * K + k]); X_scale[(k / 128) * R + r],
// W_scale[(e * ((N + 127) / 128) + n / 128) * ((K + 127) / 128) + k / 128]; e = expert_ids[r].
extern "C" void solution(const hj_fp8_e4m3fnuz* X, const float* X_scale, const hj_fp8_e4m3fnuz* W,
                         const float* W_scale, const int32_t* expert_ids, hj_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    // TODO: Y[r * N + n] = hj_bfloat16(sum over k of float(X[..]) * X_scale[..] * float(W[..]) * W_scale[..])
}
