// expect: CHECKED
// problem: matrix-transpose
// Diagonal block reordering (against partition camping) on a square grid of tiles, 32x8 threads
// with a strided loop, blocks outside the matrix leaving early.
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_diagonal(const float* in, float* out, int rows, int cols, int tiles) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    const int bx = (blockIdx.x + blockIdx.y) % tiles, by = blockIdx.x;  // diagonal coordinates
    int x = bx * TILE_DIM + threadIdx.x, y = by * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = by * TILE_DIM + threadIdx.x;
    y = bx * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    const int tx = (int)((cols + TILE_DIM - 1) / TILE_DIM), ty = (int)((rows + TILE_DIM - 1) / TILE_DIM);
    const int tiles = tx > ty ? tx : ty;
    transpose_diagonal<<<dim3(tiles, tiles), dim3(TILE_DIM, BLOCK_ROWS)>>>(input, output, (int)rows, (int)cols, tiles);
}
