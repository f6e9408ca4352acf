#include <hip/hip_runtime.h>

// 32x32 tiles staged in shared memory (padded by one column against bank conflicts); a block of
// 32x8 threads moves one tile, four rows per thread, so reads and writes are both coalesced.
constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

__global__ void __launch_bounds__(kTile * kRowsPerPass) transpose(const float* __restrict__ input,
                                                                  float* __restrict__ output,
                                                                  size_t rows, size_t cols) {
    __shared__ float tile[kTile][kTile + 1];
    const size_t col0 = (size_t)blockIdx.x * kTile;
    const size_t row0 = (size_t)blockIdx.y * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int k = ty; k < kTile; k += kRowsPerPass) {
        const size_t r = row0 + k, c = col0 + tx;
        if (r < rows && c < cols) tile[k][tx] = input[r * cols + c];
    }
    __syncthreads();
    // Output row = input column (col0 + k), output column = input row (row0 + tx).
    for (int k = ty; k < kTile; k += kRowsPerPass) {
        const size_t r = col0 + k, c = row0 + tx;
        if (r < cols && c < rows) output[r * rows + c] = tile[tx][k];
    }
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    // One block per tile; gridDim.y is limited to 65535 tiles (rows up to 2,097,120).
    const dim3 grid((unsigned)((cols + kTile - 1) / kTile), (unsigned)((rows + kTile - 1) / kTile));
    const dim3 block(kTile, kRowsPerPass);
    hipLaunchKernelGGL(transpose, dim3(grid), dim3(block), 0, 0, input, output, rows, cols);
}
