// expect: CHECKED
// problem: matmul-fp32
// cases: 1x1x1, 7x5x3, 64x64x64, 127x129x65
// Provenance: github.com/NVIDIA/cuda-samples, Samples/0_Introduction/matrixMul/matrixMul.cu
// (NVIDIA's sample, run on its GPUs): MatrixMulCUDA<BLOCK_SIZE>, the shared-memory tiled product.
// Kept as written: the whole kernel. Adapted: the sample needs every dimension to be a multiple
// of the block, so the solution copies A and B into zero-padded scratch matrices (cudaMemcpy2D),
// runs the kernel with BLOCK_SIZE 32 and copies C's real part back; the host code replaced by
// solution().
#include <cuda_runtime.h>

template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB)
{
    // Block index
    int bx = blockIdx.x;
    int by = blockIdx.y;

    // Thread index
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // Index of the first sub-matrix of A processed by the block
    int aBegin = wA * BLOCK_SIZE * by;

    // Index of the last sub-matrix of A processed by the block
    int aEnd = aBegin + wA - 1;

    // Step size used to iterate through the sub-matrices of A
    int aStep = BLOCK_SIZE;

    // Index of the first sub-matrix of B processed by the block
    int bBegin = BLOCK_SIZE * bx;

    // Step size used to iterate through the sub-matrices of B
    int bStep = BLOCK_SIZE * wB;

    float Csub = 0;

    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];

        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];

        __syncthreads();

#pragma unroll

        for (int k = 0; k < BLOCK_SIZE; ++k) {
            Csub += As[ty][k] * Bs[k][tx];
        }

        __syncthreads();
    }

    int c               = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

static size_t round_up(size_t x) { return (x + 31) / 32 * 32; }

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const size_t pm = round_up(M), pn = round_up(N), pk = round_up(K);
    float *d_A, *d_B, *d_C;
    cudaMalloc(&d_A, pm * pk * sizeof(float));
    cudaMalloc(&d_B, pk * pn * sizeof(float));
    cudaMalloc(&d_C, pm * pn * sizeof(float));
    cudaMemset(d_A, 0, pm * pk * sizeof(float));
    cudaMemset(d_B, 0, pk * pn * sizeof(float));
    cudaMemcpy2D(d_A, pk * sizeof(float), A, K * sizeof(float), K * sizeof(float), M, cudaMemcpyDeviceToDevice);
    cudaMemcpy2D(d_B, pn * sizeof(float), B, N * sizeof(float), N * sizeof(float), K, cudaMemcpyDeviceToDevice);
    dim3 threads(32, 32);
    dim3 grid((unsigned)(pn / threads.x), (unsigned)(pm / threads.y));
    MatrixMulCUDA<32><<<grid, threads>>>(d_C, d_A, d_B, (int)pk, (int)pn);
    cudaMemcpy2D(C, N * sizeof(float), d_C, pn * sizeof(float), N * sizeof(float), M, cudaMemcpyDeviceToDevice);
    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
}
