#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>

// Wrong on purpose: the nibbles are read high first (bits 4-7 taken for the even k), the packing
// order of another quantizer.
extern "C" void solution(const hj_half* x, const uint8_t* W, const hj_half* scales, hj_half* y, size_t N, size_t K) {
    const size_t groups = (K + 127) / 128;
    for (size_t n = 0; n < N; ++n) {
        float acc = 0.0f;
        for (size_t k = 0; k < K; k += 2) {
            const uint8_t b = W[n * (K / 2) + k / 2];
            const float s = float(scales[n * groups + k / 128]);
            acc += float((int)(b >> 4) - 8) * s * float(x[k]) + float((int)(b & 15) - 8) * s * float(x[k + 1]);
        }
        y[n] = hj_half(acc);
    }
}
