#include <cuda_runtime.h>

// CSR-vector: one 32-lane warp per row, eight rows per block; each lane sums a strided part of the
// row in float32, the warp reduces with __shfl_down_sync.
__global__ void spmv(const int* row_ptr, const int* col_idx, const float* values, const float* x, float* y,
                     size_t rows) {
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    float sum = 0.0f;
    if (row < rows) {
        const int end = row_ptr[row + 1];
        for (int j = row_ptr[row] + lane; j < end; j += 32) sum += values[j] * x[col_idx[j]];
    }
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (row < rows && lane == 0) y[row] = sum;
}

extern "C" void solution(const int* row_ptr, const int* col_idx, const float* values, const float* x, float* y,
                         size_t rows, size_t cols, size_t nnz) {
    spmv<<<(unsigned)((rows + 7) / 8), 256>>>(row_ptr, col_idx, values, x, y, rows);
}
