#include <cstddef>

// Wrong on purpose: the interior loops stop one short (i < H - 2, j < W - 2), so the last interior
// row and column are treated as boundary and copied instead of updated.
extern "C" void solution(const float* u, float* out, size_t H, size_t W, float c, float d) {
    for (size_t i = 0; i < H; ++i)
        for (size_t j = 0; j < W; ++j) {
            const size_t k = i * W + j;
            if (i >= 1 && i + 2 < H && j >= 1 && j + 2 < W)
                out[k] = c * u[k] + d * (u[k - W] + u[k + W] + u[k - 1] + u[k + 1]);
            else
                out[k] = u[k];
        }
}
