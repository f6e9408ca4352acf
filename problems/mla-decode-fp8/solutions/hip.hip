#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#include <cmath>
#include <cstdint>

// MLA decode over an fp8 latent cache on MI300X's matrix cores. All heads of a sequence read the same
// cached vectors, so the scores of 32 heads against 32 keys are a small GEMM. A block of four 64-lane
// wavefronts takes 32 heads of one sequence and walks its keys 32 at a time (one half of a 64-token
// page). Wavefront w owns latent dims 128 w .. 128 w + 127 and rotary dims 512 + 16 w .. + 15 of the
// scores' sum (144 of 576), and the same 128 latent dims of the output: it reads only its slice of each
// cached vector, once.
// Scores: the cache's fp8 bytes feed __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8 as they are. q (9
// bits: k / 128 with |k| <= 256, the statement's inputs) fits no fp8, but splits exactly into two:
// k = 16 a + c with |a| <= 16 and |c| <= 8, q = a / 8 + c / 128, each part an fp8 E4M3 FNUZ value; two
// fp8 products give q . c8 exactly (every partial sum is a float32), scaled once by scale * kv_scale.
// The four partial score tiles meet in LDS (double buffered, one barrier per block of keys), every
// wavefront adds them in the same order and runs the same online softmax; P, rounded to bfloat16,
// feeds O^T += V8^T P^T on __builtin_amdgcn_mfma_f32_32x32x8bf16_1k (fp8 converts to bfloat16
// exactly); kv_scale multiplies the output once.
// As in mla-decode, the scores are computed transposed (S^T = K Q^T): lane l holds head l % 32 and
// keys 8 (r / 4) + 4 (l / 32) + r % 4, which is the B operand layout of the P V product. fp8 operand
// layout (CDNA3, 32x32x16): lane l holds A[l % 32][8 (l / 32) + e] and B[8 (l / 32) + e][l % 32],
// e = 0..7, in a 64-bit register.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int PAGE = 64, DK = 576, DV = 512, HT = 32, KB = 32, STEPS = 9;  // 9 steps of 16 dims per wavefront

__device__ inline int dim_of(int wave, int s) { return s < 8 ? 128 * wave + 16 * s : DV + 16 * wave; }

// E4M3 FNUZ: sign, 4 exponent bits with bias 8, 3 mantissa bits; 0x80 is NaN.
__device__ inline float fnuz_e4m3(unsigned char b) {
    if (b == 0x80) return __int_as_float(0x7fc00000);
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? ldexpf((float)mantissa, -10) : ldexpf((float)(8 + mantissa), exponent - 11);
    return (b & 0x80) ? -magnitude : magnitude;
}

// The fp8 byte of j 2^-7 for an integer |j| <= 16 whose value is a normal fp8 (j 2^-7 >= 2^-7).
__device__ inline unsigned long long fnuz_byte(int j, int shift) {  // value j 2^shift
    if (j == 0) return 0;
    const unsigned sign = j < 0 ? 0x80u : 0u;
    int m = j < 0 ? -j : j, e = shift;
    while (m >= 16) m /= 2, ++e;  // |j| = 16 only: 16 2^s = 8 2^(s + 1)
    while (m < 8) m *= 2, --e;    // m 2^e with 8 <= m < 16: (1 + (m - 8) / 8) 2^(e + 3)
    return sign | (unsigned)(e + 3 + 8) << 3 | (unsigned)(m - 8);
}

__device__ inline short bf16_bits_of_fp8(unsigned char b) {  // exact: 4 significant bits
    return (short)(__float_as_uint(fnuz_e4m3(b)) >> 16);
}

__global__ void __launch_bounds__(256) mla(const short* q, const unsigned char* cache, const int32_t* block_table,
                                           const int32_t* seq_lens, __hip_bfloat16* out, int H, int P,
                                           float qk_scale_log2, float kv_scale) {
    __shared__ __align__(32) float partial[2][4][16 * 64];  // [buffer][wavefront][register * 64 + lane]
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64, i = lane % 32, half = lane / 32;
    const int b = blockIdx.y, head = blockIdx.x * HT + i, n = seq_lens[b];
    const int32_t* table = block_table + (size_t)b * P;
    long q_hi[STEPS], q_lo[STEPS];  // Q^T as the B operand: q[head][dim + 8 half + e], split in two
    for (int s = 0; s < STEPS; ++s) {
        unsigned long long hi = 0, lo = 0;
        for (int e = 0; e < 8; ++e) {
            const short bits = head < H ? q[((size_t)b * H + head) * DK + dim_of(wave, s) + 8 * half + e] : (short)0;
            const int j = (int)(__uint_as_float((unsigned)(unsigned short)bits << 16) * 128.0f);  // exact
            const int a = (j + 8) >> 4, c = j - 16 * a;  // |a| <= 16, -8 <= c < 8
            hi |= fnuz_byte(a, -3) << (8 * e);
            lo |= fnuz_byte(c, -7) << (8 * e);
        }
        q_hi[s] = (long)hi;
        q_lo[s] = (long)lo;
    }
    floatx16 o[4];
    for (int t = 0; t < 4; ++t)
        for (int r = 0; r < 16; ++r) o[t][r] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    int buffer = 0;
    for (int k0 = 0; k0 < n; k0 += KB) {
        const unsigned char* page = cache + (size_t)table[k0 / PAGE] * PAGE * DK + (size_t)(k0 % PAGE) * DK;
        floatx16 st;
        for (int r = 0; r < 16; ++r) st[r] = 0.0f;
        for (int s = 0; s < STEPS; ++s) {  // A operand: key k0 + i, 8 of this wavefront's dims
            const long ka = *(const long*)(page + (size_t)i * DK + dim_of(wave, s) + 8 * half);
            st = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(ka, q_hi[s], st, 0, 0, 0);
            st = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(ka, q_lo[s], st, 0, 0, 0);
        }
        for (int r = 0; r < 16; ++r) partial[buffer][wave][r * 64 + lane] = st[r];
        __syncthreads();
        float mx = m;
        for (int r = 0; r < 16; ++r) {
            const float* p = &partial[buffer][0][r * 64 + lane];
            const float sum = ((p[0] + p[16 * 64]) + p[2 * 16 * 64]) + p[3 * 16 * 64];
            const int key = k0 + 8 * (r / 4) + 4 * half + r % 4;
            st[r] = key < n ? sum * qk_scale_log2 : -INFINITY;
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
            for (int c = 0; c < 4; ++c) {  // A operand: V8^T[128 w + 32 t + i][key 8 c + 4 half + e]
                const unsigned char* v = page + (size_t)(8 * c + 4 * half) * DK + 128 * wave + 32 * t + i;
                const bf16x4 va = {bf16_bits_of_fp8(v[0]), bf16_bits_of_fp8(v[DK]), bf16_bits_of_fp8(v[2 * DK]),
                                   bf16_bits_of_fp8(v[3 * DK])};
                o[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, pb[c], o[t], 0, 0, 0);
            }
    }
    l += __shfl_xor(l, 32);
    if (head < H) {
        const float factor = kv_scale / l;
        __hip_bfloat16* dst = out + ((size_t)b * H + head) * DV + 128 * wave;
        for (int t = 0; t < 4; ++t)
            for (int r = 0; r < 16; ++r) dst[32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(o[t][r] * factor);
    }
}

extern "C" void solution(const __hip_bfloat16* q, const __hip_fp8_e4m3_fnuz* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, __hip_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                         float kv_scale) {
    const dim3 grid((unsigned)((H + HT - 1) / HT), (unsigned)B);
    hipLaunchKernelGGL(mla, grid, dim3(256), 0, 0, reinterpret_cast<const short*>(q),
                       reinterpret_cast<const unsigned char*>(kv_cache), block_table, seq_lens, out, (int)H, (int)P,
                       scale * kv_scale * 1.4426950408889634f, kv_scale);  // exp(x) = exp2(x log2(e))
}
