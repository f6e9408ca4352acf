#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>
#include <cstdint>

// MLA decode on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k). All heads of a
// sequence read the same cached vectors, so the scores of 32 heads against 32 keys are a small GEMM.
// A block of four 64-lane wavefronts takes 32 heads of one sequence and walks its keys 32 at a time
// (one half of a 64-token page). Wavefront w owns latent dims 128 w .. 128 w + 127 and rotary dims
// 512 + 16 w .. + 15 of the scores' sum (144 of 576), and the same 128 latent dims of the output: it
// reads only its slice of each cached vector, once. The four partial score tiles meet in LDS (double
// buffered, one barrier per block of keys), every wavefront adds them in the same order, and runs
// the same online softmax; P, rounded to bfloat16, feeds its O^T += V^T P^T from registers.
// As in flash-attention-fwd, the scores are computed transposed (S^T = K Q^T): lane l holds head
// l % 32 and keys 8 (r / 4) + 4 (l / 32) + r % 4, which is the B operand layout of the P V product.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int PAGE = 64, DK = 576, DV = 512, HT = 32, KB = 32, STEPS = 18;  // 18 steps of 8 dims per wavefront

__device__ inline int dim_of(int wave, int s) { return s < 16 ? 128 * wave + 8 * s : DV + 16 * wave + 8 * (s - 16); }

__global__ void __launch_bounds__(256) mla(const short* q, const short* cache, const int32_t* block_table,
                                           const int32_t* seq_lens, __hip_bfloat16* out, int H, int P,
                                           float scale_log2) {
    __shared__ __align__(32) float partial[2][4][16 * 64];  // [buffer][wavefront][register * 64 + lane]
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64, i = lane % 32, half = lane / 32;
    const int b = blockIdx.y, head = blockIdx.x * HT + i, n = seq_lens[b];
    const int32_t* table = block_table + (size_t)b * P;
    bf16x4 qb[STEPS];  // Q^T as the B operand: q[head][dim + 4 half + e]
    for (int s = 0; s < STEPS; ++s)
        for (int e = 0; e < 4; ++e)
            qb[s][e] = head < H ? q[((size_t)b * H + head) * DK + dim_of(wave, s) + 4 * half + e] : (short)0;
    floatx16 o[4];
    for (int t = 0; t < 4; ++t)
        for (int r = 0; r < 16; ++r) o[t][r] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    int buffer = 0;
    for (int k0 = 0; k0 < n; k0 += KB) {
        const short* page = cache + (size_t)table[k0 / PAGE] * PAGE * DK + (size_t)(k0 % PAGE) * DK;
        floatx16 st;
        for (int r = 0; r < 16; ++r) st[r] = 0.0f;
        for (int s = 0; s < STEPS; ++s) {  // A operand: key k0 + i, 4 of this wavefront's dims
            const bf16x4 ka = *(const bf16x4*)(page + (size_t)i * DK + dim_of(wave, s) + 4 * half);
            st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, qb[s], st, 0, 0, 0);
        }
        for (int r = 0; r < 16; ++r) partial[buffer][wave][r * 64 + lane] = st[r];
        __syncthreads();
        float mx = m;
        for (int r = 0; r < 16; ++r) {
            const float* p = &partial[buffer][0][r * 64 + lane];
            const float sum = ((p[0] + p[16 * 64]) + p[2 * 16 * 64]) + p[3 * 16 * 64];
            const int key = k0 + 8 * (r / 4) + 4 * half + r % 4;
            st[r] = key < n ? sum * scale_log2 : -INFINITY;
            mx = fmaxf(mx, st[r]);
        }
        buffer ^= 1;
        mx = fmaxf(mx, __shfl_xor(mx, 32));  // the head's other 16 keys
        const float alpha = exp2f(m - mx);   // 0 on the first block (m = -inf; key 0 exists)
        m = mx;
        l *= alpha;
        for (int t = 0; t < 4; ++t)
            for (int r = 0; r < 16; ++r) o[t][r] *= alpha;
        bf16x4 pb[4];
        for (int r = 0; r < 16; ++r) {
            const float p = exp2f(st[r] - m);
            l += p;
            pb[r / 4][r % 4] = (short)__bfloat16_as_ushort(__float2bfloat16(p));
        }
        for (int t = 0; t < 4; ++t)
            for (int c = 0; c < 4; ++c) {  // A operand: V^T[128 w + 32 t + i][key 8 c + 4 half + e]
                const short* v = page + (size_t)(8 * c + 4 * half) * DK + 128 * wave + 32 * t + i;
                const bf16x4 va = {v[0], v[DK], v[2 * DK], v[3 * DK]};
                o[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, pb[c], o[t], 0, 0, 0);
            }
    }
    l += __shfl_xor(l, 32);
    if (head < H) {
        const float inv = 1.0f / l;
        __hip_bfloat16* dst = out + ((size_t)b * H + head) * DV + 128 * wave;
        for (int t = 0; t < 4; ++t)
            for (int r = 0; r < 16; ++r) dst[32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(o[t][r] * inv);
    }
}

extern "C" void solution(const __hip_bfloat16* q, const __hip_bfloat16* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __hip_bfloat16* out, size_t B, size_t H, size_t P, float scale) {
    const dim3 grid((unsigned)((H + HT - 1) / HT), (unsigned)B);
    hipLaunchKernelGGL(mla, grid, dim3(256), 0, 0, reinterpret_cast<const short*>(q),
                       reinterpret_cast<const short*>(kv_cache), block_table, seq_lens, out, (int)H, (int)P,
                       scale * 1.4426950408889634f);  // exp(x) = exp2(x log2(e))
}
