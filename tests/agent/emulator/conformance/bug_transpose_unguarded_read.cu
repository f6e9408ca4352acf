// expect: RUNTIME_ERROR: out-of-bounds read of device buffer 'input'
// problem: matrix-transpose
// cases: 33x65
// The tile load checks only the column: rows past the matrix's last are read anyway.
#include <cuda_runtime.h>

__global__ void transpose(const float* in, float* out, size_t rows, size_t cols) {
    __shared__ float tile[32][33];
    size_t r = blockIdx.y * 32 + threadIdx.y, c = blockIdx.x * 32 + threadIdx.x;
    if (c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    __syncthreads();
    r = blockIdx.x * 32 + threadIdx.y;
    c = blockIdx.y * 32 + threadIdx.x;
    if (r < cols && c < rows) out[r * rows + c] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    transpose<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32)), dim3(32, 32)>>>(input, output,
                                                                                                 rows, cols);
}
