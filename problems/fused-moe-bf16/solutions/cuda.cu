#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <climits>
#include <cstdint>

// Two kernels with tensor cores (nvcuda::wmma, m16n16k16, bfloat16 -> float), act carrying the
// activations between them. Both tile 32 tokens by 64 columns (4 warps, a 16-column strip of two
// fragments each); rows of tokens that do not use the expert at hand are zeroed in the A tile.
// - gate_up: one block per (token tile, columns n of I, expert): it leaves at once if no token of the
//   tile uses the expert, else the gate and the up tile (rows n and I + n of w1[e]) over the H loop,
//   then act[t, j, n] = bf16(SiLU(g) * u) for the tokens with topk_ids[t, j] == e (blocks of other
//   experts write other slots of act).
// - down: columns d of H; the experts the tile's tokens use one at a time, lowest first (a token
//   uses an expert at most once): y = act[t, j] w2[e]^T over the I loop, added to float32
//   accumulators in shared memory times topk_weights[t, j]; out rounded once.
// Weights are [row][k]: their tiles are staged [n][k] and loaded col_major (the K x N operand).
using namespace nvcuda;

constexpr int BM = 32, BN = 64, BK = 32, LDA = BK + 8, LDC = BN + 4;

// The lowest expert above `after` that a token of the tile uses (INT_MAX: none), the same in every
// thread; then slot[r] = the j with topk_ids[t, j] == that expert, or -1.
__device__ int next_expert(const int32_t* topk_ids, int t0, int T, int topk, int after, int* lowest, int* slot) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    __syncthreads();  // slot and lowest free again
    int next = INT_MAX;
    if (tid < BM && t0 + tid < T)
        for (int j = 0; j < topk; ++j) {
            const int e = topk_ids[(size_t)(t0 + tid) * topk + j];
            if (e > after && e < next) next = e;
        }
    for (int offset = 16; offset > 0; offset /= 2) next = min(next, __shfl_xor_sync(0xffffffffu, next, offset));
    if (lane == 0) lowest[warp] = next;
    __syncthreads();
    const int expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
    if (tid < BM) {
        int s = -1;
        if (t0 + tid < T)
            for (int j = 0; j < topk; ++j)
                if (topk_ids[(size_t)(t0 + tid) * topk + j] == expert) s = j;
        slot[tid] = s;
    }
    __syncthreads();
    return expert;
}

// A rows x BK tile of a row-major matrix with `cols` columns into shared memory (rows past `valid`,
// columns past the end: zero).
__device__ void load_tile(__nv_bfloat16* dst, const __nv_bfloat16* src, int rows, int valid, int cols, int k0) {
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int idx = threadIdx.x; idx < rows * BK; idx += 128) {
        const int r = idx / BK, c = idx % BK;
        dst[r * LDA + c] = r < valid && k0 + c < cols ? src[(size_t)r * cols + k0 + c] : zero;
    }
}

__global__ void __launch_bounds__(128) gate_up(const __nv_bfloat16* x, const __nv_bfloat16* w1, const int32_t* topk_ids,
                                               __nv_bfloat16* act, int T, int H, int I, int topk) {
    __shared__ __align__(32) __nv_bfloat16 As[BM * LDA], Gs[BN * LDA], Us[BN * LDA];
    __shared__ __align__(32) float Cg[BM * LDC], Cu[BM * LDC];
    __shared__ int slot[BM], used;
    const int tid = threadIdx.x, warp = tid / 32;
    const int t0 = blockIdx.x * BM, n0 = blockIdx.y * BN, valid_n = min(BN, I - n0), expert = blockIdx.z;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    if (tid == 0) used = 0;
    __syncthreads();
    if (tid < BM) {
        int s = -1;
        if (t0 + tid < T)
            for (int j = 0; j < topk; ++j)
                if (topk_ids[(size_t)(t0 + tid) * topk + j] == expert) s = j;
        slot[tid] = s;
        if (s >= 0) used = 1;
    }
    __syncthreads();
    if (!used) return;  // the same for every thread of the block
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> g[2], u[2];
    for (int t = 0; t < 2; ++t) wmma::fill_fragment(g[t], 0.0f), wmma::fill_fragment(u[t], 0.0f);
    const __nv_bfloat16* gate = w1 + ((size_t)expert * 2 * I + n0) * H;
    const __nv_bfloat16* up = gate + (size_t)I * H;
    for (int k0 = 0; k0 < H; k0 += BK) {
        for (int idx = tid; idx < BM * BK; idx += 128) {
            const int r = idx / BK, c = idx % BK;
            As[r * LDA + c] = slot[r] >= 0 && k0 + c < H ? x[(size_t)(t0 + r) * H + k0 + c] : zero;
        }
        load_tile(Gs, gate, BN, valid_n, H, k0);
        load_tile(Us, up, BN, valid_n, H, k0);
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> bg, bu;
            wmma::load_matrix_sync(bg, Gs + 16 * warp * LDA + kk, LDA);
            wmma::load_matrix_sync(bu, Us + 16 * warp * LDA + kk, LDA);
            for (int t = 0; t < 2; ++t) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
                wmma::load_matrix_sync(a, As + 16 * t * LDA + kk, LDA);
                wmma::mma_sync(g[t], a, bg, g[t]);
                wmma::mma_sync(u[t], a, bu, u[t]);
            }
        }
        __syncthreads();
    }
    for (int t = 0; t < 2; ++t) {
        wmma::store_matrix_sync(Cg + 16 * t * LDC + 16 * warp, g[t], LDC, wmma::mem_row_major);
        wmma::store_matrix_sync(Cu + 16 * t * LDC + 16 * warp, u[t], LDC, wmma::mem_row_major);
    }
    __syncthreads();
    for (int idx = tid; idx < BM * BN; idx += 128) {
        const int r = idx / BN, c = idx % BN;
        if (slot[r] >= 0 && c < valid_n) {
            const float gv = Cg[r * LDC + c], uv = Cu[r * LDC + c];
            act[((size_t)(t0 + r) * topk + slot[r]) * I + n0 + c] = __float2bfloat16(gv / (1.0f + expf(-gv)) * uv);
        }
    }
}

__global__ void __launch_bounds__(128) down(const __nv_bfloat16* act, const __nv_bfloat16* w2, const int32_t* topk_ids,
                                            const float* topk_weights, __nv_bfloat16* out, int T, int H, int I,
                                            int topk) {
    __shared__ __align__(32) __nv_bfloat16 As[BM * LDA], Bs[BN * LDA];
    __shared__ __align__(32) float Cy[BM * LDC], Acc[BM * LDC];
    __shared__ int lowest[4], slot[BM];
    const int tid = threadIdx.x, warp = tid / 32;
    const int t0 = blockIdx.x * BM, d0 = blockIdx.y * BN, valid_d = min(BN, H - d0);
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int idx = tid; idx < BM * LDC; idx += 128) Acc[idx] = 0.0f;
    for (int expert = next_expert(topk_ids, t0, T, topk, -1, lowest, slot); expert != INT_MAX;
         expert = next_expert(topk_ids, t0, T, topk, expert, lowest, slot)) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> y[2];
        for (int t = 0; t < 2; ++t) wmma::fill_fragment(y[t], 0.0f);
        const __nv_bfloat16* w = w2 + ((size_t)expert * H + d0) * I;
        for (int k0 = 0; k0 < I; k0 += BK) {
            for (int idx = tid; idx < BM * BK; idx += 128) {
                const int r = idx / BK, c = idx % BK;
                As[r * LDA + c] = slot[r] >= 0 && k0 + c < I ? act[((size_t)(t0 + r) * topk + slot[r]) * I + k0 + c] : zero;
            }
            load_tile(Bs, w, BN, valid_d, I, k0);
            __syncthreads();
            for (int kk = 0; kk < BK; kk += 16) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
                wmma::load_matrix_sync(b, Bs + 16 * warp * LDA + kk, LDA);
                for (int t = 0; t < 2; ++t) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
                    wmma::load_matrix_sync(a, As + 16 * t * LDA + kk, LDA);
                    wmma::mma_sync(y[t], a, b, y[t]);
                }
            }
            __syncthreads();
        }
        for (int t = 0; t < 2; ++t) wmma::store_matrix_sync(Cy + 16 * t * LDC + 16 * warp, y[t], LDC, wmma::mem_row_major);
        __syncthreads();
        for (int idx = tid; idx < BM * BN; idx += 128) {
            const int r = idx / BN, c = idx % BN;
            if (slot[r] >= 0) Acc[r * LDC + c] += topk_weights[(size_t)(t0 + r) * topk + slot[r]] * Cy[r * LDC + c];
        }
    }
    __syncthreads();
    for (int idx = tid; idx < BM * BN; idx += 128) {
        const int r = idx / BN, c = idx % BN;
        if (t0 + r < T && c < valid_d) out[(size_t)(t0 + r) * H + d0 + c] = __float2bfloat16(Acc[r * LDC + c]);
    }
}

extern "C" void solution(const __nv_bfloat16* x, const __nv_bfloat16* w1, const __nv_bfloat16* w2,
                         const int32_t* topk_ids, const float* topk_weights, __nv_bfloat16* act,
                         __nv_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    const unsigned tiles = (unsigned)((T + BM - 1) / BM);
    gate_up<<<dim3(tiles, (unsigned)((I + BN - 1) / BN), (unsigned)E), 128>>>(x, w1, topk_ids, act, (int)T, (int)H, (int)I, (int)topk);
    down<<<dim3(tiles, (unsigned)((H + BN - 1) / BN)), 128>>>(act, w2, topk_ids, topk_weights, out, (int)T, (int)H,
                                                              (int)I, (int)topk);
}
