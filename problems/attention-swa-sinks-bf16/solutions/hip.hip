#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>

// Sliding-window flash attention with sinks on MI300X's matrix cores
// (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k), flash-attention-fwd's kernel with a window. A block of
// four 64-lane wavefronts takes 128 queries of one (batch, head), 32 per wavefront, and walks only
// the keys its queries' windows cover (i - W < j <= i), 32 at a time, each block of K and V staged
// once in LDS for the four wavefronts (K as [key][d], V transposed as [d][key]). The sink joins at
// the end: the maximum becomes max(m, sink), the output and l are rescaled to it, and e^(sink - m)
// is added to l only.
// The scores are computed transposed, S^T = K Q^T: lane l holds query l % 32 and keys
// 8 (r / 4) + 4 (l / 32) + r % 4 in register r, so a query's online-softmax state lives in its lane
// and the lane at l ^ 32, and the exponentials, rounded to bfloat16, are already where the B operand
// of O^T += V^T P^T wants them. The output accumulators hold O[query l % 32][32 t + 8 (r / 4) + 4 (l / 32) + r % 4].
// A query may see no key of a block (its window starts later, or it is past the end): the maximum
// stays -inf there, and the exponentials are taken against 0 instead, so they are 0, not NaN.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int WAVES = 4, QW = 32, QB = WAVES * QW, KB = 32;

template <int D>
__global__ void __launch_bounds__(256) attention(const short* Q, const short* K, const short* V, const float* sinks,
                                                 __hip_bfloat16* O, int S, int H, int Hkv, int W, float scale_log2) {
    constexpr int LDK = D + 4, LDV = KB + 4;  // LDS rows padded to spread the banks
    __shared__ __align__(32) short Ks[KB * LDK], Vt[D * LDV];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, i = lane % 32, half = lane / 32;
    const int b = blockIdx.z, h = blockIdx.y, hk = h / (H / Hkv);
    const int q0 = blockIdx.x * QB;
    const int qw = q0 + wave * QW, query = qw + i;
    const size_t q_stride = (size_t)H * D, kv_stride = (size_t)Hkv * D;
    bf16x4 qb[D / 8];  // Q^T as the B operand: Q[query][8 s + 4 half + e]
    for (int s = 0; s < D / 8; ++s)
        for (int e = 0; e < 4; ++e)
            qb[s][e] = query < S ? Q[((size_t)b * S + query) * q_stride + (size_t)h * D + 8 * s + 4 * half + e]
                                 : (short)0;
    floatx16 o[D / 32];
    for (int t = 0; t < D / 32; ++t)
        for (int r = 0; r < 16; ++r) o[t][r] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    const int kv_begin = max(0, q0 - W + 1) / KB * KB;  // the block holding the first query's first key
    const int kv_end = min(S, q0 + QB);
    for (int k0 = kv_begin; k0 < kv_end; k0 += KB) {
        for (int idx = tid; idx < KB * D / 8; idx += 256) {
            const int key = idx / (D / 8), d = idx % (D / 8) * 8;
            bf16x8 kv = {}, vv = {};
            if (k0 + key < S) {
                const size_t at = ((size_t)b * S + k0 + key) * kv_stride + (size_t)hk * D + d;
                kv = *(const bf16x8*)(K + at);
                vv = *(const bf16x8*)(V + at);
            }
            for (int e = 0; e < 8; ++e) {
                Ks[key * LDK + d + e] = kv[e];
                Vt[(d + e) * LDV + key] = vv[e];
            }
        }
        __syncthreads();
        // Some key of the block is in some window of the wavefront's queries.
        if (qw < S && k0 <= qw + QW - 1 && k0 + KB - 1 > qw - W) {
            floatx16 st;
            for (int r = 0; r < 16; ++r) st[r] = 0.0f;
            for (int s = 0; s < D / 8; ++s) {
                const bf16x4 ka = *(const bf16x4*)(Ks + i * LDK + 8 * s + 4 * half);
                st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, qb[s], st, 0, 0, 0);
            }
            float mx = m;
            for (int r = 0; r < 16; ++r) {
                const int key = k0 + 8 * (r / 4) + 4 * half + r % 4;
                st[r] = key <= query && key > query - W && key < S ? st[r] * scale_log2 : -INFINITY;
                mx = fmaxf(mx, st[r]);
            }
            mx = fmaxf(mx, __shfl_xor(mx, 32));  // the query's other 16 keys
            const float ref = mx == -INFINITY ? 0.0f : mx;
            const float alpha = exp2f(m - ref);  // 0 while m is -inf
            m = mx;
            l *= alpha;
            for (int t = 0; t < D / 32; ++t)
                for (int r = 0; r < 16; ++r) o[t][r] *= alpha;
            bf16x4 pb[4];
            for (int r = 0; r < 16; ++r) {
                const float p = exp2f(st[r] - ref);
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
    if (query < S) {
        const float sink = sinks[h] * 1.4426950408889634f;  // base 2, as m
        const float mf = fmaxf(m, sink), rescale = exp2f(m - mf);
        const float inv = rescale / (l * rescale + exp2f(sink - mf));
        __hip_bfloat16* out = O + ((size_t)b * S + query) * q_stride + (size_t)h * D;
        for (int t = 0; t < D / 32; ++t)
            for (int r = 0; r < 16; ++r) out[32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(o[t][r] * inv);
    }
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V, const float* sinks,
                         __hip_bfloat16* O, size_t B, size_t S, size_t H, size_t Hkv, size_t D, int W) {
    const dim3 grid((unsigned)((S + QB - 1) / QB), (unsigned)H, (unsigned)B);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);  // exp(x / sqrt(D)) = exp2(x log2(e) / sqrt(D))
    const short *q = reinterpret_cast<const short*>(Q), *k = reinterpret_cast<const short*>(K),
                *v = reinterpret_cast<const short*>(V);
    if (D == 64)
        hipLaunchKernelGGL(attention<64>, grid, dim3(256), 0, 0, q, k, v, sinks, O, (int)S, (int)H, (int)Hkv, W,
                           scale_log2);
    else
        hipLaunchKernelGGL(attention<128>, grid, dim3(256), 0, 0, q, k, v, sinks, O, (int)S, (int)H, (int)Hkv, W,
                           scale_log2);
}
