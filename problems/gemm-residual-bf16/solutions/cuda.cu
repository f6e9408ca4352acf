#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

// Tensor cores through nvcuda::wmma: a block of 4 warps computes a 64x64 tile of C, each warp a
// 32x32 quarter as 2x2 m16n16k16 fragments (bfloat16 in, float accumulators). B (N x K,
// row-major) is the K x N operand in column-major order: its tile is staged as [n][k] and loaded
// col_major. K advances 32 at a time through shared memory (zero-padded at the edges); the
// accumulators go through shared memory once at the end, where the residual is added to them in
// float32 (fused) and the sum is rounded to bfloat16 and written within bounds.
using namespace nvcuda;

constexpr int BM = 64, BN = 64, BK = 32, LDA = BK + 8, LDB = BK + 8, LDC = BN + 4;

__global__ void __launch_bounds__(128) gemm_residual(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                     const __nv_bfloat16* residual, __nv_bfloat16* C, int M, int N,
                                                     int K) {
    __shared__ __align__(32) __nv_bfloat16 As[BM * LDA], Bs[BN * LDB];
    __shared__ __align__(32) float Cs[BM * LDC];
    const int tid = threadIdx.x, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u) wmma::fill_fragment(acc[t][u], 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int idx = tid; idx < BM * BK; idx += 128) {  // A tile: 64 rows x 32 k
            const int r = idx / BK, c = idx % BK;
            As[r * LDA + c] = m0 + r < M && k0 + c < K ? A[(size_t)(m0 + r) * K + k0 + c] : zero;
        }
        for (int idx = tid; idx < BN * BK; idx += 128) {  // B tile: 64 rows of B (columns of C) x 32 k
            const int r = idx / BK, c = idx % BK;
            Bs[r * LDB + c] = n0 + r < N && k0 + c < K ? B[(size_t)(n0 + r) * K + k0 + c] : zero;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[2];
            for (int t = 0; t < 2; ++t) {
                wmma::load_matrix_sync(a[t], As + (wm + 16 * t) * LDA + kk, LDA);
                wmma::load_matrix_sync(b[t], Bs + (wn + 16 * t) * LDB + kk, LDB);
            }
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u) wmma::mma_sync(acc[t][u], a[t], b[u], acc[t][u]);
        }
        __syncthreads();
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            wmma::store_matrix_sync(Cs + (wm + 16 * t) * LDC + wn + 16 * u, acc[t][u], LDC, wmma::mem_row_major);
    __syncthreads();
    for (int idx = tid; idx < BM * BN; idx += 128) {
        const int r = idx / BN, c = idx % BN;
        if (m0 + r < M && n0 + c < N) {
            const size_t at = (size_t)(m0 + r) * N + n0 + c;
            C[at] = __float2bfloat16(Cs[r * LDC + c] + __bfloat162float(residual[at]));
        }
    }
}

extern "C" void solution(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* residual,
                         __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    gemm_residual<<<grid, 128>>>(A, B, residual, C, (int)M, (int)N, (int)K);
}
