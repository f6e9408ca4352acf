#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cstddef>

extern "C" void solution(const hj_bfloat16* x, const int* positions, const float* cos, const float* sin,
                         hj_bfloat16* out, size_t tokens, size_t heads, size_t head_dim, size_t max_pos) {
    // TODO: rotate (x[i], x[i + head_dim / 2]) by cos/sin[positions[t]][i]
}
