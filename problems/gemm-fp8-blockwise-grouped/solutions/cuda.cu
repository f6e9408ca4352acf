#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t
#include <mma.h>

#include <climits>
#include <cstdint>

// Tensor cores through nvcuda::wmma in half: every fp8 E4M3 FNUZ value is exact in half (4
// significant bits, 2^-10 .. 240), so the products and float32 sums are those of an fp8 kernel.
// A block of 4 warps computes a 64x64 tile of Y (each warp 2x2 m16n16k16 fragments). The tile's rows
// may belong to several experts: the block takes them one at a time, lowest first, with the other
// rows of the X tile zeroed (exact zeros), into the same running sums. Per 128-deep scale block the
// products go into fresh accumulators (staged 32 k at a time in shared memory, decoded on the way),
// then through shared memory into each thread's running float32 sums times X_scale (per row) and
// the expert's W_scale (per 128 columns and 128 k).
using namespace nvcuda;

constexpr int T = 64, BK = 32, SCALE_K = 128, LD = BK + 8, LDC = T + 4;

// NVIDIA has no FNUZ fp8: sign, 4 exponent bits with bias 8, 3 mantissa bits; 0x80 is NaN.
__device__ inline float fnuz_e4m3(unsigned char b) {
    if (b == 0x80) return __int_as_float(0x7fc00000);
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? ldexpf((float)mantissa, -10) : ldexpf((float)(8 + mantissa), exponent - 11);
    return (b & 0x80) ? -magnitude : magnitude;
}

__global__ void __launch_bounds__(128) grouped(const unsigned char* X, const float* X_scale, const unsigned char* W,
                                               const float* W_scale, const int32_t* expert_ids, __nv_bfloat16* Y,
                                               int R, int N, int K) {
    __shared__ __align__(32) __half As[T * LD], Bs[T * LD];  // [m][k] and [n][k]
    __shared__ __align__(32) float Cs[T * LDC];
    __shared__ int tile_expert[T], lowest[4];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int m0 = blockIdx.y * T, n0 = blockIdx.x * T, wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const int kblocks = (K + SCALE_K - 1) / SCALE_K, nblocks = (N + SCALE_K - 1) / SCALE_K;
    if (tid < T) tile_expert[tid] = m0 + tid < R ? expert_ids[m0 + tid] : INT_MAX;
    float acc[T * T / 128] = {};
    int expert = -1;
    for (;;) {
        __syncthreads();  // tile_expert written; `lowest` free again
        int next = tid < T && tile_expert[tid] > expert ? tile_expert[tid] : INT_MAX;
        for (int offset = 16; offset > 0; offset /= 2) next = min(next, __shfl_xor_sync(0xffffffffu, next, offset));
        if (lane == 0) lowest[warp] = next;
        __syncthreads();
        expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
        if (expert == INT_MAX) break;  // the same for every thread of the block
        const unsigned char* w = W + (size_t)expert * N * K;
        const float* sw = W_scale + ((size_t)expert * nblocks + n0 / SCALE_K) * kblocks;
        for (int kb = 0; kb < kblocks; ++kb) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> part[2][2];
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u) wmma::fill_fragment(part[t][u], 0.0f);
            for (int k0 = kb * SCALE_K; k0 < (kb + 1) * SCALE_K && k0 < K; k0 += BK) {
                for (int idx = tid; idx < T * BK; idx += 128) {  // row-major: consecutive threads, consecutive k
                    const int r = idx / BK, k = idx % BK;
                    const bool in_k = k0 + k < K;
                    As[r * LD + k] = __float2half(in_k && tile_expert[r] == expert
                                                      ? fnuz_e4m3(X[(size_t)(m0 + r) * K + k0 + k]) : 0.0f);
                    Bs[r * LD + k] = __float2half(in_k && n0 + r < N ? fnuz_e4m3(w[(size_t)(n0 + r) * K + k0 + k]) : 0.0f);
                }
                __syncthreads();
                for (int kk = 0; kk < BK; kk += 16) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b[2];
                    for (int t = 0; t < 2; ++t) {
                        wmma::load_matrix_sync(a[t], As + (wm + 16 * t) * LD + kk, LD);
                        wmma::load_matrix_sync(b[t], Bs + (wn + 16 * t) * LD + kk, LD);
                    }
                    for (int t = 0; t < 2; ++t)
                        for (int u = 0; u < 2; ++u) wmma::mma_sync(part[t][u], a[t], b[u], part[t][u]);
                }
                __syncthreads();
            }
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u)
                    wmma::store_matrix_sync(Cs + (wm + 16 * t) * LDC + wn + 16 * u, part[t][u], LDC, wmma::mem_row_major);
            __syncthreads();
            const float s_w = sw[kb];
            for (int j = 0; j < T * T / 128; ++j) {
                const int idx = tid + 128 * j, r = idx / T, c = idx % T;
                if (m0 + r < R && n0 + c < N) acc[j] += Cs[r * LDC + c] * (X_scale[(size_t)kb * R + m0 + r] * s_w);
            }
            __syncthreads();
        }
    }
    for (int j = 0; j < T * T / 128; ++j) {
        const int idx = tid + 128 * j, r = idx / T, c = idx % T;
        if (m0 + r < R && n0 + c < N) Y[(size_t)(m0 + r) * N + n0 + c] = __float2bfloat16(acc[j]);
    }
}

extern "C" void solution(const __nv_fp8_storage_t* X, const float* X_scale, const __nv_fp8_storage_t* W,
                         const float* W_scale, const int32_t* expert_ids, __nv_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    const dim3 grid((unsigned)((N + T - 1) / T), (unsigned)((R + T - 1) / T));
    grouped<<<grid, 128>>>(X, X_scale, W, W_scale, expert_ids, Y, (int)R, (int)N, (int)K);
}
