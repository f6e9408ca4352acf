#include <cstddef>
#include <cstring>

// Row by row: the first and last rows copied, each interior row's end points copied and its inner
// points computed in a loop the compiler vectorizes.
extern "C" void solution(const float* u, float* out, size_t H, size_t W, float c, float d) {
    for (size_t i = 0; i < H; ++i) {
        const float* row = u + i * W;
        float* o = out + i * W;
        if (i == 0 || i == H - 1 || W < 3) {
            std::memcpy(o, row, W * sizeof(float));
            continue;
        }
        const float* up = row - W;
        const float* down = row + W;
        o[0] = row[0];
        for (size_t j = 1; j + 1 < W; ++j) o[j] = c * row[j] + d * (up[j] + down[j] + row[j - 1] + row[j + 1]);
        o[W - 1] = row[W - 1];
    }
}
