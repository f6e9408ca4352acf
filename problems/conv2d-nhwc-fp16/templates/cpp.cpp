#include <hipjudge/lowp.h>  // hj_half: half-precision storage, converts to and from float

#include <cstddef>

extern "C" void solution(const hj_half* input, const hj_half* weight, hj_half* output, size_t N, size_t H, size_t W,
                         size_t C, size_t K) {
    // TODO: output[n][h][w][k] = sum over r, s, c of input[n][h + r - 1][w + s - 1][c] * weight[k][r][s][c]
}
