#include <hipjudge/lowp.h>

#include <cstddef>

// Wrong on purpose: the filter flipped (weight[k][2 - r][2 - s][c]), convolution as signal
// processing defines it, where deep learning frameworks compute a cross-correlation.
extern "C" void solution(const hj_half* input, const hj_half* weight, hj_half* output, size_t N, size_t H, size_t W,
                         size_t C, size_t K) {
    for (size_t n = 0; n < N; ++n)
        for (size_t h = 0; h < H; ++h)
            for (size_t w = 0; w < W; ++w)
                for (size_t k = 0; k < K; ++k) {
                    float acc = 0.0f;
                    for (size_t r = 0; r < 3; ++r)
                        for (size_t s = 0; s < 3; ++s) {
                            if (h + r < 1 || h + r > H || w + s < 1 || w + s > W) continue;
                            for (size_t c = 0; c < C; ++c)
                                acc += float(input[((n * H + h + r - 1) * W + w + s - 1) * C + c]) *
                                       float(weight[((k * 3 + 2 - r) * 3 + 2 - s) * C + c]);
                        }
                    output[((n * H + h) * W + w) * K + k] = hj_half(acc);
                }
}
