// problem: matrix-transpose
// case: 33x65
// expect: fault: out-of-bounds write of device buffer 'output' (8580 bytes)
// The output (cols x rows) is indexed with the input's row stride: for a non-square matrix the
// last tiles write past the end of the output. A GPU silently corrupts whatever follows it.
#include <cuda_runtime.h>

constexpr int kTile = 32;

__global__ void transpose(const float* input, float* output, size_t rows, size_t cols) {
    __shared__ float tile[kTile][kTile + 1];
    const size_t c = (size_t)blockIdx.x * kTile + threadIdx.x;
    const size_t r = (size_t)blockIdx.y * kTile + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (r < rows && c < cols) ? input[r * cols + c] : 0.0f;
    __syncthreads();
    const size_t out_r = (size_t)blockIdx.x * kTile + threadIdx.y;  // a column of the input
    const size_t out_c = (size_t)blockIdx.y * kTile + threadIdx.x;  // a row of the input
    if (out_r < cols && out_c < rows) output[out_r * cols + out_c] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    const dim3 grid((unsigned)((cols + kTile - 1) / kTile), (unsigned)((rows + kTile - 1) / kTile));
    transpose<<<grid, dim3(kTile, kTile)>>>(input, output, rows, cols);
}
