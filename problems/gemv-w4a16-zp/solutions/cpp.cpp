#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

// x converted to float once; each row of W dequantized once into float, (q - zero) * scale with the
// group's zero point and scale (low nibble: the even k), then dotted with each of the M rows of x in
// float32 and rounded to half once.
extern "C" void solution(const hj_half* x, const uint8_t* W, const hj_half* scales, const uint8_t* zeros, hj_half* y,
                         size_t M, size_t N, size_t K) {
    std::vector<float> xf(M * K), w(K);
    for (size_t i = 0; i < M * K; ++i) xf[i] = float(x[i]);
    const size_t groups = (K + 127) / 128, row_bytes = K / 2;
    for (size_t n = 0; n < N; ++n) {
        const uint8_t* row = W + n * row_bytes;
        for (size_t k = 0; k < K; k += 2) {
            const float s = float(scales[n * groups + k / 128]);
            const int z = zeros[n * groups + k / 128];
            w[k] = float((int)(row[k / 2] & 15) - z) * s;
            w[k + 1] = float((int)(row[k / 2] >> 4) - z) * s;
        }
        for (size_t m = 0; m < M; ++m) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k) acc += w[k] * xf[m * K + k];
            y[m * N + n] = hj_half(acc);
        }
    }
}
