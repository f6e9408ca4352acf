#include <hip/hip_runtime.h>

// Classic shared-memory SGEMM: a block of 16x16 threads computes a 128x128 tile of C, each thread
// an 8x8 sub-grid (rows ty + 16 i, columns tx + 16 j) held in registers. A and B are staged through
// shared memory 8 columns / rows of K at a time; out-of-range elements are loaded as zeros so any
// M, N, K works.
constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kDim = 16;               // threads per block side
constexpr int kTM = kBM / kDim;        // 8 rows of C per thread
constexpr int kTN = kBN / kDim;        // 8 columns of C per thread
constexpr int kThreads = kDim * kDim;  // 256

__global__ void __launch_bounds__(kThreads) sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                                  float* __restrict__ C, size_t M, size_t N, size_t K) {
    __shared__ float As[kBK][kBM + 4];  // As[k][m]: A tile stored transposed
    __shared__ float Bs[kBK][kBN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * kDim + tx;
    const size_t m0 = (size_t)blockIdx.y * kBM;
    const size_t n0 = (size_t)blockIdx.x * kBN;

    float acc[kTM][kTN];
    for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

    for (size_t k0 = 0; k0 < K; k0 += kBK) {
        for (int l = 0; l < kBM * kBK / kThreads; ++l) {
            const int idx = tid + l * kThreads;
            const int r = idx / kBK, c = idx % kBK;
            const size_t gr = m0 + r, gc = k0 + c;
            As[c][r] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        for (int l = 0; l < kBK * kBN / kThreads; ++l) {
            const int idx = tid + l * kThreads;
            const int r = idx / kBN, c = idx % kBN;
            const size_t gr = k0 + r, gc = n0 + c;
            Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < kBK; ++k) {
            float a[kTM], b[kTN];
            for (int i = 0; i < kTM; ++i) a[i] = As[k][ty + kDim * i];
            for (int j = 0; j < kTN; ++j) b[j] = Bs[k][tx + kDim * j];
            for (int i = 0; i < kTM; ++i)
                for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < kTM; ++i) {
        const size_t r = m0 + ty + kDim * i;
        if (r >= M) continue;
        for (int j = 0; j < kTN; ++j) {
            const size_t c = n0 + tx + kDim * j;
            if (c < N) C[r * N + c] = acc[i][j];
        }
    }
}

extern "C" void solution(const float* A, const float* B, float* C, size_t M, size_t N, size_t K) {
    // gridDim.y is limited to 65535 tiles: M up to 8,388,480.
    const dim3 grid((unsigned)((N + kBN - 1) / kBN), (unsigned)((M + kBM - 1) / kBM));
    const dim3 block(kDim, kDim);
    hipLaunchKernelGGL(sgemm, dim3(grid), dim3(block), 0, 0, A, B, C, M, N, K);
}
