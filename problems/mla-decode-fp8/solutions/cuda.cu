#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t
#include <mma.h>

#include <cmath>
#include <cstdint>

// MLA decode over an fp8 latent cache with tensor cores (nvcuda::wmma, m16n16k16, bfloat16 -> float):
// the fp8 E4M3 FNUZ values convert to bfloat16 exactly (4 significant bits) as they are staged, so the
// scores are q . c8 exactly, scaled once by scale * kv_scale, and the output divided by l / kv_scale.
// All heads of a sequence read the same cached vectors, so the scores of 16 heads against 16 keys are
// a small matrix product. A block of 4 warps takes 16 heads of one sequence and walks its keys 16 at a
// time, each block of cached vectors staged once in shared memory. Warp w sums dims 144 w .. 144 w + 143 of the scores
// (the four partial tiles meet in shared memory) and owns output dims 128 w .. 128 w + 127; every
// warp runs the same online softmax on the summed scores. WMMA leaves a fragment's element-to-row
// map unspecified, so rescaling the output by each head's exp(m_old - m_new) reads the row of every
// element from a fragment loaded from a matrix of row numbers: the same map, whatever it is.
using namespace nvcuda;

// NVIDIA has no FNUZ fp8: sign, 4 exponent bits with bias 8, 3 mantissa bits; 0x80 is NaN.
__device__ inline float fnuz_e4m3(unsigned char b) {
    if (b == 0x80) return __int_as_float(0x7fc00000);
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? ldexpf((float)mantissa, -10) : ldexpf((float)(8 + mantissa), exponent - 11);
    return (b & 0x80) ? -magnitude : magnitude;
}

constexpr int PAGE = 64, DK = 576, DV = 512, HT = 16, KB = 16, LD = DK + 8, LDS_ = KB + 4, LDP = KB + 8;

__global__ void __launch_bounds__(128) mla(const __nv_bfloat16* q, const unsigned char* cache,
                                           const int32_t* block_table, const int32_t* seq_lens, __nv_bfloat16* out,
                                           int H, int P, float scale_log2, float kv_scale) {
    __shared__ __align__(32) __nv_bfloat16 kv[KB * LD];  // the block's cached vectors; the 16 heads' queries at first
    __shared__ __align__(32) float partial[4][16 * LDS_];
    __shared__ __align__(32) __nv_bfloat16 pw[4][16 * LDP];
    __shared__ __align__(32) float row_alpha[4][16], row_l[4][16], row_number[16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int b = blockIdx.y, h0 = blockIdx.x * HT, n = seq_lens[b];
    const int32_t* table = block_table + (size_t)b * P;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);

    for (int idx = tid; idx < HT * DK; idx += 128) {
        const int r = idx / DK, d = idx % DK;
        kv[r * LD + d] = h0 + r < H ? q[((size_t)b * H + h0 + r) * DK + d] : zero;
    }
    for (int idx = tid; idx < 256; idx += 128) row_number[idx] = (float)(idx / 16);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qa[9];
    for (int s = 0; s < 9; ++s) wmma::load_matrix_sync(qa[s], kv + 144 * warp + 16 * s, LD);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> rows, o[8];
    wmma::load_matrix_sync(rows, row_number, 16, wmma::mem_row_major);
    for (int t = 0; t < 8; ++t) wmma::fill_fragment(o[t], 0.0f);
    __syncthreads();

    const int r = lane / 2, c0 = (lane % 2) * 8;  // softmax: lanes 2r, 2r + 1 share head r
    float m = -INFINITY, l = 0.0f;
    for (int k0 = 0; k0 < n; k0 += KB) {
        const unsigned char* page = cache + ((size_t)table[k0 / PAGE] * PAGE + k0 % PAGE) * DK;  // 16 keys, one page
        for (int idx = tid; idx < KB * DK; idx += 128) kv[idx / DK * LD + idx % DK] = __float2bfloat16(fnuz_e4m3(page[idx]));
        __syncthreads();
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
        wmma::fill_fragment(sf, 0.0f);
        for (int s = 0; s < 9; ++s) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kb;  // K^T
            wmma::load_matrix_sync(kb, kv + 144 * warp + 16 * s, LD);
            wmma::mma_sync(sf, qa[s], kb, sf);
        }
        wmma::store_matrix_sync(partial[warp], sf, LDS_, wmma::mem_row_major);
        __syncthreads();
        float s[8], mx = m;
        for (int c = 0; c < 8; ++c) {
            const int at = r * LDS_ + c0 + c;
            const float sum = ((partial[0][at] + partial[1][at]) + partial[2][at]) + partial[3][at];
            s[c] = k0 + c0 + c < n ? sum * scale_log2 : -INFINITY;
            mx = fmaxf(mx, s[c]);
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        const float alpha = exp2f(m - mx);  // 0 on the first block (key 0 exists)
        m = mx;
        float sum = 0.0f;
        for (int c = 0; c < 8; ++c) {
            const float p = exp2f(s[c] - m);
            sum += p;
            pw[warp][r * LDP + c0 + c] = __float2bfloat16(p);
        }
        l = l * alpha + sum + __shfl_xor_sync(0xffffffffu, sum, 1);
        if (lane % 2 == 0) row_alpha[warp][r] = alpha;
        __syncwarp();
        for (int t = 0; t < 8; ++t)
            for (int e = 0; e < o[t].num_elements; ++e) o[t].x[e] *= row_alpha[warp][(int)rows.x[e]];
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pa;
        wmma::load_matrix_sync(pa, pw[warp], LDP);
        for (int t = 0; t < 8; ++t) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vb;
            wmma::load_matrix_sync(vb, kv + 128 * warp + 16 * t, LD);
            wmma::mma_sync(o[t], pa, vb, o[t]);
        }
        __syncthreads();  // everyone is done with kv and partial before the next block
    }
    if (lane % 2 == 0) row_l[warp][r] = l / kv_scale;  // exact: kv_scale is a power of two
    __syncwarp();
    for (int t = 0; t < 8; ++t) {
        for (int e = 0; e < o[t].num_elements; ++e) o[t].x[e] /= row_l[warp][(int)rows.x[e]];
        wmma::store_matrix_sync(partial[warp], o[t], LDS_, wmma::mem_row_major);
        __syncwarp();
        for (int idx = lane; idx < 256; idx += 32) {
            const int rr = idx / 16, c = idx % 16;
            if (h0 + rr < H)
                out[((size_t)b * H + h0 + rr) * DV + 128 * warp + 16 * t + c] = __float2bfloat16(partial[warp][rr * LDS_ + c]);
        }
        __syncwarp();
    }
}

extern "C" void solution(const __nv_bfloat16* q, const __nv_fp8_storage_t* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __nv_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                         float kv_scale) {
    const dim3 grid((unsigned)((H + HT - 1) / HT), (unsigned)B);
    mla<<<grid, 128>>>(q, kv_cache, block_table, seq_lens, out, (int)H, (int)P, scale * kv_scale * 1.4426950408889634f,
                       kv_scale);
}
