#include <algorithm>
#include <cstddef>
#include <vector>

// Per row, a partial sort of the column indices by (value descending, index ascending): O(cols
// log k), and the order is total, so ties come out in index order.
extern "C" void solution(const float* x, float* values, int* indices, size_t rows, size_t cols, size_t k) {
    std::vector<int> order(cols);
    for (size_t r = 0; r < rows; ++r) {
        const float* row = x + r * cols;
        for (size_t c = 0; c < cols; ++c) order[c] = (int)c;
        std::partial_sort(order.begin(), order.begin() + (long)k, order.end(), [row](int a, int b) {
            return row[a] > row[b] || (row[a] == row[b] && a < b);
        });
        for (size_t j = 0; j < k; ++j) {
            indices[r * k + j] = order[j];
            values[r * k + j] = row[order[j]];
        }
    }
}
