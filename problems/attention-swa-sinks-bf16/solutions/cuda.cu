#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <cmath>

// Sliding-window flash attention with sinks and tensor cores (nvcuda::wmma, m16n16k16, bfloat16 ->
// float), flash-attention-fwd's kernel with a window. A block of 4 warps takes 64 queries of one
// (batch, head), 16 per warp, and walks only the keys its queries' windows cover (i - W < j <= i), 32
// at a time, K and V staged once in shared memory for the 4 warps. Per warp and block of keys:
// S = Q K^T into fragments, through shared memory to the online softmax (two lanes per query row),
// P rounded to bfloat16, and O += P V into fragments that stay in registers across the blocks. WMMA
// leaves a fragment's element-to-row map unspecified, so rescaling O by each row's
// exp(m_old - m_new) reads the row of every element from a fragment loaded from a matrix of row
// numbers: the same map, whatever it is. A row may see no key of a block (its window starts later):
// its maximum stays -inf, and its exponentials are taken against 0 instead, so they are 0, not NaN.
// The sink joins at the end: the maximum becomes max(m, sink), O and l are rescaled to it, and
// e^(sink - m) is added to l only.
using namespace nvcuda;

constexpr int WARPS = 4, QW = 16, QB = WARPS * QW, KB = 32, LDS_ = KB + 4, LDP = KB + 8;

template <int D>
__global__ void __launch_bounds__(128) attention(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                                 const __nv_bfloat16* V, const float* sinks, __nv_bfloat16* O,
                                                 int S, int H, int Hkv, int W, float scale_log2) {
    constexpr int LD = D + 8;
    __shared__ __align__(32) __nv_bfloat16 KV[2 * KB * LD];  // K then V, [key][d]; Q's 64 rows at first
    __shared__ __align__(32) float Sw[WARPS][16 * LDS_];
    __shared__ __align__(32) __nv_bfloat16 Pw[WARPS][16 * LDP];
    __shared__ __align__(32) float row_alpha[WARPS][16], row_f[WARPS][16], row_number[16 * 16];
    __nv_bfloat16 *Ks = KV, *Vs = KV + KB * LD;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int b = blockIdx.z, h = blockIdx.y, hk = h / (H / Hkv);
    const int q0 = blockIdx.x * QB, qw = q0 + warp * QW;
    const size_t q_stride = (size_t)H * D, kv_stride = (size_t)Hkv * D;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);

    for (int idx = tid; idx < QB * D; idx += 128) {  // stage the block's queries, then keep them as fragments
        const int r = idx / D, d = idx % D;
        KV[r * LD + d] = q0 + r < S ? Q[((size_t)b * S + q0 + r) * q_stride + (size_t)h * D + d] : zero;
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
    const int kv_begin = max(0, q0 - W + 1) / KB * KB;  // the block holding the first query's first key
    const int kv_end = min(S, q0 + QB);
    for (int k0 = kv_begin; k0 < kv_end; k0 += KB) {
        for (int idx = tid; idx < KB * D; idx += 128) {
            const int key = idx / D, d = idx % D;
            const bool ok = k0 + key < S;
            const size_t at = ((size_t)b * S + k0 + key) * kv_stride + (size_t)hk * D + d;
            Ks[key * LD + d] = ok ? K[at] : zero;
            Vs[key * LD + d] = ok ? V[at] : zero;
        }
        __syncthreads();
        // Some key of the block is in some window of the warp's queries.
        if (qw < S && k0 <= qw + QW - 1 && k0 + KB - 1 > qw - W) {
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
                const bool visible = key <= query && key > query - W && key < S;
                s[c] = visible ? Sw[warp][r * LDS_ + c0 + c] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, s[c]);
            }
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            const float ref = mx == -INFINITY ? 0.0f : mx;
            const float alpha = exp2f(m - ref);  // 0 while m is -inf
            m = mx;
            float sum = 0.0f;
            for (int c = 0; c < 16; ++c) {
                const float p = exp2f(s[c] - ref);
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
    if (lane % 2 == 0) {  // the factor of the row's output: rescaled to max(m, sink), over l and the sink
        const float sink = sinks[h] * 1.4426950408889634f;  // base 2, as m
        const float mf = fmaxf(m, sink), rescale = exp2f(m - mf);
        row_f[warp][r] = rescale / (l * rescale + exp2f(sink - mf));
    }
    __syncwarp();
    for (int t = 0; t < D / 16; ++t) {
        for (int e = 0; e < o[t].num_elements; ++e) o[t].x[e] *= row_f[warp][(int)rows.x[e]];
        wmma::store_matrix_sync(Sw[warp], o[t], LDS_, wmma::mem_row_major);
        __syncwarp();
        for (int idx = lane; idx < 256; idx += 32) {
            const int rr = idx / 16, c = idx % 16;
            if (qw + rr < S)
                O[((size_t)b * S + qw + rr) * q_stride + (size_t)h * D + 16 * t + c] = __float2bfloat16(Sw[warp][rr * LDS_ + c]);
        }
        __syncwarp();
    }
}

extern "C" void solution(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const float* sinks,
                         __nv_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D, int W) {
    const dim3 grid((unsigned)((S + QB - 1) / QB), (unsigned)H, (unsigned)B);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);  // exp(x / sqrt(D)) = exp2(x log2(e) / sqrt(D))
    if (D == 64)
        attention<64><<<grid, 128>>>(Q, K, V, sinks, O, (int)S, (int)H, (int)Hkv, W, scale_log2);
    else
        attention<128><<<grid, 128>>>(Q, K, V, sinks, O, (int)S, (int)H, (int)Hkv, W, scale_log2);
}
