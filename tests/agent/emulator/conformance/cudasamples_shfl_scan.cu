// expect: CHECKED
// problem: prefix-sum
// cases: n=1, n=5, n=1000, n=65537
// Provenance: github.com/NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/shfl_scan/
// shfl_scan.cu (NVIDIA's sample, run on its GPUs): shfl_scan_test and uniform_add. Kept as
// written: both kernels' lane code (the __shfl_up_sync scan of each warp, the warp sums scanned
// by warp 0 with a mask of blockDim.x / warpSize lanes, the uniform add). Adapted: the input is
// copied to a zero-padded scratch buffer whose length is a multiple of the block, and the sample's
// two levels (blocks, then the block sums) became a recursion for any n; the host code replaced
// by solution().
#include <cuda_runtime.h>

__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  // determine a warp_id within a block
  int warp_id = threadIdx.x / warpSize;

  int value = data[id];

#pragma unroll
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);

    if (lane_id >= i) value += n;
  }

  // write the sum of the warp to smem
  if (threadIdx.x % warpSize == warpSize - 1) {
    sums[warp_id] = value;
  }

  __syncthreads();

  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];

    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));

      if (lane_id >= i) warp_sum += n;
    }

    sums[lane_id] = warp_sum;
  }

  __syncthreads();

  int blockSum = 0;

  if (warp_id > 0) {
    blockSum = sums[warp_id - 1];
  }

  value += blockSum;

  data[id] = value;

  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
    partial_sums[blockIdx.x] = value;
  }
}

__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);

  if (id > len) return;

  if (threadIdx.x == 0) {
    buf = partial_sums[blockIdx.x];
  }

  __syncthreads();
  data[id] += buf;
}

static const int blockSize = 256;

static unsigned int iDivUp(unsigned int dividend, unsigned int divisor) {
  return ((dividend % divisor) == 0) ? (dividend / divisor)
                                     : (dividend / divisor + 1);
}

// Scans `padded` (a multiple of blockSize elements) in place.
static void scan(int *d_data, int padded) {
  const int gridSize = padded / blockSize;
  const int shmem_sz = blockSize / 32 * sizeof(int);
  if (gridSize == 1) {
    shfl_scan_test<<<1, blockSize, shmem_sz>>>(d_data, 32);
    return;
  }
  const int partials = iDivUp(gridSize, blockSize) * blockSize;
  int *d_partial_sums;
  cudaMalloc(&d_partial_sums, partials * sizeof(int));
  cudaMemset(d_partial_sums, 0, partials * sizeof(int));
  shfl_scan_test<<<gridSize, blockSize, shmem_sz>>>(d_data, 32, d_partial_sums);
  scan(d_partial_sums, partials);
  uniform_add<<<gridSize - 1, blockSize>>>(d_data + blockSize, d_partial_sums, padded);
  cudaFree(d_partial_sums);
}

extern "C" void solution(const int *input, int *output, size_t n) {
  const int padded = iDivUp((unsigned)n, blockSize) * blockSize;
  int *d_data;
  cudaMalloc(&d_data, padded * sizeof(int));
  cudaMemset(d_data, 0, padded * sizeof(int));
  cudaMemcpy(d_data, input, n * sizeof(int), cudaMemcpyDeviceToDevice);
  scan(d_data, padded);
  cudaMemcpy(output, d_data, n * sizeof(int), cudaMemcpyDeviceToDevice);
  cudaFree(d_data);
}
