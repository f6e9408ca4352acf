#include <cstddef>

// Blocked so that both the reads and the writes of a 32x32 tile stay in cache.
extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    const size_t tile = 32;
    for (size_t i0 = 0; i0 < rows; i0 += tile) {
        const size_t i1 = i0 + tile < rows ? i0 + tile : rows;
        for (size_t j0 = 0; j0 < cols; j0 += tile) {
            const size_t j1 = j0 + tile < cols ? j0 + tile : cols;
            for (size_t i = i0; i < i1; ++i)
                for (size_t j = j0; j < j1; ++j) output[j * rows + i] = input[i * cols + j];
        }
    }
}
