#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>

// Variable-length flash attention with tensor cores (nvcuda::wmma, m16n16k16, bfloat16 -> float),
// flash-attention-fwd's kernel per sequence. A block of 4 warps takes 64 queries of one sequence and
// head, 16 per warp; the blocks are dealt out over the sequences' tiles in order (each finds its
// sequence by walking cu_seqlens_q; the spare ones return). It walks the sequence's keys 32 at a time
// as far as its last query sees (query i sees keys j <= i + k_len - q_len: the mask aligned at the
// bottom right), K and V staged once in shared memory for the 4 warps. Per warp and block of keys:
// S = Q K^T into fragments, through shared memory to the online softmax (two lanes per query row),
// P rounded to bfloat16, and O += P V into fragments that stay in registers across the blocks. WMMA
// leaves a fragment's element-to-row map unspecified, so rescaling O by each row's exp(m_old - m_new)
// reads the row of every element from a fragment loaded from a matrix of row numbers: the same map.
using namespace nvcuda;

constexpr int WARPS = 4, QW = 16, QB = WARPS * QW, KB = 32, LDS_ = KB + 4, LDP = KB + 8;

template <int D>
__global__ void __launch_bounds__(128) attention(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                                 const __nv_bfloat16* V, const int32_t* cu_q, const int32_t* cu_k,
                                                 __nv_bfloat16* O, int B, int H, int Hkv, float scale_log2) {
    constexpr int LD = D + 8;
    __shared__ __align__(32) __nv_bfloat16 KV[2 * KB * LD];  // K then V, [key][d]; Q's 64 rows at first
    __shared__ __align__(32) float Sw[WARPS][16 * LDS_];
    __shared__ __align__(32) __nv_bfloat16 Pw[WARPS][16 * LDP];
    __shared__ __align__(32) float row_alpha[WARPS][16], row_l[WARPS][16], row_number[16 * 16];
    int tile = blockIdx.x, b = 0;
    for (; b < B; ++b) {  // the sequence that holds this tile (the same walk in every thread)
        const int tiles = (cu_q[b + 1] - cu_q[b] + QB - 1) / QB;
        if (tile < tiles) break;
        tile -= tiles;
    }
    if (b == B) return;  // a spare block: the whole block leaves before any barrier
    const int q_start = cu_q[b], q_len = cu_q[b + 1] - q_start;
    const int k_start = cu_k[b], k_len = cu_k[b + 1] - k_start, shift = k_len - q_len;
    __nv_bfloat16 *Ks = KV, *Vs = KV + KB * LD;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int h = blockIdx.y, hk = h / (H / Hkv);
    const int q0 = tile * QB, qw = q0 + warp * QW;  // within the sequence
    const size_t q_stride = (size_t)H * D, kv_stride = (size_t)Hkv * D;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);

    for (int idx = tid; idx < QB * D; idx += 128) {  // stage the block's queries, then keep them as fragments
        const int r = idx / D, d = idx % D;
        KV[r * LD + d] = q0 + r < q_len ? Q[((size_t)q_start + q0 + r) * q_stride + (size_t)h * D + d] : zero;
    }
    for (int idx = tid; idx < 256; idx += 128) row_number[idx] = (float)(idx / 16);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qa[D / 16];
    for (int s = 0; s < D / 16; ++s) wmma::load_matrix_sync(qa[s], KV + warp * QW * LD + 16 * s, LD);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> rows, o[D / 16];
    wmma::load_matrix_sync(rows, row_number, 16, wmma::mem_row_major);
    for (int t = 0; t < D / 16; ++t) wmma::fill_fragment(o[t], 0.0f);
    __syncthreads();

    const int r = lane / 2, query = qw + r, c0 = (lane % 2) * 16;  // softmax: lanes 2r, 2r + 1 share row r
    float m = -INFINITY, l = 0.0f;
    const int kv_end = min(k_len, q0 + QB + shift);  // one past the block's last query's last key
    for (int k0 = 0; k0 < kv_end; k0 += KB) {
        for (int idx = tid; idx < KB * D; idx += 128) {
            const int key = idx / D, d = idx % D;
            const bool ok = k0 + key < k_len;
            const size_t at = ((size_t)k_start + k0 + key) * kv_stride + (size_t)hk * D + d;
            Ks[key * LD + d] = ok ? K[at] : zero;
            Vs[key * LD + d] = ok ? V[at] : zero;
        }
        __syncthreads();
        // Some query of the warp exists and sees some key of the block.
        if (qw < q_len && k0 <= qw + QW - 1 + shift) {
            for (int u = 0; u < KB / 16; ++u) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
                wmma::fill_fragment(sf, 0.0f);
                for (int s = 0; s < D / 16; ++s) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kb;  // K^T
                    wmma::load_matrix_sync(kb, Ks + 16 * u * LD + 16 * s, LD);
                    wmma::mma_sync(sf, qa[s], kb, sf);
                }
                wmma::store_matrix_sync(Sw[warp] + 16 * u, sf, LDS_, wmma::mem_row_major);
            }
            __syncwarp();
            float s[16], mx = m;
            for (int c = 0; c < 16; ++c) {
                const int key = k0 + c0 + c;
                s[c] = key <= query + shift && key < k_len ? Sw[warp][r * LDS_ + c0 + c] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, s[c]);
            }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            const float alpha = exp2f(m - mx);  // 0 on the first block (key 0 is visible to every row)
            m = mx;
            float sum = 0.0f;
            for (int c = 0; c < 16; ++c) {
                const float p = exp2f(s[c] - m);
                sum += p;
                Pw[warp][r * LDP + c0 + c] = __float2bfloat16(p);
            }
            l = l * alpha + sum + __shfl_xor_sync(0xffffffffu, sum, 1);
            if (lane % 2 == 0) row_alpha[warp][r] = alpha;
            __syncwarp();
            for (int t = 0; t < D / 16; ++t)
                for (int e = 0; e < o[t].num_elements; ++e) o[t].x[e] *= row_alpha[warp][(int)rows.x[e]];
            for (int c = 0; c < KB / 16; ++c) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pa;
                wmma::load_matrix_sync(pa, Pw[warp] + 16 * c, LDP);
                for (int t = 0; t < D / 16; ++t) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vb;
                    wmma::load_matrix_sync(vb, Vs + 16 * c * LD + 16 * t, LD);
                    wmma::mma_sync(o[t], pa, vb, o[t]);
                }
            }
            __syncwarp();
        }
        __syncthreads();
    }
    if (lane % 2 == 0) row_l[warp][r] = l;
    __syncwarp();
    for (int t = 0; t < D / 16; ++t) {
        for (int e = 0; e < o[t].num_elements; ++e) o[t].x[e] /= row_l[warp][(int)rows.x[e]];
        wmma::store_matrix_sync(Sw[warp], o[t], LDS_, wmma::mem_row_major);
        __syncwarp();
        for (int idx = lane; idx < 256; idx += 32) {
            const int rr = idx / 16, c = idx % 16;
            if (qw + rr < q_len)
                O[((size_t)q_start + qw + rr) * q_stride + (size_t)h * D + 16 * t + c] =
                    __float2bfloat16(Sw[warp][rr * LDS_ + c]);
        }
        __syncwarp();
    }
}

extern "C" void solution(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __nv_bfloat16* O, size_t B,
                         size_t Tq, size_t Tk, size_t H, size_t Hkv, size_t D) {
    (void)Tk;
    // sum_b ceil(q_len_b / QB) <= ceil(Tq / QB) + B - 1: the tiles of every sequence, and a few spare.
    const dim3 grid((unsigned)((Tq + QB - 1) / QB + B), (unsigned)H);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);  // exp(x / sqrt(D)) = exp2(x log2(e) / sqrt(D))
    if (D == 64)
        attention<64><<<grid, 128>>>(Q, K, V, cu_seqlens_q, cu_seqlens_k, O, (int)B, (int)H, (int)Hkv, scale_log2);
    else
        attention<128><<<grid, 128>>>(Q, K, V, cu_seqlens_q, cu_seqlens_k, O, (int)B, (int)H, (int)Hkv, scale_log2);
}
