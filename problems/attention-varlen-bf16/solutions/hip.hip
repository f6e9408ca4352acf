#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>
#include <cstdint>

// Variable-length flash attention on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k),
// flash-attention-fwd's kernel per sequence. A block of four 64-lane wavefronts takes 128 queries of
// one sequence and head, 32 per wavefront; the blocks are dealt out over the sequences' tiles in
// order (grid.x covers at least sum_b ceil(q_len_b / 128); each block finds its sequence by walking
// cu_seqlens_q, and the spare ones return). It walks the sequence's keys 32 at a time as far as its
// last query sees (query i sees keys j <= i + k_len - q_len: the mask aligned at the bottom right),
// each block of K and V staged once in LDS for the four wavefronts (K as [key][d], V transposed).
// The scores are computed transposed, S^T = K Q^T: lane l holds query l % 32 and keys
// 8 (r / 4) + 4 (l / 32) + r % 4 in register r, so a query's online-softmax state lives in its lane
// and the lane at l ^ 32, and the exponentials, rounded to bfloat16, are already where the B operand
// of O^T += V^T P^T wants them. The output accumulators hold O[query l % 32][32 t + 8 (r / 4) + 4 (l / 32) + r % 4].
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int WAVES = 4, QW = 32, QB = WAVES * QW, KB = 32;

template <int D>
__global__ void __launch_bounds__(256) attention(const short* Q, const short* K, const short* V,
                                                 const int32_t* cu_q, const int32_t* cu_k, __hip_bfloat16* O, int B,
                                                 int H, int Hkv, float scale_log2) {
    constexpr int LDK = D + 4, LDV = KB + 4;  // LDS rows padded to spread the banks
    __shared__ __align__(32) short Ks[KB * LDK], Vt[D * LDV];
    int tile = blockIdx.x, b = 0;
    for (; b < B; ++b) {  // the sequence that holds this tile (the same walk in every thread)
        const int tiles = (cu_q[b + 1] - cu_q[b] + QB - 1) / QB;
        if (tile < tiles) break;
        tile -= tiles;
    }
    if (b == B) return;  // a spare block: the whole block leaves before any barrier
    const int q_start = cu_q[b], q_len = cu_q[b + 1] - q_start;
    const int k_start = cu_k[b], k_len = cu_k[b + 1] - k_start, shift = k_len - q_len;
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, i = lane % 32, half = lane / 32;
    const int h = blockIdx.y, hk = h / (H / Hkv);
    const int q0 = tile * QB, qw = q0 + wave * QW, query = qw + i;  // within the sequence
    const size_t q_stride = (size_t)H * D, kv_stride = (size_t)Hkv * D;
    bf16x4 qb[D / 8];  // Q^T as the B operand: Q[query][8 s + 4 half + e]
    for (int s = 0; s < D / 8; ++s)
        for (int e = 0; e < 4; ++e)
            qb[s][e] = query < q_len ? Q[((size_t)q_start + query) * q_stride + (size_t)h * D + 8 * s + 4 * half + e]
                                     : (short)0;
    floatx16 o[D / 32];
    for (int t = 0; t < D / 32; ++t)
        for (int r = 0; r < 16; ++r) o[t][r] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    const int kv_end = min(k_len, q0 + QB + shift);  // one past the block's last query's last key
    for (int k0 = 0; k0 < kv_end; k0 += KB) {
        for (int idx = tid; idx < KB * D / 8; idx += 256) {
            const int key = idx / (D / 8), d = idx % (D / 8) * 8;
            bf16x8 kv = {}, vv = {};
            if (k0 + key < k_len) {
                const size_t at = ((size_t)k_start + k0 + key) * kv_stride + (size_t)hk * D + d;
                kv = *(const bf16x8*)(K + at);
                vv = *(const bf16x8*)(V + at);
            }
            for (int e = 0; e < 8; ++e) {
                Ks[key * LDK + d + e] = kv[e];
                Vt[(d + e) * LDV + key] = vv[e];
            }
        }
        __syncthreads();
        // Some query of the wavefront exists and sees some key of the block.
        if (qw < q_len && k0 <= qw + QW - 1 + shift) {
            floatx16 st;
            for (int r = 0; r < 16; ++r) st[r] = 0.0f;
            for (int s = 0; s < D / 8; ++s) {
                const bf16x4 ka = *(const bf16x4*)(Ks + i * LDK + 8 * s + 4 * half);
                st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, qb[s], st, 0, 0, 0);
            }
            float mx = m;
            for (int r = 0; r < 16; ++r) {
                const int key = k0 + 8 * (r / 4) + 4 * half + r % 4;
                st[r] = key <= query + shift && key < k_len ? st[r] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, st[r]);
            }
            mx = fmaxf(mx, __shfl_xor(mx, 32));  // the query's other 16 keys
            const float alpha = exp2f(m - mx);   // 0 on the first block (m = -inf, mx finite: key 0 is visible)
            m = mx;
            l *= alpha;
            for (int t = 0; t < D / 32; ++t)
                for (int r = 0; r < 16; ++r) o[t][r] *= alpha;
            bf16x4 pb[4];
            for (int r = 0; r < 16; ++r) {
                const float p = exp2f(st[r] - m);
                l += p;
                pb[r / 4][r % 4] = (short)__bfloat16_as_ushort(__float2bfloat16(p));
            }
            for (int t = 0; t < D / 32; ++t)
                for (int c = 0; c < 4; ++c) {
                    const bf16x4 va = *(const bf16x4*)(Vt + (32 * t + i) * LDV + 8 * c + 4 * half);
                    o[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, pb[c], o[t], 0, 0, 0);
                }
        }
        __syncthreads();
    }
    l += __shfl_xor(l, 32);
    if (query < q_len) {
        const float inv = 1.0f / l;
        __hip_bfloat16* out = O + ((size_t)q_start + query) * q_stride + (size_t)h * D;
        for (int t = 0; t < D / 32; ++t)
            for (int r = 0; r < 16; ++r) out[32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(o[t][r] * inv);
    }
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                         const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, __hip_bfloat16* O, size_t B,
                         size_t Tq, size_t Tk, size_t H, size_t Hkv, size_t D) {
    (void)Tk;
    // sum_b ceil(q_len_b / QB) <= ceil(Tq / QB) + B - 1: the tiles of every sequence, and a few spare.
    const dim3 grid((unsigned)((Tq + QB - 1) / QB + B), (unsigned)H);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);  // exp(x / sqrt(D)) = exp2(x log2(e) / sqrt(D))
    const short *q = reinterpret_cast<const short*>(Q), *k = reinterpret_cast<const short*>(K),
                *v = reinterpret_cast<const short*>(V);
    if (D == 64)
        hipLaunchKernelGGL(attention<64>, grid, dim3(256), 0, 0, q, k, v, cu_seqlens_q, cu_seqlens_k, O, (int)B, (int)H,
                           (int)Hkv, scale_log2);
    else
        hipLaunchKernelGGL(attention<128>, grid, dim3(256), 0, 0, q, k, v, cu_seqlens_q, cu_seqlens_k, O, (int)B,
                           (int)H, (int)Hkv, scale_log2);
}
