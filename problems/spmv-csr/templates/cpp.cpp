#include <cstddef>

extern "C" void solution(const int* row_ptr, const int* col_idx, const float* values, const float* x, float* y,
                         size_t rows, size_t cols, size_t nnz) {
    // TODO: y[r] = sum of values[j] * x[col_idx[j]] for j in [row_ptr[r], row_ptr[r + 1])
}
