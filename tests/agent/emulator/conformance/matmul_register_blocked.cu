// expect: CHECKED
// problem: matmul-fp32
// 64x64 tiles, 16x16 threads, each computing a 4x4 block of C in registers; tiles of A and B
// loaded cooperatively with strided loops, #pragma unroll on the inner product.
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;

__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int idx = tid; idx < BM * BK; idx += 256) {
            const int r = idx / BK, k = idx % BK;
            As[k][r] = row0 + r < M && k0 + k < K ? A[(size_t)(row0 + r) * K + k0 + k] : 0.0f;
        }
        for (int idx = tid; idx < BK * BN; idx += 256) {
            const int k = idx / BN, c = idx % BN;
            Bs[k][c] = k0 + k < K && col0 + c < N ? B[(size_t)(k0 + k) * N + col0 + c] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            const int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    gemm<<<grid, dim3(16, 16)>>>(A, B, C, (int)M, (int)N, (int)K);
}
