// expect: CHECKED
// problem: matrix-transpose
// cases: 1x1, 1x17, 33x65, 257x129, 1000x3
// Provenance: github.com/NVIDIA-developer-blog/code-samples, series/cuda-cpp/transpose/transpose.cu
// (Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++", NVIDIA developer blog; run on NVIDIA
// GPUs): transposeNoBankConflicts, the padded shared tile with TILE_DIM 32 and BLOCK_ROWS 8. Kept
// as written: the whole kernel. Adapted: the kernel transposes a square matrix whose side is a
// multiple of TILE_DIM (its width is gridDim.x * TILE_DIM), so the solution copies the input into
// a zero-padded square scratch matrix (cudaMemcpy2D), transposes that and copies the real part
// out; the host code replaced by solution().
#include <cuda_runtime.h>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

__global__ void transposeNoBankConflicts(float *odata, const float *idata)
{
  __shared__ float tile[TILE_DIM][TILE_DIM+1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     odata[(y+j)*width + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
  const size_t longest = rows > cols ? rows : cols;
  const size_t side = (longest + TILE_DIM - 1) / TILE_DIM * TILE_DIM;
  float *d_in, *d_out;
  cudaMalloc(&d_in, side * side * sizeof(float));
  cudaMalloc(&d_out, side * side * sizeof(float));
  cudaMemset(d_in, 0, side * side * sizeof(float));
  cudaMemcpy2D(d_in, side * sizeof(float), input, cols * sizeof(float), cols * sizeof(float), rows,
               cudaMemcpyDeviceToDevice);
  dim3 dimGrid((unsigned)(side / TILE_DIM), (unsigned)(side / TILE_DIM), 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
  transposeNoBankConflicts<<<dimGrid, dimBlock>>>(d_out, d_in);
  cudaMemcpy2D(output, rows * sizeof(float), d_out, side * sizeof(float), rows * sizeof(float), cols,
               cudaMemcpyDeviceToDevice);
  cudaFree(d_in);
  cudaFree(d_out);
}
