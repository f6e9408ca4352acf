// expect: CHECKED
// problem: matrix-transpose
// judge: agent
// The canonical tiled transpose: a 32x33 shared tile, blocks of 32x8 threads, each thread moving
// four rows in a strided loop. Issue 29: the first write into the tile, on a fresh host thread,
// lost the float held in a vector register (glibc's dynamic-TLS slow path), so 1x1 returned 0.
#include <hip/hip_runtime.h>

constexpr int TILE = 32, ROWS = 8;

__global__ void transpose(const float* in, float* out, size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    size_t x = blockIdx.x * TILE + threadIdx.x;
    size_t y = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (x < cols && y + k < rows) tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (x < rows && y + k < cols) out[(y + k) * rows + x] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    hipLaunchKernelGGL(transpose, grid, dim3(TILE, ROWS), 0, 0, input, output, rows, cols);
}
