#include <hipjudge/lowp.h>  // hj_half: half storage, converts to and from float

#include <cstddef>
#include <cstdint>

// q[n][k] = (W[n * (K / 2) + k / 2] >> (4 * (k % 2))) & 15; with g = n * ((K + 127) / 128) + k / 128,
// weight[n][k] = (q[n][k] - zeros[g]) * scales[g]
extern "C" void solution(const hj_half* x, const uint8_t* W, const hj_half* scales, const uint8_t* zeros, hj_half* y,
                         size_t M, size_t N, size_t K) {
    // TODO: y[m * N + n] = hj_half(sum over k of weight[n][k] * float(x[m * K + k])), in float32
}
