#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#include <climits>
#include <cstdint>

// A grouped fp8 GEMM with DeepSeek-V3's block scales on MI300X's matrix cores: a block of 256 threads
// (four 64-lane wavefronts) computes a 128x128 tile of Y, each wavefront a 64x64 quarter as 2x2 tiles
// of __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8. The tile's 128 rows may belong to several experts
// (groups are not aligned to tiles; a decode batch leaves a few rows per expert; rows may come in any
// order): the block takes the experts present in the tile one at a time, lowest first, and runs the K
// loop with that expert's weight, the other rows of the X tile zeroed (they add exact zeros), into
// the same accumulators. K advances one scale block (128) at a time: the block's products are summed
// exactly as the MFMA does into fresh accumulators, then added to the running float32 sum times
// X_scale (per row) and the expert's W_scale (one per tile and k block: the tile's 128 columns are one
// scale block). Both operands are contiguous along k: LDS tiles [m][k] and [n][k], each lane's eight
// consecutive k one 8-byte LDS read. Register layout (CDNA3, 32x32x16 fp8): lane l holds
// X[l % 32][8 (l / 32) + e] and W^T[8 (l / 32) + e][l % 32], e = 0..7, in a 64-bit register, and
// Y[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in accumulator r.
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef unsigned char bytes16 __attribute__((ext_vector_type(16)));

constexpr int BM = 128, BN = 128, BK = 128, LDK = BK + 8;  // LDS row: 128 k bytes, padded to spread the banks

// 64 bytes of one tile row: k0 + c .. + 63 of `src` (row `row` of a row-major matrix with K columns)
// into `dst`; zeros where `keep` is false or past K.
__device__ inline void stage_row(const unsigned char* src, unsigned char* dst, bool keep, bool fast, int k_left) {
    if (!keep) {
        for (int j = 0; j < 8; ++j) *(unsigned long long*)(dst + 8 * j) = 0;
    } else if (fast) {
        for (int j = 0; j < 4; ++j) {
            const bytes16 v = *(const bytes16*)(src + 16 * j);
            unsigned long long lo = 0, hi = 0;
            for (int e = 0; e < 8; ++e) {
                lo |= (unsigned long long)v[e] << (8 * e);
                hi |= (unsigned long long)v[8 + e] << (8 * e);
            }
            *(unsigned long long*)(dst + 16 * j) = lo;
            *(unsigned long long*)(dst + 16 * j + 8) = hi;
        }
    } else {
        for (int e = 0; e < 64; ++e) dst[e] = e < k_left ? src[e] : (unsigned char)0;
    }
}

__global__ void __launch_bounds__(256) grouped(const unsigned char* X, const float* X_scale, const unsigned char* W,
                                               const float* W_scale, const int32_t* expert_ids, __hip_bfloat16* Y,
                                               int R, int N, int K) {
    __shared__ __align__(32) unsigned char As[BM * LDK], Bs[BN * LDK];
    __shared__ __align__(32) int tile_expert[BM], lowest[4];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = (wave / 2) * 64, wn = (wave % 2) * 64, i = lane % 32, q = lane / 32;
    const int kblocks = (K + BK - 1) / BK, nblocks = (N + BN - 1) / BN;
    if (tid < BM) tile_expert[tid] = m0 + tid < R ? expert_ids[m0 + tid] : INT_MAX;
    floatx16 acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) acc[t][u][r] = 0.0f;
    const bool vector_k = K % 16 == 0;
    const int sr = tid / 2, sc = (tid % 2) * 64;  // the staging thread's tile row and first k byte
    int expert = -1;
    for (;;) {
        __syncthreads();  // tile_expert written; `lowest` free again
        int next = tid < BM && tile_expert[tid] > expert ? tile_expert[tid] : INT_MAX;
        for (int offset = 32; offset > 0; offset /= 2) next = min(next, __shfl_xor(next, offset));
        if (lane == 0) lowest[wave] = next;
        __syncthreads();
        expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
        if (expert == INT_MAX) break;  // the same for every thread of the block
        const unsigned char* w = W + (size_t)expert * N * K;
        const float* sw = W_scale + ((size_t)expert * nblocks + blockIdx.x) * kblocks;
        for (int kb = 0; kb < kblocks; ++kb) {
            const int k0 = kb * BK, k_left = K - k0 - sc;
            const bool fast = vector_k && k0 + BK <= K;
            stage_row(X + (size_t)(m0 + sr) * K + k0 + sc, As + sr * LDK + sc, tile_expert[sr] == expert, fast, k_left);
            stage_row(w + (size_t)(n0 + sr) * K + k0 + sc, Bs + sr * LDK + sc, n0 + sr < N, fast, k_left);
            __syncthreads();
            floatx16 part[2][2];
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u)
                    for (int r = 0; r < 16; ++r) part[t][u][r] = 0.0f;
            for (int kk = 0; kk < BK; kk += 16) {
                long a[2], b[2];
                for (int t = 0; t < 2; ++t) {
                    a[t] = *(const long*)(As + (wm + 32 * t + i) * LDK + kk + 8 * q);
                    b[t] = *(const long*)(Bs + (wn + 32 * t + i) * LDK + kk + 8 * q);
                }
                for (int t = 0; t < 2; ++t)
                    for (int u = 0; u < 2; ++u)
                        part[t][u] = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a[t], b[u], part[t][u], 0, 0, 0);
            }
            __syncthreads();  // the next block's staging overwrites the tiles
            const float s_w = sw[kb];
            for (int t = 0; t < 2; ++t)
                for (int r = 0; r < 16; ++r) {
                    const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4;
                    const float s = row < R ? X_scale[(size_t)kb * R + row] * s_w : 0.0f;
                    for (int u = 0; u < 2; ++u) acc[t][u][r] += part[t][u][r] * s;
                }
        }
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) {
                const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4, col = n0 + wn + 32 * u + i;
                if (row < R && col < N) Y[(size_t)row * N + col] = __float2bfloat16(acc[t][u][r]);
            }
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* X, const float* X_scale, const __hip_fp8_e4m3_fnuz* W,
                         const float* W_scale, const int32_t* expert_ids, __hip_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((R + BM - 1) / BM));
    hipLaunchKernelGGL(grouped, grid, dim3(256), 0, 0, reinterpret_cast<const unsigned char*>(X), X_scale,
                       reinterpret_cast<const unsigned char*>(W), W_scale, expert_ids, Y, (int)R, (int)N, (int)K);
}
