// expect: CHECKED
// problem: matmul-fp32
// The cuda-samples habit: the kernel's body is compiled only for the architectures it was written
// for (`#if __CUDA_ARCH__ >= 800`), an empty kernel for the others; the host side asks for the
// device's compute capability. On an H100 (sm_90) the body runs, so on the emulated device too.
#include <cuda_runtime.h>

#define TILE 16

__global__ void gemm_tiled(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const size_t row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && k0 + threadIdx.y < K) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
#endif
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    int device = 0, major = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (major < 8) return;  // the samples' "requires SM 8.0 or higher" exit
    gemm_tiled<<<dim3((unsigned)((N + TILE - 1) / TILE), (unsigned)((M + TILE - 1) / TILE)), dim3(TILE, TILE)>>>(
        A, B, C, M, N, K);
}
