#include <algorithm>
#include <cstddef>
#include <vector>

// Wrong on purpose: the partial sort compares values only, so equal values come out in whatever
// order the heap leaves them (not ascending index): right on rows without ties, wrong on the grid
// rows.
extern "C" void solution(const float* x, float* values, int* indices, size_t rows, size_t cols, size_t k) {
    std::vector<int> order(cols);
    for (size_t r = 0; r < rows; ++r) {
        const float* row = x + r * cols;
        for (size_t c = 0; c < cols; ++c) order[c] = (int)c;
        std::partial_sort(order.begin(), order.begin() + (long)k, order.end(),
                          [row](int a, int b) { return row[a] > row[b]; });
        for (size_t j = 0; j < k; ++j) {
            indices[r * k + j] = order[j];
            values[r * k + j] = row[order[j]];
        }
    }
}
