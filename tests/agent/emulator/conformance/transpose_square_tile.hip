// expect: CHECKED
// problem: matrix-transpose
// 32x32 blocks, one element per thread, no loop; a padded tile against bank conflicts.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, size_t rows, size_t cols) {
    __shared__ float tile[32][33];
    size_t r = blockIdx.y * 32 + threadIdx.y, c = blockIdx.x * 32 + threadIdx.x;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    __syncthreads();
    r = blockIdx.x * 32 + threadIdx.y;  // output row = input column
    c = blockIdx.y * 32 + threadIdx.x;
    if (r < cols && c < rows) out[r * rows + c] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    transpose<<<dim3((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32)), dim3(32, 32)>>>(input, output,
                                                                                                 rows, cols);
}
