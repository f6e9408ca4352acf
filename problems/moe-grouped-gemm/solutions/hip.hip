#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <climits>
#include <cstdint>

// A grouped GEMM on MI300X's matrix cores: a block of 256 threads (four 64-lane wavefronts) computes
// a 128x128 tile of Y, each wavefront a 64x64 quarter as 2x2 tiles of
// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k (float32 accumulators). The tile's 128 rows may belong to
// several experts (groups need not be aligned to tiles, and rows may come in any order): the block
// takes the experts present in the tile one at a time, lowest first, and runs the K loop with that
// expert's weight, the other rows of the A tile zeroed (they add exact zeros), into the same
// accumulators. Rows grouped by expert cost one pass per tile, two where a group starts.
// Both operands are contiguous along k (W is [expert][n][k]): LDS tiles [m][k] and [n][k], each
// lane's four consecutive k one 8-byte LDS read. Register layout (CDNA3, 32x32x8): lane l holds
// A[l % 32][4 (l / 32) + e], W^T[4 (l / 32) + e][l % 32], and Y[8 (r / 4) + 4 (l / 32) + r % 4][l % 32]
// in accumulator r.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int BM = 128, BN = 128, BK = 32, LD = BK + 4;

__global__ void __launch_bounds__(256) grouped(const short* X, const short* W, const int32_t* expert_ids,
                                               __hip_bfloat16* Y, int R, int N, int K) {
    __shared__ __align__(32) short As[BM * LD], Bs[BN * LD];
    __shared__ __align__(32) int tile_expert[BM], lowest[4];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = (wave / 2) * 64, wn = (wave % 2) * 64, i = lane % 32, q = lane / 32;
    if (tid < BM) tile_expert[tid] = m0 + tid < R ? expert_ids[m0 + tid] : INT_MAX;
    floatx16 acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) acc[t][u][r] = 0.0f;
    const bool vector_k = K % 8 == 0, full_n = n0 + BN <= N;
    int expert = -1;
    for (;;) {
        __syncthreads();  // tile_expert written; `lowest` free again
        int next = tid < BM && tile_expert[tid] > expert ? tile_expert[tid] : INT_MAX;
        for (int offset = 32; offset > 0; offset /= 2) next = min(next, __shfl_xor(next, offset));
        if (lane == 0) lowest[wave] = next;
        __syncthreads();
        expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
        if (expert == INT_MAX) break;  // the same for every thread of the block
        const short* w = W + (size_t)expert * N * K;
        for (int k0 = 0; k0 < K; k0 += BK) {
            const bool full_k = k0 + BK <= K;
            {  // A: thread t loads row t / 2, k (t % 2) * 16 .. + 15; rows of other experts are zero
                const int r = tid / 2, c = (tid % 2) * 16;
                const short* src = X + (size_t)(m0 + r) * K + k0 + c;
                short* dst = As + r * LD + c;
                if (tile_expert[r] != expert) {
                    for (int e = 0; e < 16; ++e) dst[e] = 0;
                } else if (vector_k && full_k) {
                    const bf16x8 x = *(const bf16x8*)src, y = *(const bf16x8*)(src + 8);
                    for (int e = 0; e < 8; ++e) dst[e] = x[e], dst[8 + e] = y[e];
                } else {
                    for (int e = 0; e < 16; ++e) dst[e] = k0 + c + e < K ? src[e] : (short)0;
                }
            }
            {  // W[expert] (N x K): thread t loads row n = t / 2, k (t % 2) * 16 .. + 15
                const int r = tid / 2, c = (tid % 2) * 16;
                const short* src = w + (size_t)(n0 + r) * K + k0 + c;
                short* dst = Bs + r * LD + c;
                if (vector_k && full_k && full_n) {
                    const bf16x8 x = *(const bf16x8*)src, y = *(const bf16x8*)(src + 8);
                    for (int e = 0; e < 8; ++e) dst[e] = x[e], dst[8 + e] = y[e];
                } else {
                    for (int e = 0; e < 16; ++e) dst[e] = n0 + r < N && k0 + c + e < K ? src[e] : (short)0;
                }
            }
            __syncthreads();
            for (int kk = 0; kk < BK; kk += 8) {
                bf16x4 a[2], b[2];
                for (int t = 0; t < 2; ++t) {
                    a[t] = *(const bf16x4*)(As + (wm + 32 * t + i) * LD + kk + 4 * q);
                    b[t] = *(const bf16x4*)(Bs + (wn + 32 * t + i) * LD + kk + 4 * q);
                }
                for (int t = 0; t < 2; ++t)
                    for (int u = 0; u < 2; ++u)
                        acc[t][u] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[t], b[u], acc[t][u], 0, 0, 0);
            }
            __syncthreads();
        }
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) {
                const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4, col = n0 + wn + 32 * u + i;
                if (row < R && col < N) Y[(size_t)row * N + col] = __float2bfloat16(acc[t][u][r]);
            }
}

extern "C" void solution(const __hip_bfloat16* X, const __hip_bfloat16* W, const int32_t* expert_ids,
                         __hip_bfloat16* Y, size_t R, size_t N, size_t K, size_t E) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((R + BM - 1) / BM));
    hipLaunchKernelGGL(grouped, grid, dim3(256), 0, 0, reinterpret_cast<const short*>(X),
                       reinterpret_cast<const short*>(W), expert_ids, Y, (int)R, (int)N, (int)K);
}
