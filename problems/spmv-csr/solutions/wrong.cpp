#include <cstddef>

// Wrong on purpose: an off-by-one in the row's loop (j + 1 < row_ptr[r + 1]) drops every row's last
// entry.
extern "C" void solution(const int* row_ptr, const int* col_idx, const float* values, const float* x, float* y,
                         size_t rows, size_t cols, size_t nnz) {
    for (size_t r = 0; r < rows; ++r) {
        float sum = 0.0f;
        for (int j = row_ptr[r]; j + 1 < row_ptr[r + 1]; ++j) sum += values[j] * x[col_idx[j]];
        y[r] = sum;
    }
}
