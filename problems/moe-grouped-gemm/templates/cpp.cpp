#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* X, const hj_bfloat16* W, const int32_t* expert_ids, hj_bfloat16* Y,
                         size_t R, size_t N, size_t K, size_t E) {
    // TODO: Y[r * N + n] = hj_bfloat16(sum over k of float(X[r * K + k]) * float(W[(expert_ids[r] * N + n) * K + k]))
}
