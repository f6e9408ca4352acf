#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <climits>
#include <cstdint>

// A grouped GEMM with tensor cores (nvcuda::wmma, m16n16k16, bfloat16 -> float): a block of 4 warps
// computes a 64x64 tile of Y, each warp 2x2 fragments. The tile's 64 rows may belong to several
// experts (groups need not be aligned to tiles, rows may come in any order): the block takes the
// experts present one at a time, lowest first, and runs the K loop with that expert's weight, the
// other rows of the A tile zeroed (they add exact zeros), into the same accumulators. W is
// [expert][n][k]: its tile is staged as [n][k] and loaded col_major (the K x N operand).
using namespace nvcuda;

constexpr int BM = 64, BN = 64, BK = 32, LDA = BK + 8, LDC = BN + 4;

__global__ void __launch_bounds__(128) grouped(const __nv_bfloat16* X, const __nv_bfloat16* W,
                                               const int32_t* expert_ids, __nv_bfloat16* Y, int R, int N, int K) {
    __shared__ __align__(32) __nv_bfloat16 As[BM * LDA], Bs[BN * LDA];
    __shared__ __align__(32) float Cs[BM * LDC];
    __shared__ __align__(32) int tile_expert[BM], lowest[4];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    if (tid < BM) tile_expert[tid] = m0 + tid < R ? expert_ids[m0 + tid] : INT_MAX;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u) wmma::fill_fragment(acc[t][u], 0.0f);
    int expert = -1;
    for (;;) {
        __syncthreads();  // tile_expert written; `lowest` free again
        int next = tid < BM && tile_expert[tid] > expert ? tile_expert[tid] : INT_MAX;
        for (int offset = 16; offset > 0; offset /= 2) next = min(next, __shfl_xor_sync(0xffffffffu, next, offset));
        if (lane == 0) lowest[warp] = next;
        __syncthreads();
        expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
        if (expert == INT_MAX) break;  // the same for every thread of the block
        const __nv_bfloat16* w = W + (size_t)expert * N * K;
        for (int k0 = 0; k0 < K; k0 += BK) {
            for (int idx = tid; idx < BM * BK; idx += 128) {
                const int r = idx / BK, c = idx % BK;
                As[r * LDA + c] = tile_expert[r] == expert && k0 + c < K ? X[(size_t)(m0 + r) * K + k0 + c] : zero;
                Bs[r * LDA + c] = n0 + r < N && k0 + c < K ? w[(size_t)(n0 + r) * K + k0 + c] : zero;
            }
            __syncthreads();
            for (int kk = 0; kk < BK; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[2];
                for (int t = 0; t < 2; ++t) {
                    wmma::load_matrix_sync(a[t], As + (wm + 16 * t) * LDA + kk, LDA);
                    wmma::load_matrix_sync(b[t], Bs + (wn + 16 * t) * LDA + kk, LDA);
                }
                for (int t = 0; t < 2; ++t)
                    for (int u = 0; u < 2; ++u) wmma::mma_sync(acc[t][u], a[t], b[u], acc[t][u]);
            }
            __syncthreads();
        }
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            wmma::store_matrix_sync(Cs + (wm + 16 * t) * LDC + wn + 16 * u, acc[t][u], LDC, wmma::mem_row_major);
    __syncthreads();
    for (int idx = tid; idx < BM * BN; idx += 128) {
        const int r = idx / BN, c = idx % BN;
        if (m0 + r < R && n0 + c < N) Y[(size_t)(m0 + r) * N + n0 + c] = __float2bfloat16(Cs[r * LDC + c]);
    }
}

extern "C" void solution(const __nv_bfloat16* X, const __nv_bfloat16* W, const int32_t* expert_ids, __nv_bfloat16* Y,
                         size_t R, size_t N, size_t K, size_t E) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((R + BM - 1) / BM));
    grouped<<<grid, 128>>>(X, W, expert_ids, Y, (int)R, (int)N, (int)K);
}
