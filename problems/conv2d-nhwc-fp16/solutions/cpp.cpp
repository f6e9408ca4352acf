#include <hipjudge/lowp.h>

#include <cstddef>
#include <vector>

// Direct convolution with float32 copies: the weights transposed to [r][s][c][k] so that the
// innermost loop runs over output channels, contiguous in both the weights and the accumulator row
// (the compiler vectorizes it).
extern "C" void solution(const hj_half* input, const hj_half* weight, hj_half* output, size_t N, size_t H, size_t W,
                         size_t C, size_t K) {
    std::vector<float> x(N * H * W * C), wt(9 * C * K), acc(K);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(input[i]);
    for (size_t k = 0; k < K; ++k)
        for (size_t tc = 0; tc < 9 * C; ++tc) wt[tc * K + k] = float(weight[k * 9 * C + tc]);
    for (size_t n = 0; n < N; ++n)
        for (size_t h = 0; h < H; ++h)
            for (size_t w = 0; w < W; ++w) {
                for (size_t k = 0; k < K; ++k) acc[k] = 0.0f;
                for (size_t r = 0; r < 3; ++r) {
                    if (h + r < 1 || h + r > H) continue;  // input row h + r - 1 outside the image
                    for (size_t s = 0; s < 3; ++s) {
                        if (w + s < 1 || w + s > W) continue;
                        const float* px = &x[((n * H + h + r - 1) * W + w + s - 1) * C];
                        const float* taps = &wt[(r * 3 + s) * C * K];
                        for (size_t c = 0; c < C; ++c) {
                            const float v = px[c];
                            const float* row = taps + c * K;
                            for (size_t k = 0; k < K; ++k) acc[k] += v * row[k];
                        }
                    }
                }
                hj_half* o = output + ((n * H + h) * W + w) * K;
                for (size_t k = 0; k < K; ++k) o[k] = hj_half(acc[k]);
            }
}
