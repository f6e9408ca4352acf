#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>

// Flash attention on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k). A block of
// four 64-lane wavefronts takes 128 queries of one (batch, head), 32 per wavefront, and walks all
// the keys 32 at a time (no mask), each block of K and V staged once in LDS for the four wavefronts
// (K as [key][d], V transposed as [d][key]). The log-sum-exp, kept in base 2 (m2 + log2 l), is
// stored times ln 2: the natural log.
// The scores are computed transposed, S^T = K Q^T: in the accumulators, lane l then holds query
// l % 32 and keys 8 (r / 4) + 4 (l / 32) + r % 4 in register r. So a query's online-softmax state
// (running maximum m, row sum l, rescaling of its output) lives in its own lane and the lane at
// l ^ 32 (one shuffle), and the exponentials, rounded to bfloat16, are already where the B operand
// of the next product O^T += V^T P^T wants them: registers 4c..4c+3 are keys 8c + 4 (l / 32) + e.
// The output accumulators hold O[query l % 32][32 t + 8 (r / 4) + 4 (l / 32) + r % 4].
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int WAVES = 4, QW = 32, QB = WAVES * QW, KB = 32;

template <int D>
__global__ void __launch_bounds__(256) attention(const short* Q, const short* K, const short* V, __hip_bfloat16* O,
                                                 float* LSE, int S, int H, int Hkv, float scale_log2) {
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
    for (int k0 = 0; k0 < S; k0 += KB) {
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
        floatx16 st;
        for (int r = 0; r < 16; ++r) st[r] = 0.0f;
        for (int s = 0; s < D / 8; ++s) {
            const bf16x4 ka = *(const bf16x4*)(Ks + i * LDK + 8 * s + 4 * half);
            st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, qb[s], st, 0, 0, 0);
        }
        float mx = m;
        for (int r = 0; r < 16; ++r) {
            const int key = k0 + 8 * (r / 4) + 4 * half + r % 4;
            st[r] = key < S ? st[r] * scale_log2 : -INFINITY;
            mx = fmaxf(mx, st[r]);
        }
        mx = fmaxf(mx, __shfl_xor(mx, 32));  // the query's other 16 keys
        const float alpha = exp2f(m - mx);   // 0 on the first block (m = -inf, mx finite: key 0 exists)
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
        __syncthreads();
    }
    l += __shfl_xor(l, 32);
    if (query < S) {
        const float inv = 1.0f / l;
        __hip_bfloat16* out = O + ((size_t)b * S + query) * q_stride + (size_t)h * D;
        for (int t = 0; t < D / 32; ++t)
            for (int r = 0; r < 16; ++r) out[32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(o[t][r] * inv);
        if (half == 0) LSE[((size_t)b * H + h) * S + query] = (m + log2f(l)) * 0.6931471805599453f;
    }
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V, __hip_bfloat16* O,
                         float* LSE, size_t B, size_t S, size_t H, size_t Hkv, size_t D) {
    const dim3 grid((unsigned)((S + QB - 1) / QB), (unsigned)H, (unsigned)B);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);  // exp(x / sqrt(D)) = exp2(x log2(e) / sqrt(D))
    const short *q = reinterpret_cast<const short*>(Q), *k = reinterpret_cast<const short*>(K),
                *v = reinterpret_cast<const short*>(V);
    if (D == 64)
        hipLaunchKernelGGL(attention<64>, grid, dim3(256), 0, 0, q, k, v, O, LSE, (int)S, (int)H, (int)Hkv, scale_log2);
    else
        hipLaunchKernelGGL(attention<128>, grid, dim3(256), 0, 0, q, k, v, O, LSE, (int)S, (int)H, (int)Hkv, scale_log2);
}
